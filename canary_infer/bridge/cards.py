"""Cards, hands and deals, with PBN parsing and formatting.

A card is a ``(suit, rank)`` pair of one-letter strings, for example
``("H", "T")`` for the ten of hearts.  Suits are listed in PBN order
(spades first) and ranks from the ace down:

>>> SUITS, RANKS
('SHDC', 'AKQJT98765432')

A :class:`Hand` is an immutable set of 13 distinct cards:

>>> hand = Hand.from_pbn("AKQ83.J2.K4.QT92")
>>> hand.pattern, hand.hcp
('5-2-2-4', 15)

A :class:`Deal` holds a hand, or ``None`` when unknown, for each of the four
seats:

>>> deal = Deal.from_pbn("N:AKQ83.J2.K4.QT92 - - -")
>>> deal["N"] == hand, deal["E"] is None
(True, True)

Every parse error is a :class:`CardError` (a :class:`ValueError`) whose
message names the offending card, suit or count.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the random module is not imported at run time: a fresh process pays for it
    import random

__all__ = [
    "SUITS",
    "RANKS",
    "SEATS",
    "HCP",
    "SUIT_NAMES",
    "CardError",
    "HandError",
    "DealError",
    "Hand",
    "Deal",
]

SUITS = "SHDC"
"""Suit letters in PBN order: spades, hearts, diamonds, clubs."""

RANKS = "AKQJT98765432"
"""Rank letters from highest to lowest; ``T`` is the ten."""

SEATS = "NESW"
"""Seat letters in clockwise order, starting with North."""

HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}
"""Milton Work high-card points by rank; other ranks count 0."""

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
"""English suit names, as used in error messages."""

_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
_DECK: tuple[tuple[str, str], ...] = tuple((s, r) for s in SUITS for r in RANKS)


class CardError(ValueError):
    """Base class for errors about cards, hands and deals."""


class HandError(CardError):
    """A hand is malformed: wrong card count, duplicate or unknown card."""


class DealError(CardError):
    """A deal is malformed: bad layout, unknown seat or a card held twice."""


def _card_name(suit: str, rank: str) -> str:
    return suit + rank


def _norm_suit(suit: Any, error: type[CardError] = CardError) -> str:
    s = suit.upper() if isinstance(suit, str) else suit
    if not isinstance(s, str) or s not in SUITS or len(s) != 1:
        raise error(f"unknown suit {suit!r}")
    return s


def _norm_rank(rank: Any, suit: str, error: type[CardError] = CardError) -> str:
    r = rank.upper() if isinstance(rank, str) else rank
    if r == "10":
        r = "T"
    if not isinstance(r, str) or r not in _RANK_INDEX or len(r) != 1:
        raise error(f"unknown rank {rank!r} in {SUIT_NAMES[suit]}")
    return r


def _norm_seat(seat: Any, error: type[Exception] = DealError) -> str:
    s = seat.upper() if isinstance(seat, str) else seat
    if not isinstance(s, str) or s not in SEATS or len(s) != 1:
        raise error(f"unknown seat {seat!r}")
    return s


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class _PbnValue:
    """Immutable value types written and read as PBN: str is the PBN text, repr rebuilds it."""

    __slots__ = ()

    def pbn(self) -> str:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __str__(self) -> str:
        return self.pbn()

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_pbn({self.pbn()!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")


class Hand(_PbnValue):
    """Thirteen distinct cards: an immutable, hashable value.

    Build one with :meth:`from_pbn`, :meth:`from_cards` (``Hand(cards)`` is
    the same) or :meth:`random`.  Two hands are equal when they hold the same
    cards.

    >>> hand = Hand.from_pbn("akq83.j2.k4.q1092")
    >>> hand
    Hand.from_pbn('AKQ83.J2.K4.QT92')
    >>> str(hand)
    'AKQ83.J2.K4.QT92'
    >>> hand.suit("C"), hand.length("S"), hand.has("C", "10")
    ('QT92', 5, True)
    >>> hand.lengths, hand.pattern, hand.hcp, len(hand)
    ((5, 2, 2, 4), '5-2-2-4', 15, 13)
    >>> ("S", "A") in hand, ("S", "J") in hand
    (True, False)
    """

    __slots__ = ("_suits", "_cards")

    _suits: tuple[str, str, str, str]
    _cards: frozenset[tuple[str, str]]

    def __init__(self, cards: Iterable[tuple[str, str]]) -> None:
        seen: set[tuple[str, str]] = set()
        for item in cards:
            try:
                suit, rank = item
            except (TypeError, ValueError):
                raise HandError(f"expected a (suit, rank) pair, got {item!r}") from None
            s = _norm_suit(suit, HandError)
            r = _norm_rank(rank, s, HandError)
            if (s, r) in seen:
                raise HandError(f"card {_card_name(s, r)} appears twice")
            seen.add((s, r))
        if len(seen) != 13:
            raise HandError(f"hand has {_plural(len(seen), 'card')}, expected 13")
        by_suit = {s: [] for s in SUITS}
        for s, r in seen:
            by_suit[s].append(r)
        suits = tuple("".join(sorted(by_suit[s], key=_RANK_INDEX.__getitem__)) for s in SUITS)
        object.__setattr__(self, "_suits", suits)
        object.__setattr__(self, "_cards", frozenset(seen))

    @classmethod
    def from_cards(cls, cards: Iterable[tuple[str, str]]) -> Hand:
        """Build a hand from ``(suit, rank)`` pairs.

        Suit and rank are case-insensitive and ``"10"`` means ``"T"``.

        >>> Hand.from_cards([("S", r) for r in "AKQJT98765432"]).pbn()
        'AKQJT98765432...'
        >>> Hand.from_cards([("S", "A")])
        Traceback (most recent call last):
        ...
        canary_infer.bridge.cards.HandError: hand has 1 card, expected 13

        :raises HandError: on an unknown suit or rank, a repeated card, or a
            count other than 13.
        """
        return cls(cards)

    @classmethod
    def from_pbn(cls, text: str) -> Hand:
        """Parse a PBN hand: four suits in the order S.H.D.C, separated by ``.``.

        Ranks may be in any order and any case; the ten is ``T`` or ``10``.
        A void is an empty suit.

        >>> Hand.from_pbn("2345678910JQKA...").pbn()
        'AKQJT98765432...'
        >>> Hand.from_pbn("AKQ.J2.K4")
        Traceback (most recent call last):
        ...
        canary_infer.bridge.cards.HandError: expected 4 suits separated by '.', got 3

        :raises HandError: on a wrong number of suits, an unknown rank, a
            repeated card, or a count other than 13.
        """
        parts = text.strip().split(".")
        if len(parts) != 4:
            raise HandError(f"expected 4 suits separated by '.', got {len(parts)}")
        cards: list[tuple[str, str]] = []
        seen: set[tuple[str, str]] = set()
        for suit, part in zip(SUITS, parts, strict=True):
            i = 0
            while i < len(part):
                token = part[i : i + 2] if part.startswith("10", i) else part[i]
                i += len(token)
                rank = _norm_rank(token, suit, HandError)
                if (suit, rank) in seen:
                    raise HandError(f"card {_card_name(suit, rank)} appears twice")
                seen.add((suit, rank))
                cards.append((suit, rank))
        return cls(cards)

    @classmethod
    def _of_deck_indices(cls, indices: Iterable[int]) -> Hand:
        """13 distinct card numbers (``suit * 13 + rank``, both indices into SUITS and RANKS),
        known to be valid: the fast path of :meth:`Deal.random`, which checks nothing."""
        by_suit = ["", "", "", ""]
        for i in sorted(indices):
            by_suit[i // 13] += RANKS[i % 13]
        hand = object.__new__(cls)
        object.__setattr__(hand, "_suits", tuple(by_suit))
        object.__setattr__(hand, "_cards", frozenset(_DECK[i] for i in indices))
        return hand

    @classmethod
    def random(cls, rng: random.Random) -> Hand:
        """Draw 13 cards uniformly at random from a full deck using *rng*.

        >>> import random
        >>> len(Hand.random(random.Random(1)))
        13
        """
        return cls(rng.sample(_DECK, 13))

    def pbn(self) -> str:
        """The canonical PBN form: S.H.D.C, ranks descending, ``T`` for ten."""
        return ".".join(self._suits)

    def _repr_html_(self) -> str:
        """The hand with suit symbols, for Jupyter."""
        from canary_infer.ui.notebook import hand_html

        return hand_html(self)

    def suit(self, suit: str) -> str:
        """The ranks held in *suit*, highest first (``""`` for a void).

        :raises CardError: if *suit* is not one of ``S``, ``H``, ``D``, ``C``.
        """
        return self._suits[SUITS.index(_norm_suit(suit))]

    def length(self, suit: str) -> int:
        """The number of cards held in *suit*."""
        return len(self.suit(suit))

    def has(self, suit: str, rank: str) -> bool:
        """Whether the hand holds the card; ``"10"`` and ``"T"`` are the same.

        :raises CardError: on an unknown suit or rank.
        """
        s = _norm_suit(suit)
        return (s, _norm_rank(rank, s)) in self._cards

    @property
    def lengths(self) -> tuple[int, int, int, int]:
        """Suit lengths in the order spades, hearts, diamonds, clubs."""
        a, b, c, d = (len(x) for x in self._suits)
        return (a, b, c, d)

    @property
    def pattern(self) -> str:
        """Suit lengths S-H-D-C joined with ``-``, for example ``"5-3-1-4"``."""
        return "-".join(str(n) for n in self.lengths)

    @property
    def hcp(self) -> int:
        """High-card points: A=4, K=3, Q=2, J=1."""
        return sum(HCP.get(r, 0) for _, r in self._cards)

    @property
    def cards(self) -> frozenset[tuple[str, str]]:
        """The 13 cards as ``(suit, rank)`` pairs in canonical letters."""
        return self._cards

    def __len__(self) -> int:
        return 13

    def __iter__(self) -> Iterator[tuple[str, str]]:
        """Iterate over the cards, spades first, each suit from the top down."""
        for suit, ranks in zip(SUITS, self._suits, strict=True):
            for rank in ranks:
                yield (suit, rank)

    def __contains__(self, card: object) -> bool:
        if not isinstance(card, tuple) or len(card) != 2:
            return False
        try:
            s = _norm_suit(card[0])
            return (s, _norm_rank(card[1], s)) in self._cards
        except CardError:
            return False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        return self._suits == other._suits

    def __hash__(self) -> int:
        return hash(self._suits)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (tuple(self),))


class Deal(_PbnValue, Mapping[str, "Hand | None"]):
    """A hand, or ``None`` when unknown, for each seat ``N``, ``E``, ``S``, ``W``.

    A deal is a read-only mapping from seat to hand, always with all four
    seats as keys.  No card may be held by two seats.  Deals are immutable and
    hashable; two deals are equal when every seat holds the same hand.

    >>> deal = Deal.from_pbn("S:AKQ83.J2.K4.QT92 - JT9.AKQ3.AQJ2.K3 -")
    >>> deal["S"].hcp, deal["W"] is None, deal["N"].hcp
    (15, True, 20)
    >>> deal.pbn()
    'N:JT9.AKQ3.AQJ2.K3 - AKQ83.J2.K4.QT92 -'
    >>> deal.pbn(first="S")
    'S:AKQ83.J2.K4.QT92 - JT9.AKQ3.AQJ2.K3 -'
    """

    __slots__ = ("_hands",)

    _hands: tuple[Hand | None, Hand | None, Hand | None, Hand | None]

    def __init__(self, hands: Mapping[str, Hand | None]) -> None:
        """Build a deal from a mapping of seat letters to hands.

        Seats left out are unknown (``None``).

        :raises DealError: on an unknown seat or a card held by two seats.
        """
        slots: list[Hand | None] = [None, None, None, None]
        for seat, hand in hands.items():
            s = _norm_seat(seat)
            if hand is not None and not isinstance(hand, Hand):
                raise TypeError(f"hand for {s} must be a Hand or None, got {type(hand).__name__}")
            slots[SEATS.index(s)] = hand
        owner: dict[tuple[str, str], str] = {}
        for seat, hand in zip(SEATS, slots, strict=True):
            if hand is None:
                continue
            for card in hand:
                if card in owner:
                    raise DealError(f"card {_card_name(*card)} is in both the {owner[card]} and {seat} hands")
                owner[card] = seat
        a, b, c, d = slots
        object.__setattr__(self, "_hands", (a, b, c, d))

    @classmethod
    def from_pbn(cls, text: str) -> Deal:
        """Parse a PBN deal: ``"<seat>:<hand> <hand> <hand> <hand>"``.

        The hands are listed clockwise starting from *seat*; ``-`` stands for
        an unknown hand.

        >>> Deal.from_pbn("E:- - - AKQJT98765432...")["N"].suit("S")
        'AKQJT98765432'
        >>> Deal.from_pbn("N:AKQJT98765432... AKQJT98765432... - -")
        Traceback (most recent call last):
        ...
        canary_infer.bridge.cards.DealError: card SA is in both the N and E hands

        :raises DealError: on a malformed layout or a card held twice.
        :raises HandError: on a malformed hand; the message names its seat.
        """
        text = text.strip()
        head, sep, rest = text.partition(":")
        if not sep or len(head.strip()) != 1:
            raise DealError(f"expected '<seat>:' before the hands, got {text[:3]!r}")
        first = _norm_seat(head.strip())
        fields = rest.split()
        if len(fields) != 4:
            raise DealError(f"expected 4 hands after '{first}:', got {len(fields)}")
        hands: dict[str, Hand | None] = {}
        start = SEATS.index(first)
        for k, field in enumerate(fields):
            seat = SEATS[(start + k) % 4]
            if field == "-":
                hands[seat] = None
                continue
            try:
                hands[seat] = Hand.from_pbn(field)
            except HandError as exc:
                raise HandError(f"{seat} hand {field!r}: {exc}") from exc
        return cls(hands)

    @classmethod
    def random(cls, rng: random.Random) -> Deal:
        """Deal all 52 cards, 13 to each seat, using *rng*.

        >>> import random
        >>> deal = Deal.random(random.Random(7))
        >>> sum(deal[s].hcp for s in SEATS)
        40
        """
        deck = list(range(52))  # the same shuffle as of the 52 cards themselves: it depends on the length only
        rng.shuffle(deck)
        deal = object.__new__(cls)
        a, b, c, d = (Hand._of_deck_indices(deck[13 * k : 13 * k + 13]) for k in range(4))
        object.__setattr__(deal, "_hands", (a, b, c, d))
        return deal

    def pbn(self, first: str = "N") -> str:
        """Format as PBN, listing the hands clockwise from seat *first*.

        :raises DealError: if *first* is not a seat letter.
        """
        start = SEATS.index(_norm_seat(first))
        fields = []
        for k in range(4):
            hand = self._hands[(start + k) % 4]
            fields.append("-" if hand is None else hand.pbn())
        return f"{SEATS[start]}:" + " ".join(fields)

    def _repr_html_(self) -> str:
        """The deal as a diagram with suit symbols, for Jupyter."""
        from canary_infer.ui.notebook import deal_html

        return deal_html(self)

    def __getitem__(self, seat: str) -> Hand | None:
        """The hand at *seat* (case-insensitive), or ``None`` if unknown.

        :raises KeyError: if *seat* is not a seat letter.
        """
        s = seat.upper() if isinstance(seat, str) else seat
        if not isinstance(s, str) or len(s) != 1 or s not in SEATS:
            raise KeyError(seat)
        return self._hands[SEATS.index(s)]

    def __iter__(self) -> Iterator[str]:
        return iter(SEATS)

    def __len__(self) -> int:
        return 4

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Deal):
            return NotImplemented
        return self._hands == other._hands

    def __hash__(self) -> int:
        return hash(self._hands)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (dict(zip(SEATS, self._hands, strict=True)),))
