"""The round's ledger (rules.ledger): unit tests for every problem code, and property tests
that deal, play and draw random rounds of every variant, then break one reading at a time."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

import pytest
from factories import t
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from dominocam.errors import UserInputError
from dominocam.rules import Tile, full_set, get_variant
from dominocam.rules.ledger import (
    BoneyardReport,
    CountSource,
    FaceDown,
    HandReport,
    HandStatus,
    Holder,
    HolderKind,
    Ledger,
    PlaceStatus,
    ProblemCode,
    StockCount,
    TableReport,
    reconcile,
)
from dominocam.rules.variants import VARIANTS, Variant

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SET6 = full_set(6)


def codes(ledger: Ledger) -> list[ProblemCode]:
    return [problem.code for problem in ledger.problems]


def only(ledger: Ledger, code: ProblemCode):
    """The one problem of `ledger`, checked to be `code`."""
    assert codes(ledger) == [code], ledger.problems
    return ledger.problems[0]


def hand(player: str, tiles: list[Tile], count: int | None = None) -> HandReport:
    return HandReport.confirmed(player, tiles, count)


def partnership(*hands: list[Tile], table: Sequence[Tile] = ()) -> Ledger:
    """A Latin partnership round (all 28 tiles dealt, 7 each, no stock): every count closes."""
    reports = [hand(name, tiles) for name, tiles in zip("ABCD", hands, strict=True)]
    return reconcile(get_variant("partnership"), reports, TableReport(face_up=tuple(table)))


def deal4() -> list[list[Tile]]:
    return [SET6[i * 7 : (i + 1) * 7] for i in range(4)]


# --- a round that adds up ----------------------------------------------------------------------


def test_a_round_that_adds_up_places_every_tile_once() -> None:
    a, b, c, d = deal4()
    table = [a.pop(), b.pop(), c.pop()]
    ledger = partnership(a, b, c, d, table=table)
    assert ledger.adds_up and ledger.closes and ledger.problems == ()
    assert ledger.places[table[0]].holders == (Holder(HolderKind.TABLE),)
    assert ledger.places[b[0]].holders == (Holder(HolderKind.HAND, "B"),)
    assert {p.status for p in ledger.places.values()} == {PlaceStatus.SEEN}
    assert ledger.unseen == ()
    assert ledger.boneyard == StockCount.exact(0, CountSource.NONE)
    assert ledger.sleeping == StockCount.exact(0, CountSource.DEAL)
    assert ledger.boneyard_known_empty and ledger.nothing_to_draw


def test_block_sleeping_tiles_come_from_the_deal() -> None:
    # Block, 2 players, 7 each: 14 tiles sleep (docs/rules.md, what varies).
    ana, ben = SET6[:7], SET6[7:13]
    ledger = reconcile(get_variant("block"), [hand("Ana", ana), hand("Ben", ben)], TableReport())
    assert (
        ledger.deal.hand_size == 7 and ledger.deal.stock == 14 and ledger.deal.undealt == "sleeping"
    )
    # 13 tiles read + 14 asleep = 27: one tile was played, but the table photo is empty.
    problem = only(ledger, ProblemCode.TOO_FEW_TILES)
    assert (problem.expected, problem.found) == (28, 27)


def test_unseen_tiles_name_the_hidden_places_that_may_hold_them() -> None:
    variant = get_variant("draw")
    hands = [hand("Ana", SET6[:7]), HandReport.unknown("Ben", count=7)]
    ledger = reconcile(variant, hands, TableReport(), BoneyardReport.counted(14))
    assert ledger.adds_up and ledger.closes
    assert ledger.places[SET6[20]].status is PlaceStatus.UNSEEN
    assert ledger.places[SET6[20]].holders == (
        Holder(HolderKind.HAND, "Ben"),
        Holder(HolderKind.BONEYARD),
    )
    assert len(ledger.unseen) == 21


# --- the boneyard: derived, bounded, or unknown, never 0 by default -----------------------------


def test_the_boneyard_is_derived_when_everything_else_is_known() -> None:
    hands = [hand("Ana", SET6[:5]), HandReport.unknown("Ben", count=6)]
    ledger = reconcile(get_variant("draw"), hands, TableReport(face_up=SET6[5:8]))
    assert ledger.boneyard == StockCount.exact(14, CountSource.DERIVED)
    assert ledger.adds_up and not ledger.closes  # derived: nothing was checked against it
    assert not ledger.boneyard_known_empty and not ledger.nothing_to_draw


def test_the_boneyard_is_unknown_not_zero_when_a_hand_count_is_unknown() -> None:
    hands = [hand("Ana", SET6[:5]), HandReport.unknown("Ben")]
    ledger = reconcile(get_variant("draw"), hands, TableReport(face_up=SET6[5:8]))
    assert ledger.boneyard.count is None and ledger.boneyard.source is CountSource.UNKNOWN
    # Ben holds at most 7 + 14 - 2 = 19 (dealt, plus every drawable tile): a floor for it.
    assert ledger.deal.most_in_hand == 19
    assert (ledger.boneyard.at_least, ledger.boneyard.at_most) == (1, 14)
    assert not ledger.boneyard_known_empty and not ledger.nothing_to_draw
    assert ledger.adds_up and not ledger.closes


def test_a_derived_empty_boneyard_is_known_empty() -> None:
    # Draw, two players: every tile but the reserve of 2 has been drawn and many played.
    variant = get_variant("draw")
    hands = [hand("Ana", SET6[:10]), hand("Ben", SET6[10:14])]
    ledger = reconcile(variant, hands, TableReport(face_up=SET6[14:]))
    assert ledger.boneyard == StockCount.exact(0, CountSource.DERIVED)
    assert ledger.boneyard_known_empty and ledger.nothing_to_draw


def test_the_draw_games_reserve_is_not_drawable() -> None:
    hands = [hand("Ana", SET6[:10]), hand("Ben", SET6[10:14])]
    table = TableReport(face_up=SET6[14:26])
    ledger = reconcile(get_variant("draw"), hands, table, BoneyardReport.counted(2))
    assert ledger.adds_up and ledger.closes
    assert not ledger.boneyard_known_empty and ledger.nothing_to_draw  # reserve 2
    seed = reconcile(get_variant("draw", {"reserve": 0}), hands, table, BoneyardReport.counted(2))
    assert not seed.nothing_to_draw


def test_block_has_no_boneyard_so_nothing_can_be_drawn() -> None:
    hands = [hand("Ana", SET6[:3]), hand("Ben", SET6[3:6])]
    ledger = reconcile(get_variant("block"), hands, TableReport(face_up=SET6[6:14]))
    assert ledger.boneyard.source is CountSource.NONE and ledger.boneyard_known_empty
    assert ledger.nothing_to_draw and ledger.adds_up and ledger.closes


def test_a_ledger_with_problems_never_claims_an_empty_boneyard() -> None:
    # Ben's hand copies Ana's 0-0: the derived count says 0, but it is not trusted.
    hands = [hand("Ana", SET6[:10]), hand("Ben", [*SET6[10:13], SET6[0]])]
    ledger = reconcile(get_variant("draw"), hands, TableReport(face_up=SET6[14:]))
    assert ledger.boneyard.count == 0 and ProblemCode.TILE_TWICE in codes(ledger)
    assert not ledger.boneyard_known_empty and not ledger.nothing_to_draw


def test_the_stock_in_view_is_counted() -> None:
    hands = [hand("Ana", SET6[:7]), hand("Ben", SET6[7:14])]
    table = TableReport(face_down=14, face_down_are=FaceDown.STOCK)
    ledger = reconcile(get_variant("draw"), hands, table)
    assert ledger.boneyard == StockCount.exact(14, CountSource.COUNTED)
    assert ledger.adds_up and ledger.closes


def test_unsorted_face_down_tiles_widen_the_total() -> None:
    # Four face-down tiles of unsaid place: the boneyard is 10 to 14, the total stays open.
    hands = [hand("Ana", SET6[:7]), hand("Ben", SET6[7:14])]
    ledger = reconcile(get_variant("draw"), hands, TableReport(face_down=4))
    assert ledger.boneyard.count is None
    assert (ledger.boneyard.at_least, ledger.boneyard.at_most) == (10, 14)
    assert ledger.adds_up and not ledger.closes
    assert Holder(HolderKind.FACE_DOWN) in ledger.places[SET6[20]].holders


def test_the_caller_may_override_the_hand_size() -> None:
    hands = [hand("Ana", SET6[:6]), hand("Ben", SET6[6:12])]
    ledger = reconcile(get_variant("block"), hands, TableReport(), hand_size=6)
    assert ledger.sleeping == StockCount.exact(16, CountSource.DEAL) and ledger.adds_up


def test_a_player_count_without_a_deal_leaves_the_sleeping_tiles_to_derive() -> None:
    # Block has no row for 5 players: the sleeping tiles are the set less the rest.
    hands = [hand(name, SET6[i * 5 : i * 5 + 5]) for i, name in enumerate("ABCDE")]
    ledger = reconcile(get_variant("block"), hands, TableReport())
    assert ledger.deal.hand_size is None
    assert ledger.sleeping == StockCount.exact(3, CountSource.DERIVED) and ledger.adds_up


# --- a table that was not read (lines entered by hand) -----------------------------------------


def test_a_table_not_read_may_hold_every_tile_read_nowhere() -> None:
    # Block, 4 players dealt 5: hands of 2 tiles each, the rest played or asleep.
    hands = [hand(name, SET6[i * 2 : i * 2 + 2]) for i, name in enumerate("ABCD")]
    ledger = reconcile(get_variant("block"), hands, TableReport.unknown())
    assert ledger.adds_up and not ledger.closes and not ledger.table_known
    assert ledger.places[SET6[20]].holders == (TABLE_, Holder(HolderKind.SLEEPING))
    assert ledger.sleeping == StockCount.exact(8, CountSource.DEAL)
    assert ledger.nothing_to_draw  # Block never draws, whatever the table holds
    assert ledger.to_dict()["table_known"] is False


def test_a_table_not_read_still_checks_the_readings_that_were_made() -> None:
    hands = [hand("A", [t(2, 3), t(1, 1)]), hand("B", [t(2, 3)]), hand("C", []), hand("D", [])]
    ledger = reconcile(get_variant("block"), hands, TableReport.unknown())
    assert codes(ledger) == [ProblemCode.TILE_TWICE]
    # More than the deal (5 each in Block for 4 players) in one hand.
    big = [hand("A", SET6[:6]), hand("B", []), hand("C", []), hand("D", [])]
    above = reconcile(get_variant("block"), big, TableReport.unknown())
    assert codes(above) == [ProblemCode.HAND_ABOVE_DEAL]


def test_a_table_not_read_leaves_a_draw_games_boneyard_unknown_until_counted() -> None:
    hands = [hand("Ana", SET6[:4]), hand("Ben", SET6[4:9])]
    ledger = reconcile(get_variant("draw"), hands, TableReport.unknown())
    assert ledger.boneyard.count is None and ledger.boneyard.at_least == 0
    assert ledger.boneyard.at_most == 14  # the deal's stock only shrinks
    assert not ledger.nothing_to_draw and ledger.adds_up
    entered = reconcile(
        get_variant("draw"), hands, TableReport.unknown(), BoneyardReport.entered(2)
    )
    assert entered.nothing_to_draw and not entered.closes  # the reserve of 2 is not drawable


def test_a_table_not_read_lists_no_tiles() -> None:
    with pytest.raises(UserInputError, match="not read"):
        TableReport(face_up=(t(0, 0),), known=False)


# --- every problem code ------------------------------------------------------------------------


TABLE_ = Holder(HolderKind.TABLE)


@pytest.mark.parametrize(
    ("where", "holders"),
    [
        ("table twice", (TABLE_, TABLE_)),
        ("two hands", (Holder(HolderKind.HAND, "A"), Holder(HolderKind.HAND, "B"))),
        ("table and hand", (TABLE_, Holder(HolderKind.HAND, "B"))),
        ("one hand twice", (Holder(HolderKind.HAND, "B"), Holder(HolderKind.HAND, "B"))),
    ],
)
def test_tile_twice(where: str, holders: tuple[Holder, ...]) -> None:
    a, b, c, d = deal4()
    twice = a.pop()  # 0-6, dealt to A
    table: list[Tile] = []
    if where == "table twice":
        table += [twice, twice]
    elif where == "two hands":
        a.append(twice)
        b.append(twice)
    elif where == "table and hand":
        table.append(twice)
        b.append(twice)
    else:
        b += [twice, twice]
    ledger = partnership(a, b, c, d, table=table)
    assert ProblemCode.TILE_TWICE in codes(ledger)
    problem = ledger.problems[codes(ledger).index(ProblemCode.TILE_TWICE)]
    assert problem.tiles == (twice,) and problem.holders == holders
    assert (problem.expected, problem.found) == (1, 2)
    assert ledger.places[twice].status is PlaceStatus.TWICE and not ledger.adds_up


def test_a_pending_hand_is_a_claim_and_is_marked() -> None:
    a, b, c, d = deal4()
    table = [b.pop()]
    reports = [hand("A", a), HandReport.pending("B", [*b, table[0]]), hand("C", c), hand("D", d)]
    ledger = reconcile(get_variant("partnership"), reports, TableReport(face_up=table))
    problem = ledger.problems[0]
    assert problem.code is ProblemCode.TILE_TWICE
    assert problem.holders == (Holder(HolderKind.TABLE), Holder(HolderKind.HAND, "B", True))
    assert problem.involves_pending and problem.players == ("B",)
    assert ledger.pending == ("B",)


def test_tile_outside_set() -> None:
    a, b, c, d = deal4()
    a[0] = t(6, 7)  # a 7 in a double-6 set: a misread
    ledger = partnership(a, b, c, d)
    assert codes(ledger) == [ProblemCode.TILE_OUTSIDE_SET, ProblemCode.TILE_NOWHERE]
    outside, nowhere = ledger.problems
    assert outside.tiles == (t(6, 7),) and (outside.expected, outside.found) == (6, 7)
    assert outside.holders == (Holder(HolderKind.HAND, "A"),)
    assert nowhere.tiles == (SET6[0],)


def test_tile_nowhere_is_named_when_the_numbers_close() -> None:
    """28 tiles in the set, 27 seen: 4-6 is nowhere."""
    a, b, c, d = deal4()
    for h in (a, b, c, d):
        if t(4, 6) in h:
            h.remove(t(4, 6))
    ledger = partnership(a, b, c, d)
    problem = only(ledger, ProblemCode.TILE_NOWHERE)
    assert problem.tiles == (t(4, 6),) and (problem.expected, problem.found) == (28, 27)
    assert ledger.places[t(4, 6)].status is PlaceStatus.NOWHERE
    assert ledger.closes and not ledger.adds_up


def test_a_misread_names_the_tile_it_hid() -> None:
    # 4-6 read as 3-3, which another hand holds: 3-3 twice, and 4-6 is nowhere.
    a, b, c, d = deal4()
    holder = next(h for h in (a, b, c, d) if t(4, 6) in h)
    assert t(3, 3) not in holder
    holder[holder.index(t(4, 6))] = t(3, 3)
    ledger = partnership(a, b, c, d)
    assert codes(ledger) == [ProblemCode.TILE_TWICE, ProblemCode.TILE_NOWHERE]
    assert ledger.problems[0].tiles == (t(3, 3),) and ledger.problems[1].tiles == (t(4, 6),)


def test_too_many_tiles() -> None:
    hands = [hand("Ana", SET6[:7]), HandReport.unknown("Ben", count=7)]
    ledger = reconcile(get_variant("draw"), hands, TableReport(), BoneyardReport.entered(15))
    assert ProblemCode.TOO_MANY_TILES in codes(ledger)
    problem = ledger.problems[codes(ledger).index(ProblemCode.TOO_MANY_TILES)]
    assert (problem.expected, problem.found) == (28, 29)


def test_too_many_tiles_in_one_photo() -> None:
    # 10 face up and 20 face down cannot all be tiles of one double-6 set.
    hands = [HandReport.unknown("Ana"), HandReport.unknown("Ben")]
    ledger = reconcile(get_variant("draw"), hands, TableReport(face_up=SET6[:10], face_down=20))
    problem = only(ledger, ProblemCode.TOO_MANY_TILES)
    assert problem.found == 30


def test_too_few_tiles_when_the_short_tile_cannot_be_named() -> None:
    # Ben holds 7 unread tiles; with the boneyard counted, one tile is missing somewhere.
    hands = [hand("Ana", SET6[:6]), HandReport.unknown("Ben", count=7)]
    ledger = reconcile(get_variant("draw"), hands, TableReport(), BoneyardReport.counted(14))
    problem = only(ledger, ProblemCode.TOO_FEW_TILES)
    assert (problem.expected, problem.found) == (28, 27)


def test_a_hand_of_unknown_count_is_bounded_by_the_deal() -> None:
    # Block: Ben holds at most the 7 dealt, so 7 + 0 + 14 asleep < 28 - 1 is provably short.
    hands = [hand("Ana", SET6[:5]), HandReport.unknown("Ben")]
    ledger = reconcile(get_variant("block"), hands, TableReport())
    problem = only(ledger, ProblemCode.TOO_FEW_TILES)
    assert (problem.expected, problem.found) == (28, 26)


def test_hand_count_differs() -> None:
    a, b, c, d = deal4()
    reports = [hand("A", a), hand("B", b[:6], count=7), hand("C", c), hand("D", d)]
    ledger = reconcile(get_variant("partnership"), reports, TableReport())
    problem = only(ledger, ProblemCode.HAND_COUNT_DIFFERS)
    assert problem.holders == (Holder(HolderKind.HAND, "B"),)
    assert (problem.expected, problem.found) == (7, 6)
    # The missed tile is still in B's hand, unread: the ledger says where it may be.
    assert ledger.places[b[6]].holders == (Holder(HolderKind.HAND, "B"),)


def test_hand_above_deal() -> None:
    # Block never draws: a hand cannot hold more than the 7 dealt.
    hands = [hand("Ana", SET6[:8]), hand("Ben", SET6[8:14])]
    ledger = reconcile(get_variant("block"), hands, TableReport())
    problem = only(ledger, ProblemCode.HAND_ABOVE_DEAL)
    assert problem.holders == (Holder(HolderKind.HAND, "Ana"),)
    assert (problem.expected, problem.found) == (7, 8)


def test_stock_counts_differ() -> None:
    hands = [hand("Ana", SET6[:7]), hand("Ben", SET6[7:14])]
    table = TableReport(face_down=13, face_down_are=FaceDown.STOCK)
    ledger = reconcile(get_variant("draw"), hands, table, BoneyardReport.entered(14))
    problem = only(ledger, ProblemCode.STOCK_COUNTS_DIFFER)
    assert problem.holders == (Holder(HolderKind.BONEYARD),)
    assert (problem.expected, problem.found) == (14, 13)
    assert ledger.boneyard.count == 14  # the report is used; the problem says it is in doubt


def test_boneyard_above_deal_as_reported() -> None:
    hands = [HandReport.unknown("Ana"), HandReport.unknown("Ben")]
    ledger = reconcile(get_variant("draw"), hands, TableReport(), BoneyardReport.entered(15))
    problem = only(ledger, ProblemCode.BONEYARD_ABOVE_DEAL)
    assert (problem.expected, problem.found) == (14, 15)


def test_boneyard_above_deal_as_derived() -> None:
    # Nothing played or drawn, but Ben's photo missed a tile: the boneyard would be 15.
    hands = [hand("Ana", SET6[:7]), hand("Ben", SET6[7:13])]
    ledger = reconcile(get_variant("draw"), hands, TableReport())
    problem = only(ledger, ProblemCode.BONEYARD_ABOVE_DEAL)
    assert (problem.expected, problem.found) == (14, 15)
    assert not ledger.boneyard.known


def test_sleeping_not_as_dealt() -> None:
    hands = [hand("Ana", SET6[:7]), hand("Ben", SET6[7:14])]
    ledger = reconcile(get_variant("block"), hands, TableReport(), BoneyardReport.entered(0))
    # The report is used, and the deal says it is wrong: the 14 tiles it leaves out are named.
    assert codes(ledger) == [ProblemCode.SLEEPING_NOT_AS_DEALT, ProblemCode.TILE_NOWHERE]
    problem = ledger.problems[0]
    assert problem.holders == (Holder(HolderKind.SLEEPING),)
    assert (problem.expected, problem.found) == (14, 0)
    assert len(ledger.problems[1].tiles) == 14


def test_every_code_is_tested_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    for code in ProblemCode:
        assert f"ProblemCode.{code.name}" in source, code


# --- the JSON form and the inputs --------------------------------------------------------------


def test_to_dict_is_json_with_codes_and_numbers_only() -> None:
    a, b, c, _ = deal4()
    a[0] = b[0]
    reports = [hand("A", a), HandReport.pending("B", b), hand("C", c), HandReport.unknown("D", 7)]
    ledger = reconcile(get_variant("partnership"), reports, TableReport())
    data = json.loads(json.dumps(ledger.to_dict()))
    assert data["adds_up"] is False and data["set_size"] == 28
    assert data["problems"][0] == {
        "code": "tile-twice",
        "tiles": [b[0].as_list()],
        "holders": [
            {"kind": "hand", "player": "A", "pending": False},
            {"kind": "hand", "player": "B", "pending": True},
        ],
        "expected": 1,
        "found": 2,
    }
    assert len(data["places"]) == 28 and data["places"][0]["tile"] == [0, 0]
    assert data["sleeping"]["source"] == "deal" and data["boneyard"]["source"] == "none"
    enums = {str(v) for e in (ProblemCode, PlaceStatus, HolderKind, CountSource) for v in e}
    words = set()

    def strings(value: object) -> None:
        if isinstance(value, str):
            words.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                strings(item)
        elif isinstance(value, list):
            for item in value:
                strings(item)

    strings(data)
    assert words <= enums | {"A", "B", "C", "D", "sleeping"}  # no English in the result


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: reconcile(get_variant("block"), [hand("A", [])], TableReport()), "2 hands"),
        (
            lambda: reconcile(get_variant("block"), [hand("A", []), hand("A", [])], TableReport()),
            "two hands",
        ),
        (
            lambda: reconcile(
                get_variant("block"), [hand("A", []), hand("B", [])], TableReport(), max_pip=7
            ),
            "double-7",
        ),
        (
            lambda: reconcile(
                get_variant("block"), [hand("A", []), hand("B", [])], TableReport(), hand_size=15
            ),
            "more than the 28",
        ),
        (lambda: HandReport(" ", HandStatus.CONFIRMED), "name"),
        (lambda: HandReport("A", HandStatus.UNKNOWN, (t(0, 0),)), "unknown but lists"),
        (lambda: HandReport.unknown("A", count=-1), ">= 0"),
        (lambda: HandReport.confirmed("A", [(0, 0)]), "Tile"),  # type: ignore[list-item]
        (lambda: TableReport(face_down=-2), ">= 0"),
        (lambda: BoneyardReport(CountSource.DERIVED, 3), "counted, entered or unknown"),
        (lambda: BoneyardReport(CountSource.COUNTED), "needs its count"),
    ],
)
def test_bad_input_is_refused(call, message: str) -> None:
    with pytest.raises(UserInputError, match=message):
        call()


def test_variants_say_what_their_undealt_tiles_are() -> None:
    assert get_variant("block").undealt == "sleeping"
    assert get_variant("partnership").undealt == "sleeping"
    assert get_variant("draw").undealt == "boneyard"
    assert get_variant("mexican-train").undealt == "boneyard"
    assert get_variant("draw", {"draw": "none"}).undealt == "sleeping"
    assert get_variant("mexican-train").player_counts == tuple(range(2, 11))
    assert get_variant("partnership").player_counts == (4,)


# --- property tests: random rounds of every variant ---------------------------------------------

PAIRS = [(name, players) for name, v in VARIANTS.items() for players in v.player_counts]


@dataclass(frozen=True)
class Round:
    """The truth of a dealt and played round.

    Attributes:
        variant: the variant.
        hands: each seat's tiles.
        table: the tiles face up on the table.
        stock: the undealt tiles (the boneyard, or the sleeping tiles).
    """

    variant: Variant
    hands: dict[str, list[Tile]]
    table: list[Tile]
    stock: list[Tile]


@st.composite
def rounds(draw: st.DrawFn) -> Round:
    """Deal a shuffled set for a variant and player count, then play and draw at random."""
    name, players = draw(st.sampled_from(PAIRS))
    variant = VARIANTS[name]
    size = variant.hand_size(players)
    tiles = list(draw(st.permutations(full_set(variant.set))))
    table: list[Tile] = []
    if variant.engine_rounds and draw(st.booleans()):
        # Some Mexican Train rules set the engine out before the deal: then the boneyard is
        # one less than the deal leaves, which the ledger's bounds must allow.
        engine = Tile(variant.set, variant.set)
        tiles.remove(engine)
        table.append(engine)
    hands = {f"P{i}": tiles[i * size : (i + 1) * size] for i in range(players)}
    stock = tiles[players * size :]
    # Play and draw at random (legality does not matter to counting), from a few turns to
    # long rounds that empty the boneyard down to its reserve.
    rng = draw(st.randoms(use_true_random=False))
    draw_rate = draw(st.sampled_from([0.0, 0.3, 0.6]))
    for _ in range(draw(st.integers(0, 3 * players * size))):
        held = hands[f"P{rng.randrange(players)}"]
        drawable = variant.undealt == "boneyard" and len(stock) > variant.reserve
        if drawable and rng.random() < draw_rate:
            held.append(stock.pop(rng.randrange(len(stock))))
        elif held:
            table.append(held.pop(rng.randrange(len(held))))
    return Round(variant, hands, table, stock)


@dataclass(frozen=True)
class Report:
    """What the referee was told about a round."""

    hands: tuple[HandReport, ...]
    table: TableReport
    boneyard: BoneyardReport

    def ledger(self, variant: Variant) -> Ledger:
        return reconcile(variant, self.hands, self.table, self.boneyard)

    def closes(self, variant: Variant) -> bool:
        """Every count known from its own source, no face-down tile of unsaid place."""
        stock_given = (
            self.boneyard.count is not None
            or self.table.face_down_are is FaceDown.STOCK
            or variant.undealt == "sleeping"  # the deal fixes it: every round here has a deal
        )
        unsorted = self.table.face_down_are is FaceDown.UNSORTED and self.table.face_down > 0
        counted = all(h.held is not None for h in self.hands)
        return self.table.known and counted and stock_given and not unsorted


HAND_KINDS = [
    "confirmed",
    "confirmed",
    "confirmed",
    "pending",
    "counted",
    "unknown-count",
    "unknown",
]


@st.composite
def reports(draw: st.DrawFn, rnd: Round) -> Report:
    """A truthful report of `rnd`: every reading right, some hands or counts not known."""
    hands = []
    for name, tiles in rnd.hands.items():
        kind = draw(st.sampled_from(HAND_KINDS))
        if kind == "confirmed":
            hands.append(HandReport.confirmed(name, tiles))
        elif kind == "pending":
            hands.append(HandReport.pending(name, tiles))
        elif kind == "counted":  # read, and its count known apart from the photo
            hands.append(HandReport.confirmed(name, tiles, count=len(tiles)))
        elif kind == "unknown-count":
            hands.append(HandReport.unknown(name, count=len(tiles)))
        else:
            hands.append(HandReport.unknown(name))
    boneyard = draw(
        st.sampled_from(
            [
                BoneyardReport.counted(len(rnd.stock)),
                BoneyardReport.entered(len(rnd.stock)),
                BoneyardReport.unknown(),
            ]
        )
    )
    face_down = draw(st.sampled_from(["none", "stock", "unsorted", "not-read"]))
    if face_down == "not-read":  # no table photo: the lines were entered by hand
        table = TableReport.unknown()
    elif face_down == "stock":
        table = TableReport(rnd.table, len(rnd.stock), FaceDown.STOCK)
    elif face_down == "unsorted":
        # Some tiles not face up lie face down in view (the stock, hands laid down).
        hidden = sum(map(len, rnd.hands.values())) + len(rnd.stock)
        table = TableReport(rnd.table, draw(st.integers(0, min(hidden, 10))))
    else:
        table = TableReport(rnd.table)
    return Report(tuple(hands), table, boneyard)


def true_holder(rnd: Round, tile: Tile) -> Holder:
    if tile in rnd.table:
        return Holder(HolderKind.TABLE)
    if tile in rnd.stock:
        return Holder(
            HolderKind.BONEYARD if rnd.variant.undealt == "boneyard" else HolderKind.SLEEPING
        )
    return next(Holder(HolderKind.HAND, n) for n, tiles in rnd.hands.items() if tile in tiles)


def stock_of(ledger: Ledger, variant: Variant) -> StockCount:
    return ledger.boneyard if variant.undealt == "boneyard" else ledger.sleeping


@PROPERTY
@given(st.data())
def test_a_truthful_report_adds_up_with_every_tile_in_one_place(data: st.DataObject) -> None:
    rnd = data.draw(rounds())
    report = data.draw(reports(rnd))
    ledger = report.ledger(rnd.variant)
    assert ledger.problems == () and ledger.adds_up
    assert ledger.closes == report.closes(rnd.variant)

    read = {h.player: h for h in report.hands if h.status is not HandStatus.UNKNOWN}
    for tile, place in ledger.places.items():
        truth = true_holder(rnd, tile)
        if (truth.kind is HolderKind.TABLE and report.table.known) or truth.player in read:
            pending = truth.player is not None and read[truth.player].status is HandStatus.PENDING
            assert place.status is PlaceStatus.SEEN
            assert place.holders == (replace(truth, pending=pending),)
        else:  # hidden: its true place is among those the ledger names
            assert place.status is PlaceStatus.UNSEEN and truth in place.holders

    stock = stock_of(ledger, rnd.variant)
    true_stock = len(rnd.stock)
    # Whatever the ledger claims about the stock is true; it is never 0 by default.
    assert stock.at_least <= true_stock
    assert stock.at_most is None or true_stock <= stock.at_most
    assert stock.count is None or stock.count == true_stock
    if ledger.boneyard_known_empty:
        assert rnd.variant.undealt == "sleeping" or true_stock == 0
    if ledger.nothing_to_draw:
        assert rnd.variant.drawable(true_stock if rnd.variant.undealt == "boneyard" else 0) == 0
    # Derived correctly whenever everything else is known.
    all_counts = all(h.held is not None for h in report.hands)
    unsorted = report.table.face_down_are is FaceDown.UNSORTED and report.table.face_down > 0
    if all_counts and not unsorted and report.table.known:
        assert stock.count == true_stock
        given = report.boneyard.count is not None or report.table.face_down_are is FaceDown.STOCK
        if rnd.variant.undealt == "boneyard" and not given:
            assert stock.source is CountSource.DERIVED
    other = ledger.sleeping if rnd.variant.undealt == "boneyard" else ledger.boneyard
    assert other == StockCount.exact(0, CountSource.NONE)


class Fault(StrEnum):
    MISSED_IN_HAND = "a tile missed from a hand's photo"
    MISSED_ON_TABLE = "a tile missed from the table's photo"
    MISREAD = "a tile misread as another"
    COPIED = "a tile copied into a second hand"
    PLAYED_LEFT_IN_HAND = "a played tile left in a hand"
    WRONG_BONEYARD = "a wrong boneyard count"


def read_hands(report: Report) -> list[int]:
    return [i for i, h in enumerate(report.hands) if h.status is not HandStatus.UNKNOWN]


def with_hand(report: Report, index: int, tiles: list[Tile]) -> Report:
    hands = list(report.hands)
    hands[index] = replace(hands[index], tiles=tuple(tiles))
    return replace(report, hands=tuple(hands))


@dataclass(frozen=True)
class Faulty:
    """A report with one fault, and what the fault did."""

    report: Report
    fault: Fault
    tile: Tile | None = None  # the tile the fault lost or copied, or the misread's truth
    misread_as: Tile | None = None
    count_given: bool = False  # the faulted hand's count was known apart from its photo


@st.composite
def faulty(draw: st.DrawFn, rnd: Round, report: Report) -> Faulty:
    """`report` with one fault of a kind that applies to it."""
    readers = [i for i in read_hands(report) if report.hands[i].tiles]
    spots = [(-1, j) for j in range(len(report.table.face_up))]
    spots += [(i, j) for i in readers for j in range(len(report.hands[i].tiles))]
    faults = [Fault.WRONG_BONEYARD]
    if spots:
        faults += [Fault.MISREAD]
    if readers:
        faults += [Fault.MISSED_IN_HAND]
    if report.table.face_up:
        faults += [Fault.MISSED_ON_TABLE]
    if readers and len(read_hands(report)) >= 2:
        faults += [Fault.COPIED]
    if report.table.face_up and read_hands(report):
        faults += [Fault.PLAYED_LEFT_IN_HAND]
    fault = draw(st.sampled_from(faults))
    if fault is Fault.MISSED_IN_HAND:
        index = draw(st.sampled_from(readers))
        tiles = list(report.hands[index].tiles)
        lost = tiles.pop(draw(st.integers(0, len(tiles) - 1)))
        given = report.hands[index].count is not None
        return Faulty(with_hand(report, index, tiles), fault, lost, count_given=given)
    if fault is Fault.MISSED_ON_TABLE:
        up = list(report.table.face_up)
        lost = up.pop(draw(st.integers(0, len(up) - 1)))
        return Faulty(replace(report, table=replace(report.table, face_up=tuple(up))), fault, lost)
    if fault is Fault.COPIED:
        source = draw(st.sampled_from(readers))
        target = draw(st.sampled_from([i for i in read_hands(report) if i != source]))
        copied = draw(st.sampled_from(report.hands[source].tiles))
        tiles = [*report.hands[target].tiles, copied]
        return Faulty(with_hand(report, target, tiles), fault, copied)
    if fault is Fault.PLAYED_LEFT_IN_HAND:
        target = draw(st.sampled_from(read_hands(report)))
        played = draw(st.sampled_from(report.table.face_up))
        tiles = [*report.hands[target].tiles, played]
        return Faulty(with_hand(report, target, tiles), fault, played)
    if fault is Fault.WRONG_BONEYARD:
        true = len(rnd.stock)
        wrong = draw(
            st.sampled_from([c for c in range(true - 3, true + 4) if c >= 0 and c != true])
        )
        source = draw(st.sampled_from([BoneyardReport.counted, BoneyardReport.entered]))
        return Faulty(replace(report, boneyard=source(wrong)), fault)
    # MISREAD: one reading (face up on the table, or in a read hand) taken for another tile,
    # perhaps one with a half above the set's n.
    where, j = draw(st.sampled_from(spots))
    n = rnd.variant.set
    tiles = list(report.table.face_up if where < 0 else report.hands[where].tiles)
    truth = tiles[j]
    tiles[j] = draw(st.sampled_from([*(x for x in full_set(n) if x != truth), Tile(0, n + 1)]))
    if where < 0:
        faulted = replace(report, table=replace(report.table, face_up=tuple(tiles)))
    else:
        faulted = with_hand(report, where, tiles)
    return Faulty(faulted, fault, truth, tiles[j])


def all_readings(report: Report) -> list[Tile]:
    return [*report.table.face_up, *(x for h in report.hands for x in h.tiles)]


@PROPERTY
@given(st.data())
def test_every_fault_is_caught_unless_counting_cannot_see_it(data: st.DataObject) -> None:
    """One fault in a truthful report is caught (a problem, `adds_up` False), except:

    * A misread into a tile that is read nowhere else (it lies hidden: in the stock, in a
      hand not read, or on a table not read) changes no count and puts no tile in two
      places: counting cannot catch it, whatever else is known. This is the ONLY fault left
      uncaught when the ledger `closes` (every count known from its own source); the test
      asserts that the ledger then still adds up with every count unchanged, so that it
      never pretends otherwise.
    * When the ledger does not close, a lost tile or a wrong boneyard count can be absorbed
      by what is not known: a hand of unknown count, a boneyard derived from the rest (the
      lost tile then shows up as one more tile in the derived boneyard, which the test
      checks), or face-down tiles of unsaid place. `closes` is False in exactly these cases,
      so the caller knows the total was not checked.

    Faults that put one tile in two places (copied into a second hand, a played tile left in
    a hand, a misread into a tile read elsewhere) and misreads outside the set are caught
    always, known counts or not.
    """
    rnd = data.draw(rounds())
    report = data.draw(reports(rnd))
    sound = report.ledger(rnd.variant)
    case = data.draw(faulty(rnd, report))
    ledger = case.report.ledger(rnd.variant)
    found = codes(ledger)
    event(f"{case.fault.name}, {'closes' if ledger.closes else 'open'}")
    event("caught" if found else "uncaught")
    assert ledger.closes == case.report.closes(rnd.variant)

    if case.fault in (Fault.COPIED, Fault.PLAYED_LEFT_IN_HAND):
        assert ProblemCode.TILE_TWICE in found
        assert any(p.tiles == (case.tile,) for p in ledger.problems)
    elif case.fault is Fault.MISREAD:
        assert case.misread_as is not None and case.tile is not None
        others = all_readings(case.report)
        others.remove(case.misread_as)
        if case.misread_as.high > rnd.variant.set:
            assert ProblemCode.TILE_OUTSIDE_SET in found
        elif case.misread_as in others:
            assert ProblemCode.TILE_TWICE in found
        else:
            # Uncatchable by counting: the tile it was taken for lies hidden (in the stock or
            # a hand not read), every count stays right. The ledger still adds up, with the
            # same counts as the truth.
            hidden_in = true_holder(rnd, case.misread_as)
            assert hidden_in.kind is not HolderKind.TABLE or not report.table.known
            assert hidden_in.player is None or hidden_in.player not in {
                report.hands[i].player for i in read_hands(report)
            }
            assert ledger.adds_up
            assert (ledger.boneyard, ledger.sleeping) == (sound.boneyard, sound.sleeping)
            assert ledger.places[case.tile].status is PlaceStatus.UNSEEN
            return
    elif case.fault in (Fault.MISSED_IN_HAND, Fault.MISSED_ON_TABLE):
        if case.count_given:
            assert ProblemCode.HAND_COUNT_DIFFERS in found
        elif ledger.closes:
            assert {ProblemCode.TOO_FEW_TILES, ProblemCode.TILE_NOWHERE} & set(found)
            if ProblemCode.TILE_NOWHERE in found:
                assert case.tile in ledger.problems[found.index(ProblemCode.TILE_NOWHERE)].tiles
        elif ledger.adds_up:
            # Absorbed by what is not known. A given stock keeps its count; a stock derived
            # from the rest, with no face-down tile to hide in, shows the lost tile.
            stock = stock_of(ledger, rnd.variant)
            true_stock = len(rnd.stock)
            if stock.source in (CountSource.COUNTED, CountSource.ENTERED, CountSource.DEAL):
                assert stock.count == true_stock
            elif stock.known and not case.report.table.face_down and case.report.table.known:
                assert stock.count == true_stock + 1
    elif case.fault is Fault.WRONG_BONEYARD and ledger.closes:
        assert found

    if ledger.closes:
        assert not ledger.adds_up, f"uncaught with every count known: {case.fault}"
