"""The round's ledger before a ruling (rounds.ledger): pure, no database, shared
by the SQLite store and the tournament's PostgreSQL one."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path

import pytest

from dominocam.errors import UserInputError
from dominocam.rounds import ledger_words
from dominocam.rounds.ledger import (
    CellKind,
    HandState,
    Override,
    Ruling,
    RulingGo,
    RulingWait,
    SeatHand,
    WaitReason,
    applies,
    boneyard_floor,
    boneyard_report,
    cells,
    decide,
    on_table,
    problems_signature,
    round_facts,
    round_ledger,
    table_report,
)
from dominocam.rules import Tile, full_set
from dominocam.rules.ledger import BoneyardReport, CountSource, ProblemCode, TableReport
from dominocam.rules.ledger_words import problem_text

SET6 = full_set(6)
T = Tile.of


def scene(up: list[tuple[int, int]], down: int = 0, rejected: int = 0) -> dict:
    tiles = [{"id": i, "face": "up", "pips": list(p)} for i, p in enumerate(up)]
    tiles += [{"id": 100 + i, "face": "down", "pips": None} for i in range(down)]
    return {"tiles": tiles, "rejected": [{"face": "up", "pips": [6, 6]}] * rejected}


def seats(*hands: list[Tile], state: HandState = HandState.CONFIRMED) -> list[SeatHand]:
    return [SeatHand(name, state, tuple(h)) for name, h in zip("ABCD", hands, strict=False)]


def partnership(hands: list[list[Tile]], table: list[Tile], **kw) -> object:
    return round_facts(
        variant="partnership",
        rules={},
        max_pip=6,
        table_scene=scene([(t.low, t.high) for t in table]),
        hands=seats(*hands),
        **kw,
    )


def dealt() -> tuple[list[list[Tile]], list[Tile]]:
    """A partnership round that adds up: 7 dealt each, one played each."""
    hands = [list(SET6[i * 7 : i * 7 + 7]) for i in range(4)]
    table = [h.pop() for h in hands]
    return hands, table


# --- from what a store reads --------------------------------------------------------------------


def test_the_table_photo_is_read_as_the_ledger_counts_it() -> None:
    report = table_report(scene([(3, 5), (0, 3)], down=2, rejected=1))
    assert report == TableReport(face_up=(T(3, 5), T(0, 3)), face_down=2)
    # A tile whose halves are unreadable is a tile all the same (of unknown face).
    unreadable = table_report({"tiles": [{"face": "up", "pips": [1, "x"]}]})
    assert unreadable.face_up == () and unreadable.face_down == 1
    assert table_report(None) == TableReport.unknown()


@pytest.mark.parametrize(
    ("count", "source", "expected"),
    [
        (4, "entered", BoneyardReport.entered(4)),
        (4, "counted", BoneyardReport.counted(4)),
        (0, None, BoneyardReport.unknown()),  # the old default 0: not known
        (None, "entered", BoneyardReport.unknown()),
    ],
)
def test_the_stored_boneyard_is_known_only_from_its_source(count, source, expected) -> None:
    assert boneyard_report(count, source) == expected


def test_a_game_that_never_draws_ignores_a_stored_boneyard() -> None:
    facts = round_facts(
        variant="block",
        rules={},
        max_pip=6,
        table_scene=None,
        hands=seats([T(0, 1)], [T(1, 1)]),
        boneyard=0,
        boneyard_source="entered",
    )
    assert facts.boneyard == BoneyardReport.unknown()
    assert round_ledger(facts).adds_up  # its sleeping tiles are the deal's
    drawn = round_facts(
        variant="block",
        rules={"draw": "until-playable"},  # the game's settings count
        max_pip=6,
        table_scene=None,
        hands=seats([T(0, 1)], [T(1, 1)]),
        boneyard=3,
        boneyard_source="entered",
    )
    assert drawn.boneyard == BoneyardReport.entered(3)


def test_a_bad_variant_setting_is_refused() -> None:
    with pytest.raises(UserInputError, match="unknown setting"):
        round_facts(variant="block", rules={"colour": 1}, max_pip=6, table_scene=None, hands=[])


# --- the decision -------------------------------------------------------------------------------


def test_a_round_that_adds_up_goes_on() -> None:
    hands, table = dealt()
    decision = decide(partnership(hands, table), Ruling.BLOCK)
    assert isinstance(decision, RulingGo)
    assert decision.boneyard == 0 and decision.override is None
    assert decision.to_dict() == {"set_size": 28, "adds_up": True, "closes": True, "override": None}


@pytest.mark.parametrize("state", [HandState.TO_CONFIRM, HandState.PENDING, HandState.NONE])
def test_hands_not_confirmed_wait_for_their_owners_alone(state: HandState) -> None:
    hands, table = dealt()
    facts = partnership(hands, table)
    stale = [facts.hands[0], SeatHand("B", state, facts.hands[1].tiles), *facts.hands[2:]]
    facts = replace(facts, hands=tuple(stale))
    decision = decide(facts, Ruling.BLOCK)
    assert isinstance(decision, RulingWait)
    assert decision.reasons == (WaitReason.HANDS_TO_CONFIRM,) and decision.to_confirm == ("B",)
    # The player who went out holds nothing and confirms nothing.
    domino = decide(facts, Ruling.DOMINO, went_out="B")
    assert WaitReason.HANDS_TO_CONFIRM not in getattr(domino, "reasons", ())


def test_a_stale_hand_is_not_counted() -> None:
    # A hand to confirm may list tiles played since: they are no claim.
    hands, table = dealt()
    hands[1].append(table[0])  # Ben's stale hand still lists a tile now on the table
    facts = partnership(hands, table)
    assert ProblemCode.TILE_TWICE in [p.code for p in round_ledger(facts).problems]
    stale = round_facts(
        variant="partnership",
        rules={},
        max_pip=6,
        table_scene=scene([(t.low, t.high) for t in table]),
        hands=[
            SeatHand(h.player, HandState.TO_CONFIRM if h.player == "B" else h.state, h.tiles)
            for h in facts.hands
        ],
    )
    assert round_ledger(stale).adds_up


def test_a_tile_on_the_table_and_in_a_hand_does_not_add_up() -> None:
    hands, table = dealt()
    hands[2].append(table[0])
    decision = decide(partnership(hands, table), Ruling.DOMINO, went_out="A")
    assert isinstance(decision, RulingWait)
    assert decision.reasons == (WaitReason.DOES_NOT_ADD_UP,)
    problem = decision.ledger.problems[0]
    assert problem.code is ProblemCode.TILE_TWICE and problem.tiles == (table[0],)
    words = problem_text(problem, 6)
    assert (
        words == f"{table[0].low}-{table[0].high} is in two places: on the table and in C's hand."
    )


def test_an_override_holds_for_the_problems_it_saw_and_is_kept_in_the_result() -> None:
    hands, table = dealt()
    missed = hands[3].pop()
    ledger = round_ledger(partnership(hands, table))
    signature = problems_signature(ledger)
    assert signature is not None and json.loads(signature)[0]["code"] == "tile-nowhere"
    override = Override(signature, "under the box lid")
    decision = decide(partnership(hands, table, override=override), Ruling.BLOCK)
    assert isinstance(decision, RulingGo) and decision.override == override
    assert decision.to_dict()["override"] == {
        "reason": "under the box lid",
        "problems": [p.to_dict() for p in ledger.problems],
    }
    # Another problem now: the override no longer applies.
    hands[0].append(hands[1][0])
    other = partnership(hands, table, override=override)
    assert not applies(override, round_ledger(other))
    assert isinstance(decide(other, Ruling.BLOCK), RulingWait)
    hands[0].pop()
    hands[3].append(missed)
    assert problems_signature(round_ledger(partnership(hands, table))) is None


def _draw(boneyard: int | None, source: str | None, table=True, rules=None) -> object:
    # Draw, 2 players dealt 7: 14 in the boneyard at the deal, 2 never drawn.
    return round_facts(
        variant="draw",
        rules=rules or {},
        max_pip=6,
        table_scene=scene([(0, 0), (0, 1)]) if table else None,
        hands=seats(SET6[2:8], SET6[8:14]),
        boneyard=boneyard,
        boneyard_source=source,
    )


def test_a_block_in_a_draw_game_waits_for_a_boneyard_not_known() -> None:
    # The table photo has no face-down tile: the ledger derives 14, never ruled on
    # (`dominocam.rules.hold`): a tile a photo missed would be counted as in the boneyard.
    derived = decide(_draw(None, None), Ruling.BLOCK)
    assert isinstance(derived, RulingWait)
    assert derived.ledger.boneyard.count == 14
    assert derived.reasons == (WaitReason.BONEYARD_UNKNOWN,)
    # The host's own ruling does not answer it either: a count is quicker than a reason.
    by_host = decide(_draw(None, None), Ruling.BLOCK, by_host=True)
    assert isinstance(by_host, RulingWait) and by_host.reasons == (WaitReason.BONEYARD_UNKNOWN,)
    assert boneyard_floor(derived) == 0  # condition 1 is judged all the same
    entered = decide(_draw(2, "entered", table=False), Ruling.BLOCK, by_host=True)
    assert isinstance(entered, RulingGo) and entered.boneyard == 2


def test_a_domino_waits_for_counts_that_close_or_the_hosts_own_ruling() -> None:
    def out(boneyard: int | None, source: str | None) -> object:
        # A played out: 0-0 0-1 and A's six tiles on the table, B holds six, 14 left.
        return round_facts(
            variant="draw",
            rules={},
            max_pip=6,
            table_scene=scene([(t.low, t.high) for t in SET6[:8]]),
            hands=seats([], SET6[8:14]),
            boneyard=boneyard,
            boneyard_source=source,
        )

    # No boneyard count: a tile left out of B's hand could lie there unseen.
    domino = decide(out(None, None), Ruling.DOMINO, went_out="A")
    assert isinstance(domino, RulingWait) and domino.reasons == (WaitReason.COUNTS_OPEN,)
    assert boneyard_floor(domino) == 0
    by_host = decide(out(None, None), Ruling.DOMINO, went_out="A", by_host=True)
    assert isinstance(by_host, RulingGo) and by_host.boneyard == 0  # a stand-in: never judged
    counted = decide(out(14, "counted"), Ruling.DOMINO, went_out="A")
    assert isinstance(counted, RulingGo) and counted.boneyard == 14


def test_a_table_not_read_leaves_the_counts_open() -> None:
    waiting = decide(_draw(2, "entered", table=False), Ruling.BLOCK)
    assert isinstance(waiting, RulingWait) and waiting.reasons == (WaitReason.COUNTS_OPEN,)
    assert round_ledger(_draw(5, "counted")).boneyard.source is CountSource.COUNTED


def test_a_ruling_that_waits_says_why() -> None:
    with pytest.raises(ValueError, match="says why"):
        RulingWait(round_ledger(_draw(None, None)), ())


# --- what the host's screen and the owner's phone show ------------------------------------------


def test_the_host_picture_places_every_tile_by_kind() -> None:
    hands, table = dealt()
    hands[1].append(table[0])  # twice: table and B
    gone = hands[2].pop()  # nowhere
    picture = {c.tile: c for c in cells(round_ledger(partnership(hands, table)))}
    assert len(picture) == 28
    assert picture[table[0]].kind is CellKind.TWICE and picture[table[0]].problem
    assert picture[table[0]].players == ("B",) and picture[table[0]].on_table
    assert picture[table[1]].kind is CellKind.TABLE and picture[table[1]].on_table
    assert picture[hands[0][0]].kind is CellKind.HAND and picture[hands[0][0]].players == ("A",)
    assert picture[gone].kind is CellKind.NOWHERE and picture[gone].problem
    unread = round_facts(
        variant="block", rules={}, max_pip=6, table_scene=None, hands=seats([T(0, 1)], [])
    )
    hidden = {c.tile: c for c in cells(round_ledger(unread))}
    assert hidden[T(5, 5)].kind is CellKind.HIDDEN and hidden[T(5, 5)].players == ()
    assert hidden[T(5, 5)].to_dict() == {
        "tile": [5, 5],
        "kind": "hidden",
        "players": [],
        "on_table": False,
        "problem": False,
    }


def test_the_owner_reads_which_of_their_tiles_the_table_shows() -> None:
    table = table_report(scene([(2, 6), (3, 4)]))
    assert on_table([T(2, 6), T(1, 1)], table) == (T(2, 6),)
    assert on_table([T(1, 1)], TableReport.unknown()) == ()
    assert ledger_words.owner_on_table([T(2, 6)]) == (
        "2-6 is now on the table: take it out of your hand and confirm."
    )


def test_the_adapter_is_pure() -> None:
    """No database, no web framework: the tournament's store calls it as it is."""
    source = Path(__file__).resolve().parents[2] / "rounds" / "ledger.py"
    imported = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= {"__future__", "json", "collections", "dataclasses", "enum", "typing"} | {
        "dominocam",
        "rules",
    }, imported
