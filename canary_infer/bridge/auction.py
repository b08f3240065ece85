"""Calls and auctions, with the laws of bidding enforced.

A :class:`Call` is a bid (``1C`` .. ``7N``), a pass, a double or a redouble:

>>> Call.parse("1nt"), Call.parse("Pass"), Call.parse("Dbl"), Call.parse("Redouble")
(Call.parse('1N'), Call.parse('P'), Call.parse('X'), Call.parse('XX'))

An :class:`Auction` is an immutable sequence of calls that starts with a
dealer.  Every constructor checks the laws (sufficient bids, doubles and
redoubles only of the opponents, nothing after the auction ends):

>>> auction = Auction.parse("1S P 2S P P P", dealer="E")
>>> auction.last_bid, auction.last_bidder, auction.is_complete
(Call.parse('2S'), 'W', True)
>>> Auction.parse("1S P 1H")
Traceback (most recent call last):
...
canary_infer.bridge.auction.AuctionError: call 3 '1H' is insufficient after 1S

Errors are :class:`AuctionError`, which says whether the text could not be
read (``kind == "syntax"``) or broke a law (``kind == "illegal"``) and at
which call (``position``, 0-based).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, overload

from canary_infer.bridge.cards import SEATS

__all__ = [
    "SEATS",
    "STRAINS",
    "AuctionError",
    "Call",
    "PASS",
    "DOUBLE",
    "REDOUBLE",
    "Auction",
    "next_seat",
    "legal_calls",
    "split_calls",
]

STRAINS = "CDHSN"
"""Strain letters from lowest to highest; ``N`` is notrump.

Note that this is the bidding order, the reverse of :data:`canary_infer.bridge.cards.SUITS`.
"""

_KINDS = ("bid", "pass", "double", "redouble")
_ERROR_KINDS = ("syntax", "illegal")


def next_seat(seat: str, k: int = 1) -> str:
    """The seat *k* places clockwise from *seat* (*k* may be negative).

    >>> next_seat("N"), next_seat("W"), next_seat("S", 2), next_seat("N", -1)
    ('E', 'N', 'N', 'W')

    :raises ValueError: if *seat* is not one of ``N``, ``E``, ``S``, ``W``.
    """
    return SEATS[(SEATS.index(_norm_seat(seat, "seat")) + k) % 4]


def _norm_seat(seat: Any, what: str) -> str:
    s = seat.upper() if isinstance(seat, str) else seat
    if not isinstance(s, str) or len(s) != 1 or s not in SEATS:
        raise AuctionError(f"unknown {what} {seat!r}, expected one of N, E, S, W", "syntax")
    return s


class AuctionError(ValueError):
    """A call or auction that cannot be read or that breaks the laws.

    :ivar kind: ``"syntax"`` when the text is unreadable, ``"illegal"`` when
        a readable call is forbidden by the laws at that point.
    :ivar position: the 0-based index of the offending call in the auction,
        or ``None`` when the error is not about one call (for example a bad
        dealer, or :meth:`Call.parse` on its own).  The message counts calls
        from 1.

    >>> try:
    ...     Auction.parse("1N P 2C XX")
    ... except AuctionError as err:
    ...     print(err.kind, err.position, err)
    illegal 3 call 4 'XX' cannot redouble 2C, which is not doubled
    """

    kind: str
    position: int | None
    calls: list[str] | None = None
    """For a call of a PBN auction section: the calls read before it (``AP`` written out) and
    its token, which ``position`` indexes."""

    def __init__(self, message: str, kind: str, position: int | None = None) -> None:
        if kind not in _ERROR_KINDS:
            raise ValueError(f"AuctionError kind must be 'syntax' or 'illegal', got {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.position = position

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.kind, self.position))


@dataclass(frozen=True, slots=True, repr=False)
class Call:
    """One call: a bid, a pass, a double or a redouble.

    Usually made with :meth:`parse`, :meth:`bid`, :meth:`from_rank` or the
    constants :data:`PASS`, :data:`DOUBLE` and :data:`REDOUBLE`.

    Bids compare by rank (level, then strain C < D < H < S < N).  Comparing
    a pass, double or redouble with ``<`` raises :class:`TypeError`.

    >>> Call.parse("1S") < Call.parse("1N") < Call.parse("2C")
    True
    >>> call = Call.parse("4h")
    >>> call.kind, call.level, call.strain, call.is_bid, call.rank, str(call)
    ('bid', 4, 'H', True, 17, '4H')
    >>> Call.from_rank(17) == call
    True
    """

    kind: str
    level: int | None = None
    strain: str | None = None

    def __post_init__(self) -> None:
        if self.kind == "bid":
            if type(self.level) is not int or not 1 <= self.level <= 7:
                raise ValueError(f"bid level must be an int from 1 to 7, got {self.level!r}")
            if not isinstance(self.strain, str) or len(self.strain) != 1 or self.strain not in STRAINS:
                raise ValueError(f"bid strain must be one of C, D, H, S, N, got {self.strain!r}")
        elif self.kind in _KINDS:
            if self.level is not None or self.strain is not None:
                raise ValueError(f"a {self.kind} has no level or strain")
        else:
            raise ValueError(f"call kind must be one of {', '.join(_KINDS)}, got {self.kind!r}")

    @classmethod
    def bid(cls, level: int, strain: str) -> Call:
        """The bid of *level* (1-7) in *strain* (``C D H S N``, case-insensitive).

        >>> Call.bid(3, "n")
        Call.parse('3N')
        """
        return cls("bid", level, strain.upper() if isinstance(strain, str) else strain)

    @classmethod
    def from_rank(cls, rank: int) -> Call:
        """The bid with the given :attr:`rank`: 0 is ``1C``, 34 is ``7N``.

        >>> Call.from_rank(0), Call.from_rank(34)
        (Call.parse('1C'), Call.parse('7N'))

        :raises ValueError: if *rank* is not in ``range(35)``.
        """
        if type(rank) is not int or not 0 <= rank < 35:
            raise ValueError(f"bid rank must be an int from 0 to 34, got {rank!r}")
        return cls("bid", rank // 5 + 1, STRAINS[rank % 5])

    @classmethod
    def parse(cls, text: str) -> Call:
        """Read a call in any case.

        Bids are ``1C`` .. ``7N`` (``NT`` also means notrump); a pass is
        ``P`` or ``Pass``; a double ``X``, ``Dbl`` or ``Double``; a redouble
        ``XX``, ``Rdbl`` or ``Redouble``.  Surrounding whitespace is ignored.

        >>> Call.parse("7NT")
        Call.parse('7N')
        >>> Call.parse("8S")
        Traceback (most recent call last):
        ...
        canary_infer.bridge.auction.AuctionError: unreadable call '8S': level 8 is not 1-7

        :raises AuctionError: with ``kind == "syntax"`` and ``position is
            None`` if *text* is not a call.
        """
        result = _read_call(text)
        if isinstance(result, str):
            raise AuctionError(f"unreadable call {text!r}: {result}", "syntax")
        return result

    @property
    def is_bid(self) -> bool:
        """Whether this call is a bid (not a pass, double or redouble)."""
        return self.kind == "bid"

    @property
    def rank(self) -> int | None:
        """Position of a bid in the order ``1C`` = 0 .. ``7N`` = 34; ``None`` for other calls."""
        if self.level is None or self.strain is None:
            return None
        return (self.level - 1) * 5 + STRAINS.index(self.strain)

    def pbn(self) -> str:
        """The call as PBN spells it: ``1NT``, ``Pass``, ``X`` or ``XX``.

        >>> [c.pbn() for c in (Call.parse("3N"), PASS, DOUBLE, REDOUBLE, Call.parse("2d"))]
        ['3NT', 'Pass', 'X', 'XX', '2D']
        """
        if self.kind == "pass":
            return "Pass"
        if self.strain == "N":
            return f"{self.level}NT"
        return str(self)

    def __str__(self) -> str:
        if self.kind == "bid":
            return f"{self.level}{self.strain}"
        return {"pass": "P", "double": "X", "redouble": "XX"}[self.kind]

    def __repr__(self) -> str:
        return f"{type(self).__name__}.parse({str(self)!r})"

    def _bid_ranks(self, other: object) -> tuple[int, int] | None:
        if not isinstance(other, Call):
            return None
        a, b = self.rank, other.rank
        if a is None or b is None:
            return None
        return a, b

    def __lt__(self, other: object) -> bool:
        ranks = self._bid_ranks(other)
        return NotImplemented if ranks is None else ranks[0] < ranks[1]

    def __le__(self, other: object) -> bool:
        ranks = self._bid_ranks(other)
        return NotImplemented if ranks is None else ranks[0] <= ranks[1]

    def __gt__(self, other: object) -> bool:
        ranks = self._bid_ranks(other)
        return NotImplemented if ranks is None else ranks[0] > ranks[1]

    def __ge__(self, other: object) -> bool:
        ranks = self._bid_ranks(other)
        return NotImplemented if ranks is None else ranks[0] >= ranks[1]


PASS = Call("pass")
"""The pass."""

DOUBLE = Call("double")
"""The double."""

REDOUBLE = Call("redouble")
"""The redouble."""

_NAMED_CALLS = {
    "P": PASS,
    "PASS": PASS,
    "X": DOUBLE,
    "DBL": DOUBLE,
    "DOUBLE": DOUBLE,
    "XX": REDOUBLE,
    "RDBL": REDOUBLE,
    "REDOUBLE": REDOUBLE,
}
_BID_RE = re.compile(r"([1-7])(NT|[CDHSN])")
_LEVEL_RE = re.compile(r"([0-9]+)(.*)", re.DOTALL)  # ASCII digits only: \d takes any script's


def _read_call(text: str) -> Call | str:
    """The call spelled by *text*, or a string saying why it is not one."""
    if not isinstance(text, str):
        return f"expected a string, got {type(text).__name__}"
    t = text.strip().upper()
    if not t:
        return "empty call"
    if t in _NAMED_CALLS:
        return _NAMED_CALLS[t]
    m = _BID_RE.fullmatch(t)
    if m:
        return Call("bid", int(m.group(1)), m.group(2)[0])
    m = _LEVEL_RE.fullmatch(t)
    if m:
        level = m.group(1)
        if len(level) != 1 or not "1" <= level <= "7":  # compared as text: 4,301 digits are no int
            return f"level {level if len(level) <= 12 else level[:12] + '...'} is not 1-7"
        if not m.group(2):
            return "bid has no strain"
        return f"unknown strain {m.group(2)!r}"
    if t[0].isdigit():
        return f"{t[0]!r} is not one of the digits 1-7"
    return "not a bid, pass, double or redouble"


class Auction:
    """An immutable, law-abiding sequence of calls starting with *dealer*.

    ``Auction(calls, dealer)`` accepts :class:`Call` objects or call strings;
    :meth:`parse` and :meth:`from_pbn` read text; :meth:`append` extends.
    All of them raise :class:`AuctionError` with ``kind == "illegal"`` and
    the call's position if a call breaks the laws.  Auctions are hashable and
    equal when dealer and calls are equal.

    >>> auction = Auction.parse("1C-1H-X", dealer="S")
    >>> len(auction), auction[2], auction.seat_of(2), auction.turn
    (3, Call.parse('X'), 'N', 'E')
    >>> str(auction.append("XX"))
    '1C 1H X XX'
    >>> auction.append("1D")
    Traceback (most recent call last):
    ...
    canary_infer.bridge.auction.AuctionError: call 4 '1D' is insufficient after 1H
    """

    __slots__ = ("_dealer", "_calls", "_last_bid_index", "_last_action_index", "_passes")

    _dealer: str
    _calls: tuple[Call, ...]
    _last_bid_index: int | None
    _last_action_index: int | None
    _passes: int

    def __init__(self, calls: Iterable[Call | str] = (), dealer: str = "N") -> None:
        """Build an auction from *calls* (Call objects or strings).

        :raises AuctionError: on an unknown dealer, an unreadable call string
            or an illegal call.
        """
        init = object.__setattr__
        init(self, "_dealer", _norm_seat(dealer, "dealer"))
        init(self, "_calls", ())
        init(self, "_last_bid_index", None)
        init(self, "_last_action_index", None)
        init(self, "_passes", 0)
        auction = self
        for i, item in enumerate(calls):
            auction = auction._extended(_coerce(item, i))
        for name in self.__slots__:
            init(self, name, getattr(auction, name))

    @classmethod
    def parse(cls, text: str, dealer: str = "N") -> Auction:
        """Read calls separated by whitespace, commas or ``-``.

        Each call is read as by :meth:`Call.parse`.  Empty text gives an
        empty auction.

        >>> Auction.parse("1s-1n, 2H  p", dealer="w")
        Auction.parse('1S 1N 2H P', dealer='W')

        :raises AuctionError: ``kind == "syntax"`` for an unreadable call,
            ``kind == "illegal"`` for a forbidden one; ``position`` is the
            call's 0-based index.
        """
        auction = cls((), dealer)
        for i, token in enumerate(split_calls(text)):
            auction = auction._extended(_coerce(token, i))
        return auction

    @classmethod
    def from_pbn(cls, text: str) -> Auction:
        """Read the auction from a PBN game fragment.

        The calls are the tokens after the ``[Auction "<seat>"]`` tag up to
        the next tag; ``<seat>`` is the dealer.  Other tags and their
        sections are ignored; a ``[Dealer]`` tag, if present, must agree.
        Comments (``{...}``, ``;`` to end of line, ``%`` lines), note
        references (``=1=``), suffixes ``!`` and ``?`` and NAGs (``$12``)
        are dropped.  ``AP`` appends passes until the auction ends; a final
        ``*`` (PBN's "auction not finished") is accepted and ignored, and so
        are ``-`` and ``*`` after the auction has ended (fillers).

        >>> text = '''
        ... [Dealer "E"]
        ... [Auction "E"]
        ... 1C =1= 1S! X $2 AP
        ... [Note "1:could be short"]
        ... '''
        >>> str(Auction.from_pbn(text))
        '1C 1S X P P P'

        :raises AuctionError: ``kind == "syntax"`` for anything unreadable
            (including a missing or contradictory dealer), ``kind ==
            "illegal"`` for a forbidden call.
        """
        auction_tag: str | None = None
        dealer_tag: str | None = None
        tokens: list[str] = []
        in_auction = False
        for m in _PBN_TOKEN.finditer(text):
            kind = m.lastgroup
            if kind in ("space", "comment"):
                continue
            if kind == "tag":
                name, value = m.group("tag_name"), m.group("tag_value")
                in_auction = name == "Auction"
                if in_auction:
                    if auction_tag is not None:
                        raise AuctionError("PBN text has more than one [Auction] tag", "syntax")
                    auction_tag = value
                elif name == "Dealer":
                    dealer_tag = value
                continue
            if kind == "bad":
                raise AuctionError(f"unreadable PBN text at {text[m.start() : m.start() + 20]!r}", "syntax")
            if in_auction:
                tokens.append(m.group())
        if auction_tag is None:
            raise AuctionError("PBN text has no [Auction] tag", "syntax")
        dealer = _norm_seat(auction_tag, "first caller in [Auction] tag")
        if dealer_tag is not None and _norm_seat(dealer_tag, "seat in [Dealer] tag") != dealer:
            raise AuctionError(f'[Dealer "{dealer_tag}"] disagrees with [Auction "{auction_tag}"]', "syntax")
        auction = cls((), dealer)
        finished = False
        for token in tokens:
            t = _PBN_ANNOTATION.sub("", token).rstrip("!?")
            if not t:
                continue
            i = len(auction)
            try:
                if t in ("*", "-") and (finished or auction.is_complete):
                    finished = True  # a filler after the end (real files lay the last line out so)
                    continue
                if finished:
                    raise AuctionError(f"call {i + 1} {token!r} follows the end marker '*'", "syntax", i)
                if t == "*":
                    finished = True
                elif t.upper() == "AP":
                    if auction.is_complete:
                        raise AuctionError(f"call {i + 1} 'AP' comes after the auction ended", "illegal", i)
                    while not auction.is_complete:
                        auction = auction._extended(PASS)
                else:
                    auction = auction._extended(_coerce(t, i, token))
            except AuctionError as e:
                e.calls = [str(c) for c in auction.calls] + [token]  # ``position`` indexes the token
                raise
        return auction

    @property
    def dealer(self) -> str:
        """The seat that makes the first call."""
        return self._dealer

    @property
    def calls(self) -> tuple[Call, ...]:
        """The calls, in order."""
        return self._calls

    def seat_of(self, i: int) -> str:
        """The seat that makes (or will make) call *i*; negative *i* counts from the end.

        :raises IndexError: if a negative *i* reaches before the first call.
        """
        if i < 0:
            i += len(self._calls)
            if i < 0:
                raise IndexError("call index out of range")
        return next_seat(self._dealer, i)

    @property
    def turn(self) -> str:
        """The seat due to make the next call."""
        return self.seat_of(len(self._calls))

    @property
    def is_complete(self) -> bool:
        """Whether the auction has ended: four initial passes, or three
        consecutive passes after any bid, double or redouble."""
        if self._last_action_index is None:
            return self._passes >= 4
        return self._passes >= 3

    @property
    def last_bid(self) -> Call | None:
        """The highest (that is, the last) bid so far, or ``None``."""
        return None if self._last_bid_index is None else self._calls[self._last_bid_index]

    @property
    def last_bidder(self) -> str | None:
        """The seat that made :attr:`last_bid`, or ``None``."""
        return None if self._last_bid_index is None else self.seat_of(self._last_bid_index)

    def is_legal(self, call: Call | str) -> bool:
        """Whether *call* may be made next.

        :raises AuctionError: with ``kind == "syntax"`` if *call* is an unreadable string.
        """
        return self._violation(_coerce(call, len(self._calls))) is None

    def append(self, call: Call | str) -> Auction:
        """A new auction with *call* added at the end; this one is unchanged.

        :raises AuctionError: if *call* is unreadable or illegal here.
        """
        return self._extended(_coerce(call, len(self._calls)))

    def pbn(self) -> str:
        """The auction as PBN tags and call lines, four calls per line.

        :meth:`from_pbn` reads it back.  There is no trailing newline.

        >>> print(Auction.parse("1N P 3N P P P", dealer="W").pbn())
        [Dealer "W"]
        [Auction "W"]
        1NT Pass 3NT Pass
        Pass Pass
        """
        lines = [f'[Dealer "{self._dealer}"]', f'[Auction "{self._dealer}"]']
        for k in range(0, len(self._calls), 4):
            lines.append(" ".join(c.pbn() for c in self._calls[k : k + 4]))
        return "\n".join(lines)

    def _violation(self, call: Call) -> str | None:
        """Why *call* may not come next, as the end of an error message, or ``None``."""
        if self.is_complete:
            return "comes after the auction ended"
        i = len(self._calls)
        last_bid = self.last_bid
        if call.kind == "bid":
            if last_bid is not None and call <= last_bid:
                return f"is insufficient after {last_bid}"
            return None
        if call.kind == "pass":
            return None
        j = self._last_action_index
        if j is None or last_bid is None:
            return "has no bid to double" if call.kind == "double" else "has no double to redouble"
        last_action = self._calls[j]
        by_partner = (i - j) % 2 == 0
        if call.kind == "double":
            if last_action.kind == "double":
                return f"cannot double {last_bid}, which is already doubled"
            if last_action.kind == "redouble":
                return f"cannot double {last_bid}, which is already redoubled"
            if by_partner:
                return f"cannot double partner's {last_bid}"
            return None
        if last_action.kind == "bid":
            return f"cannot redouble {last_bid}, which is not doubled"
        if last_action.kind == "redouble":
            return f"cannot redouble {last_bid}, which is already redoubled"
        if by_partner:
            return f"cannot redouble partner's double of {last_bid}"
        return None

    def _extended(self, call: Call) -> Auction:
        i = len(self._calls)
        reason = self._violation(call)
        if reason is not None:
            raise AuctionError(f"call {i + 1} '{call}' {reason}", "illegal", i)
        new = object.__new__(type(self))
        init = object.__setattr__
        init(new, "_dealer", self._dealer)
        init(new, "_calls", (*self._calls, call))
        init(new, "_last_bid_index", i if call.kind == "bid" else self._last_bid_index)
        init(new, "_last_action_index", self._last_action_index if call.kind == "pass" else i)
        init(new, "_passes", self._passes + 1 if call.kind == "pass" else 0)
        return new

    def __len__(self) -> int:
        return len(self._calls)

    def __iter__(self) -> Iterator[Call]:
        return iter(self._calls)

    @overload
    def __getitem__(self, index: int) -> Call: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Call, ...]: ...

    def __getitem__(self, index: int | slice) -> Call | tuple[Call, ...]:
        """Call *index*; a slice gives a tuple of calls."""
        return self._calls[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Auction):
            return NotImplemented
        return self._dealer == other._dealer and self._calls == other._calls

    def __hash__(self) -> int:
        return hash((self._dealer, self._calls))

    def __str__(self) -> str:
        return " ".join(str(c) for c in self._calls)

    def __repr__(self) -> str:
        return f"{type(self).__name__}.parse({str(self)!r}, dealer={self._dealer!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._calls, self._dealer))


_SEPARATORS = re.compile(r"[\s,\-]+")
_PBN_TOKEN = re.compile(
    r"""
      (?P<space>\s+)
    | (?P<comment>\{[^}]*\}|;[^\n]*|(?m:^%[^\n]*))
    | (?P<tag>\[\s*(?P<tag_name>\w+)\s*"(?P<tag_value>[^"\\]*(?:\\.[^"\\]*)*)"\s*\])
    | (?P<word>[^\s\[\]{};]+)
    | (?P<bad>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_PBN_ANNOTATION = re.compile(r"=\d+=|\$\d+")


def split_calls(text: str) -> list[str]:
    """The call tokens of an auction text, split as :meth:`Auction.parse` splits them.

    >>> split_calls("1S-1H, p  2n")
    ['1S', '1H', 'p', '2n']
    """
    return [t for t in _SEPARATORS.split(text) if t]


def _coerce(call: Call | str, position: int, shown: str | None = None) -> Call:
    """*call* as a :class:`Call`, or a syntax error naming call *position*."""
    if isinstance(call, Call):
        return call
    result = _read_call(call)
    if isinstance(result, str):
        text = call if shown is None else shown
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise AuctionError(f"call {position + 1} {shown!r} is unreadable: {result}", "syntax", position)
    return result


def legal_calls(auction: Auction) -> list[Call]:
    """Every call that may come next: pass, then double or redouble if
    allowed, then the sufficient bids from lowest to highest.  Empty once
    the auction is complete.

    >>> legal_calls(Auction.parse("7S X"))
    [Call.parse('P'), Call.parse('XX'), Call.parse('7N')]
    >>> legal_calls(Auction.parse("P P P P"))
    []
    """
    if auction.is_complete:
        return []
    last = auction.last_bid
    start = 0 if last is None or last.rank is None else last.rank + 1
    candidates = [PASS, DOUBLE, REDOUBLE, *(Call.from_rank(r) for r in range(start, 35))]
    return [c for c in candidates if auction.is_legal(c)]
