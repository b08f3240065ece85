"""Tests for canary_infer.bridge.auction: calls, the laws of bidding, text and PBN round trips."""

import doctest
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from canary_infer.bridge import auction as auction_module
from canary_infer.bridge.auction import (
    DOUBLE,
    PASS,
    REDOUBLE,
    SEATS,
    STRAINS,
    Auction,
    AuctionError,
    Call,
    legal_calls,
    next_seat,
)

ALL_BIDS = [Call.bid(level, strain) for level in range(1, 8) for strain in "CDHSN"]
ALL_CALLS = [PASS, DOUBLE, REDOUBLE, *ALL_BIDS]


def reference_is_legal(calls, call):
    """An independent statement of the laws, used as an oracle."""
    non_passes = [(i, c) for i, c in enumerate(calls) if c.kind != "pass"]
    trailing = len(calls) - (non_passes[-1][0] + 1) if non_passes else len(calls)
    if (not non_passes and trailing >= 4) or (non_passes and trailing >= 3):
        return False
    if call.kind == "pass":
        return True
    if call.kind == "bid":
        bids = [c for c in calls if c.kind == "bid"]
        return not bids or (call.level, STRAINS.index(call.strain)) > (
            bids[-1].level,
            STRAINS.index(bids[-1].strain),
        )
    if not non_passes:
        return False
    j, last = non_passes[-1]
    by_opponent = (len(calls) - j) % 2 == 1
    wanted = "bid" if call.kind == "double" else "double"
    return by_opponent and last.kind == wanted


@st.composite
def auctions(draw):
    """A random legal auction built by picking among legal_calls, biased towards passing."""
    result = Auction(dealer=draw(st.sampled_from(SEATS)))
    while not result.is_complete and draw(st.integers(0, 14)) > 0:
        choices = legal_calls(result)
        call = draw(st.one_of(st.just(PASS), st.sampled_from(choices)))
        result = result.append(call)
    return result


SPELLINGS = {
    "pass": ["P", "p", "Pass", "PASS", "pass"],
    "double": ["X", "x", "Dbl", "DBL", "double", "Double"],
    "redouble": ["XX", "xx", "Rdbl", "rdbl", "Redouble", "REDOUBLE"],
}


def spellings(call):
    if call.kind != "bid":
        return SPELLINGS[call.kind]
    text = str(call)
    forms = [text, text.lower()]
    if call.strain == "N":
        forms += [f"{call.level}NT", f"{call.level}nt", f"{call.level}Nt"]
    return forms


# ---------------------------------------------------------------- seats


def test_seats_and_next_seat():
    assert SEATS == "NESW"
    assert [next_seat(s) for s in SEATS] == ["E", "S", "W", "N"]
    assert next_seat("N", 2) == "S"
    assert next_seat("E", 3) == "N"
    assert next_seat("N", 4) == "N"
    assert next_seat("N", -1) == "W"
    assert next_seat("s", 1) == "W"
    with pytest.raises(ValueError, match="unknown seat 'Q'"):
        next_seat("Q")


# ---------------------------------------------------------------- Call


@pytest.mark.parametrize(
    ("text", "canonical", "kind", "level", "strain"),
    [
        ("1C", "1C", "bid", 1, "C"),
        ("1c", "1C", "bid", 1, "C"),
        ("7N", "7N", "bid", 7, "N"),
        ("7NT", "7N", "bid", 7, "N"),
        ("3nt", "3N", "bid", 3, "N"),
        ("2s", "2S", "bid", 2, "S"),
        ("4H", "4H", "bid", 4, "H"),
        ("5d", "5D", "bid", 5, "D"),
        ("P", "P", "pass", None, None),
        ("p", "P", "pass", None, None),
        ("Pass", "P", "pass", None, None),
        ("PASS", "P", "pass", None, None),
        ("X", "X", "double", None, None),
        ("x", "X", "double", None, None),
        ("Dbl", "X", "double", None, None),
        ("double", "X", "double", None, None),
        ("XX", "XX", "redouble", None, None),
        ("xX", "XX", "redouble", None, None),
        ("Rdbl", "XX", "redouble", None, None),
        ("REDOUBLE", "XX", "redouble", None, None),
        (" 1S\n", "1S", "bid", 1, "S"),
    ],
)
def test_call_parse(text, canonical, kind, level, strain):
    call = Call.parse(text)
    assert str(call) == canonical
    assert (call.kind, call.level, call.strain) == (kind, level, strain)
    assert call.is_bid == (kind == "bid")
    assert Call.parse(str(call)) == call


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty call"),
        ("8S", "level 8 is not 1-7"),
        ("0C", "level 0 is not 1-7"),
        ("1Q", "unknown strain 'Q'"),
        ("2Q", "unknown strain 'Q'"),
        ("1", "bid has no strain"),
        ("1NTT", "unknown strain 'NTT'"),
        ("-", "not a bid, pass, double or redouble"),
        ("AP", "not a bid, pass, double or redouble"),
        ("XXX", "not a bid, pass, double or redouble"),
        ("P P", "not a bid, pass, double or redouble"),
        ("1 S", "unknown strain ' S'"),
    ],
)
def test_call_parse_errors(text, reason):
    with pytest.raises(AuctionError) as info:
        Call.parse(text)
    assert info.value.kind == "syntax"
    assert info.value.position is None
    assert str(info.value) == f"unreadable call {text!r}: {reason}"


def test_call_rank_and_order():
    assert [c.rank for c in ALL_BIDS] == list(range(35))
    assert [Call.from_rank(i) for i in range(35)] == ALL_BIDS
    assert Call.parse("1C").rank == 0
    assert Call.parse("1N").rank == 4
    assert Call.parse("7N").rank == 34
    assert PASS.rank is None and DOUBLE.rank is None and REDOUBLE.rank is None
    assert sorted(reversed(ALL_BIDS)) == ALL_BIDS
    assert Call.parse("1S") < Call.parse("1N") < Call.parse("2C")
    assert Call.parse("2C") > Call.parse("1N") >= Call.parse("1N")
    assert Call.parse("1D") <= Call.parse("1D")
    assert not Call.parse("2D") < Call.parse("2D")
    with pytest.raises(TypeError):
        _ = PASS < Call.parse("1C")
    with pytest.raises(TypeError):
        _ = Call.parse("1C") > DOUBLE
    with pytest.raises(TypeError):
        _ = Call.parse("1C") < "1D"
    for bad in (-1, 35, 1.0):
        with pytest.raises(ValueError):
            Call.from_rank(bad)


def test_call_value_semantics():
    assert Call.parse("1nt") == Call.bid(1, "N") == Call("bid", 1, "N")
    assert Call.bid(2, "h") == Call.parse("2H")
    assert Call.parse("Pass") == PASS and Call.parse("dbl") == DOUBLE and Call.parse("rdbl") == REDOUBLE
    assert len({Call.parse("1S"), Call.parse("1s"), PASS, Call.parse("p")}) == 2
    assert repr(Call.parse("3nt")) == "Call.parse('3N')"
    assert eval(repr(REDOUBLE), {"Call": Call}) == REDOUBLE
    with pytest.raises(AttributeError):
        PASS.kind = "bid"  # type: ignore[misc]
    assert [c.pbn() for c in (Call.parse("1N"), PASS, DOUBLE, REDOUBLE, Call.parse("7C"))] == [
        "1NT",
        "Pass",
        "X",
        "XX",
        "7C",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("bid", 0, "C"), "bid level"),
        (("bid", 8, "C"), "bid level"),
        (("bid", 1, "Q"), "bid strain"),
        (("bid", 1, None), "bid strain"),
        (("bid", True, "C"), "bid level"),
        (("pass", 1, None), "has no level or strain"),
        (("double", None, "S"), "has no level or strain"),
        (("dbl",), "call kind"),
    ],
)
def test_call_constructor_validates(args, message):
    with pytest.raises(ValueError, match=message):
        Call(*args)


# ---------------------------------------------------------------- Auction basics


def test_parse_separators_and_empty():
    spaced = Auction.parse("1S P 1N P 2H")
    assert Auction.parse("1S-P-1N-P-2H") == spaced
    assert Auction.parse("1S,P,1N,P,2H") == spaced
    assert Auction.parse("  1s , p-1nt\tPass\n2h ") == spaced
    assert str(spaced) == "1S P 1N P 2H"
    assert str(Auction.parse("1S-1N")) == "1S 1N"
    assert len(Auction.parse("")) == 0
    assert len(Auction.parse("  \n ")) == 0
    assert Auction.parse("") == Auction()
    assert str(Auction()) == ""


def test_auction_accessors():
    auction = Auction.parse("P 1H X XX 2C", dealer="E")
    assert auction.dealer == "E"
    assert auction.calls == (PASS, Call.parse("1H"), DOUBLE, REDOUBLE, Call.parse("2C"))
    assert isinstance(auction.calls, tuple)
    assert len(auction) == 5
    assert list(auction) == list(auction.calls)
    assert auction[1] == Call.parse("1H")
    assert auction[-1] == Call.parse("2C")
    assert auction[1:3] == (Call.parse("1H"), DOUBLE)
    assert [auction.seat_of(i) for i in range(5)] == ["E", "S", "W", "N", "E"]
    assert auction.seat_of(-1) == "E"
    assert auction.seat_of(5) == "S"
    assert auction.turn == "S"
    assert auction.last_bid == Call.parse("2C")
    assert auction.last_bidder == "E"
    assert not auction.is_complete
    with pytest.raises(IndexError):
        auction[5]
    with pytest.raises(IndexError):
        auction.seat_of(-6)


def test_last_bid_ignores_doubles_and_passes():
    auction = Auction.parse("1D 1S X P", dealer="W")
    assert auction.last_bid == Call.parse("1S")
    assert auction.last_bidder == "N"
    empty = Auction.parse("P P", dealer="S")
    assert empty.last_bid is None and empty.last_bidder is None


def test_dealer_handling():
    assert Auction.parse("1C", dealer="w").dealer == "W"
    assert Auction.parse("1C").dealer == "N"
    assert Auction.parse("1C", dealer="S") != Auction.parse("1C", dealer="N")
    for bad in ("Q", "", "NE", None):
        with pytest.raises(AuctionError) as info:
            Auction.parse("1C", dealer=bad)
        assert info.value.kind == "syntax"
        assert info.value.position is None
        assert repr(bad) in str(info.value)


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ("", False),
        ("P", False),
        ("P P P", False),
        ("P P P P", True),
        ("1C", False),
        ("1C P P", False),
        ("1C P P P", True),
        ("P P P 1C P P P", True),
        ("1C X P P", False),
        ("1C X P P P", True),
        ("1C X XX P P P", True),
        ("1C P P X P P", False),
        ("1C P P X P P P", True),
    ],
)
def test_is_complete(text, complete):
    auction = Auction.parse(text)
    assert auction.is_complete == complete
    assert (legal_calls(auction) == []) == complete


def test_append_returns_new_auction():
    start = Auction.parse("1S P", dealer="S")
    longer = start.append("2S")
    assert str(start) == "1S P"
    assert str(longer) == "1S P 2S"
    assert longer.dealer == "S"
    assert start.append(Call.parse("2s")) == longer
    assert longer.append("p").append(PASS).append("Pass").is_complete


def test_auction_value_semantics():
    a = Auction.parse("1N P 3N", dealer="E")
    b = Auction([Call.parse("1N"), "p", "3nt"], dealer="e")
    assert a == b and hash(a) == hash(b)
    assert len({a, b, Auction.parse("1N P 3N", dealer="W")}) == 2
    assert a != "1N P 3N"
    assert repr(a) == "Auction.parse('1N P 3N', dealer='E')"
    assert eval(repr(a), {"Auction": Auction}) == a
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(AttributeError):
        a._calls = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        a.dealer = "N"  # type: ignore[misc]
    assert str(a) == "1N P 3N"


# ---------------------------------------------------------------- the laws


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("1S P 1H", 2, "call 3 '1H' is insufficient after 1S"),
        ("2S P 2N P 2N", 4, "call 5 '2N' is insufficient after 2N"),
        ("1N P 2C XX", 3, "call 4 'XX' cannot redouble 2C, which is not doubled"),
        ("1H P P P 1S", 4, "call 5 '1S' comes after the auction ended"),
        ("1H P P P P", 4, "call 5 'P' comes after the auction ended"),
        ("P P P P 1C", 4, "call 5 '1C' comes after the auction ended"),
        ("1C X P P P X", 5, "call 6 'X' comes after the auction ended"),
        ("1S P X", 2, "call 3 'X' cannot double partner's 1S"),
        ("1S X X", 2, "call 3 'X' cannot double 1S, which is already doubled"),
        ("1S X P P X", 4, "call 5 'X' cannot double 1S, which is already doubled"),
        ("1S X XX X", 3, "call 4 'X' cannot double 1S, which is already redoubled"),
        ("X", 0, "call 1 'X' has no bid to double"),
        ("P P X", 2, "call 3 'X' has no bid to double"),
        ("XX", 0, "call 1 'XX' has no double to redouble"),
        ("1S XX", 1, "call 2 'XX' cannot redouble 1S, which is not doubled"),
        ("1S X P XX", 3, "call 4 'XX' cannot redouble partner's double of 1S"),
        ("1S X XX XX", 3, "call 4 'XX' cannot redouble 1S, which is already redoubled"),
        ("1S X XX P P XX", 5, "call 6 'XX' cannot redouble 1S, which is already redoubled"),
        ("1S X 2C XX", 3, "call 4 'XX' cannot redouble 2C, which is not doubled"),
        ("1S 1S", 1, "call 2 '1S' is insufficient after 1S"),
        ("7N 7S", 1, "call 2 '7S' is insufficient after 7N"),
    ],
)
def test_illegal_calls(text, position, message):
    with pytest.raises(AuctionError) as info:
        Auction.parse(text)
    err = info.value
    assert err.kind == "illegal"
    assert err.position == position
    assert str(err) == message
    # The same call is rejected by append and by the constructor, at the same position.
    calls = text.split()
    prefix = Auction.parse(" ".join(calls[:position]))
    with pytest.raises(AuctionError) as again:
        prefix.append(calls[position])
    assert (again.value.kind, again.value.position, str(again.value)) == ("illegal", position, message)
    with pytest.raises(AuctionError) as built:
        Auction(calls)
    assert built.value.position == position
    assert not prefix.is_legal(calls[position])


@pytest.mark.parametrize(
    "text",
    [
        "1S X XX",  # redouble by the doubled side
        "1S X P P XX",  # redouble by the bidder after two passes
        "1S P P X",  # balancing double
        "1S P P X XX",  # opener redoubles the balancing double
        "1S X XX 2C X",  # double of a new bid after a redouble
        "1S P P X P P XX P P 2C P P X",
        "1S P 2S P P X P P P",
        "P P P 1C P P P",
    ],
)
def test_legal_sequences(text):
    assert str(Auction.parse(text)) == text


def test_syntax_error_position_and_message():
    with pytest.raises(AuctionError) as info:
        Auction.parse("1S P 1N P 2Q")
    err = info.value
    assert err.kind == "syntax"
    assert err.position == 4
    assert str(err) == "call 5 '2Q' is unreadable: unknown strain 'Q'"


@pytest.mark.parametrize(
    ("text", "position", "token"),
    [
        ("Z", 0, "Z"),
        ("1S Z", 1, "Z"),
        ("1S P 9C", 2, "9C"),
        ("1S,P,,AP", 2, "AP"),
        ("P P P P ?", 4, "?"),  # syntax is reported before the auction-ended check
    ],
)
def test_parse_syntax_errors(text, position, token):
    with pytest.raises(AuctionError) as info:
        Auction.parse(text)
    assert info.value.kind == "syntax"
    assert info.value.position == position
    assert f"call {position + 1} {token!r}" in str(info.value)


def test_append_unreadable_string():
    with pytest.raises(AuctionError) as info:
        Auction.parse("1C P").append("1Z")
    assert (info.value.kind, info.value.position) == ("syntax", 2)
    assert "call 3 '1Z'" in str(info.value)


def test_auction_error_is_value_error_and_pickles():
    err = AuctionError("call 1 'X' has no bid to double", "illegal", 0)
    assert isinstance(err, ValueError)
    copy = pickle.loads(pickle.dumps(err))
    assert (str(copy), copy.kind, copy.position) == (str(err), "illegal", 0)
    with pytest.raises(ValueError):
        AuctionError("oops", "other")


# ---------------------------------------------------------------- legal_calls


def test_legal_calls_opening():
    assert legal_calls(Auction()) == [PASS, *ALL_BIDS]


def test_legal_calls_examples():
    assert legal_calls(Auction.parse("1S")) == [PASS, DOUBLE, *ALL_BIDS[4:]]
    assert legal_calls(Auction.parse("1S P")) == [PASS, *ALL_BIDS[4:]]
    assert legal_calls(Auction.parse("1S P P")) == [PASS, DOUBLE, *ALL_BIDS[4:]]
    assert legal_calls(Auction.parse("1S X")) == [PASS, REDOUBLE, *ALL_BIDS[4:]]
    assert legal_calls(Auction.parse("1S X P")) == [PASS, *ALL_BIDS[4:]]
    assert legal_calls(Auction.parse("1S X XX")) == [PASS, *ALL_BIDS[4:]]
    assert legal_calls(Auction.parse("7N X XX")) == [PASS]
    assert legal_calls(Auction.parse("7N")) == [PASS, DOUBLE]
    assert legal_calls(Auction.parse("1S P P P")) == []


@given(auctions())
def test_legal_calls_match_the_laws(auction):
    legal = legal_calls(auction)
    assert len(set(legal)) == len(legal)
    for call in ALL_CALLS:
        expected = reference_is_legal(list(auction.calls), call)
        assert (call in legal) == expected
        assert auction.is_legal(call) == expected
        if expected:
            assert auction.append(call).calls[-1] == call
        else:
            with pytest.raises(AuctionError) as info:
                auction.append(call)
            assert info.value.kind == "illegal"
            assert info.value.position == len(auction)
            assert f"call {len(auction) + 1} '{call}'" in str(info.value)


@given(auctions())
def test_auction_invariants(auction):
    calls = auction.calls
    for i in range(len(calls)):
        assert auction.seat_of(i) == SEATS[(SEATS.index(auction.dealer) + i) % 4]
    bids = [(i, c) for i, c in enumerate(calls) if c.is_bid]
    assert auction.last_bid == (bids[-1][1] if bids else None)
    assert auction.last_bidder == (auction.seat_of(bids[-1][0]) if bids else None)
    assert auction.is_complete == (legal_calls(auction) == [])
    for k in range(len(calls)):
        assert Auction(calls[:k], auction.dealer).calls == calls[:k]


# ---------------------------------------------------------------- round trips


@given(auctions())
def test_str_parse_round_trip(auction):
    text = str(auction)
    again = Auction.parse(text, dealer=auction.dealer)
    assert again == auction
    assert str(again) == text


@given(auctions(), st.data())
def test_parse_accepts_any_spelling_and_separator(auction, data):
    pieces = []
    for call in auction:
        pieces.append(data.draw(st.sampled_from(spellings(call))))
        pieces.append(data.draw(st.sampled_from([" ", ",", "-", " - ", ", ", "\n", "\t"])))
    dealer = data.draw(st.sampled_from([auction.dealer, auction.dealer.lower()]))
    assert Auction.parse("".join(pieces), dealer=dealer) == auction


@given(auctions())
def test_pbn_round_trip(auction):
    text = auction.pbn()
    assert f'[Dealer "{auction.dealer}"]' in text
    assert f'[Auction "{auction.dealer}"]' in text
    again = Auction.from_pbn(text)
    assert again == auction
    assert again.pbn() == text


# ---------------------------------------------------------------- PBN


def test_pbn_output_format():
    auction = Auction.parse("1N P 2C X XX P P P", dealer="S")
    assert auction.pbn() == '[Dealer "S"]\n[Auction "S"]\n1NT Pass 2C X\nXX Pass Pass Pass'
    assert Auction(dealer="E").pbn() == '[Dealer "E"]\n[Auction "E"]'
    assert Auction.from_pbn(Auction(dealer="E").pbn()) == Auction(dealer="E")


def test_from_pbn_full_game_fragment():
    text = """
[Event "Club pairs"]
[Board "7"]
[Dealer "S"]
[Vulnerable "Both"]
[Deal "S:AKQ83.J2.K4.QT92 - - -"]
{ a comment [Auction "N"] that must be ignored }
[Auction "S"]
1S =1= Pass 2NT! Pass ; Jacoby
3S? $1 Pass 4S Pass
% an escape line 1C 1D
Pass Pass
[Note "1:five-card major"]
[Play "W"]
HA H2 H3 H4
"""
    auction = Auction.from_pbn(text)
    assert auction.dealer == "S"
    assert str(auction) == "1S P 2N P 3S P 4S P P P"
    assert auction.is_complete


def test_from_pbn_attached_annotations():
    auction = Auction.from_pbn('[Auction "W"]\n1C=1= 1H!? X$12 XX?? 1N')
    assert auction == Auction.parse("1C 1H X XX 1N", dealer="W")


def test_from_pbn_all_pass():
    assert str(Auction.from_pbn('[Auction "N"]\n1H X AP')) == "1H X P P P"
    assert str(Auction.from_pbn('[Auction "N"]\nAP')) == "P P P P"
    assert str(Auction.from_pbn('[Auction "N"]\n1H P ap')) == "1H P P P"
    assert str(Auction.from_pbn('[Auction "N"]\n1H P P AP')) == "1H P P P"
    assert Auction.from_pbn('[Auction "N"]\nAP').is_complete


def test_from_pbn_all_pass_errors():
    with pytest.raises(AuctionError) as info:
        Auction.from_pbn('[Auction "N"]\n1H P P P AP')
    assert (info.value.kind, info.value.position) == ("illegal", 4)
    assert "call 5 'AP'" in str(info.value)
    with pytest.raises(AuctionError) as info:
        Auction.from_pbn('[Auction "N"]\n1H AP 2C')
    assert (info.value.kind, info.value.position) == ("illegal", 4)
    assert "call 5 '2C' comes after the auction ended" in str(info.value)


def test_from_pbn_incomplete_marker():
    assert str(Auction.from_pbn('[Auction "E"]\n1C P 1H *')) == "1C P 1H"
    with pytest.raises(AuctionError) as info:
        Auction.from_pbn('[Auction "E"]\n1C * 1H')
    assert (info.value.kind, info.value.position) == ("syntax", 1)
    assert "'1H'" in str(info.value)


def test_from_pbn_auction_tag_is_dealer():
    assert Auction.from_pbn('[Auction "w"]\n1C').dealer == "W"
    assert Auction.from_pbn('[Auction "E"]\n').dealer == "E"
    assert Auction.from_pbn('[Auction "E"]') == Auction(dealer="E")


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ('[Auction "N"]\n1S - 2S', 1, "call 2 '-'"),
        ('[Auction "N"]\n1S P 1N P 2Q', 4, "call 5 '2Q'"),
        ('[Auction "N"]\n1S Pass 1NT Pass\n2Q!', 4, "call 5 '2Q!'"),
        ('[Auction "N"]\n1S P ]', None, "']"),
        ('[Auction "N"]\n1S P {unclosed', None, "'{unclosed"),
        ('[Dealer "N"]\n1S P', None, "no [Auction] tag"),
        ("", None, "no [Auction] tag"),
        ('[Dealer "N"]\n[Auction "E"]\n1S', None, '[Dealer "N"] disagrees with [Auction "E"]'),
        ('[Auction "Q"]\n1S', None, "'Q'"),
        ('[Auction ""]\n1S', None, "''"),
        ('[Auction "N"]\n1S\n[Auction "N"]\n1S', None, "more than one [Auction] tag"),
    ],
)
def test_from_pbn_syntax_errors(text, position, fragment):
    with pytest.raises(AuctionError) as info:
        Auction.from_pbn(text)
    assert info.value.kind == "syntax"
    assert info.value.position == position
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ('[Auction "N"]\n1S Pass 1H', 2, "call 3 '1H' is insufficient after 1S"),
        ('[Auction "N"]\n1NT Pass 2C XX', 3, "call 4 'XX' cannot redouble 2C, which is not doubled"),
        ('[Auction "N"]\n1H =1= Pass Pass Pass\n1S', 4, "call 5 '1S' comes after the auction ended"),
        ('[Auction "N"]\n1S P X', 2, "call 3 'X' cannot double partner's 1S"),
    ],
)
def test_from_pbn_illegal_calls(text, position, message):
    with pytest.raises(AuctionError) as info:
        Auction.from_pbn(text)
    assert (info.value.kind, info.value.position, str(info.value)) == ("illegal", position, message)


def test_doctests():
    result = doctest.testmod(auction_module)
    assert result.attempted > 0
    assert result.failed == 0
