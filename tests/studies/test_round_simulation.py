"""studies.round_simulation: random rounds read with faults, ruled by three policies (issue
32). Small runs only: the figures themselves are in docs/decisions/2026-12-03-round-ledger.md."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from dominocam.rules import Tile, check, get_variant, variant_names
from studies.round_simulation import (
    CHEAT,
    ERROR,
    HELD,
    MISREAD,
    MISSED,
    POLICIES,
    RULED,
    FaultRates,
    Played,
    deal,
    format_report,
    main,
    neighbour,
    play_round,
    read_round,
    simulate_round,
    summarize,
)

NO_FAULTS = FaultRates(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def results():
    return [simulate_round(index, 7, FaultRates()) for index in range(80)]


def test_the_ledger_is_wrong_only_on_a_misread_into_a_hidden_tile(results) -> None:
    # The one error counting cannot see (rules.ledger docstring): anything else is held. A
    # hidden misread that leaves the ruling as it is (winner, ties, points) is harmless: the
    # ledger is never wrong on it, even with a reader that never doubts.
    for result in results:
        for policy in ("ledger", "ledger+count"):
            if result.wrong_blind[policy]:
                assert result.hidden_misreads and result.hidden_changed, result
            if result.wrong[policy]:
                # ... and, the doubts heeded, only on one its photo did not ask about.
                assert result.hidden_asked < result.hidden_misreads, result
                assert not result.asks, result


def test_a_photo_that_asks_holds_the_round_in_every_policy() -> None:
    rates = replace(FaultRates(), misread=0.05, misread_asks=1.0, right_doubtful=0.0)
    results = [simulate_round(index, 11, rates) for index in range(40)]
    misread = [r for r in results if MISREAD in r.faults]
    assert misread
    for result in misread:
        assert result.asks and not result.needless_only
        for policy in POLICIES:
            assert result.rulings[policy].kind in (HELD, ERROR), result
            assert not result.wrong[policy]
    for result in results:
        if not result.asks:
            assert result.rulings == result.blind


def test_the_doubts_do_not_move_the_rest_of_the_readings() -> None:
    # Drawn last: the same round reads the same tiles whatever the doubts' rates.
    state = deal(get_variant("draw"), 4, random.Random(5))
    played = Played(state, None, "stopped")
    never = read_round(played, replace(NO_FAULTS, misread=0.2), random.Random(6))
    always = read_round(
        played,
        replace(NO_FAULTS, misread=0.2, misread_asks=1.0, right_doubtful=1.0),
        random.Random(6),
    )
    assert never.hands == always.hands and never.table == always.table
    assert never.faults == always.faults == {MISREAD}
    assert never.misreads_asked == 0 and not never.asks
    read = sum(len(hand) for hand in always.hands) + len(always.table)
    assert always.misreads_asked >= 1
    assert always.misreads_asked + always.needless_doubts == read


def test_a_round_without_a_fault_is_ruled_right_once_the_boneyard_is_counted(results) -> None:
    clean = [r for r in results if not r.faults]
    assert clean
    for result in clean:
        assert result.blind["ledger+count"].kind == RULED
        assert result.blind["ledger+count"].outcome == result.truth
        assert result.blind["today"].outcome == result.truth
        # A needless doubt (a tile read right, marked doubtful) only asks.
        expected = HELD if result.asks else RULED
        assert result.rulings["ledger+count"].kind == expected


def test_a_round_is_the_same_whenever_it_is_simulated(results) -> None:
    assert simulate_round(3, 7, FaultRates()) == results[3]
    assert simulate_round(3, 8, FaultRates()) != results[3]


@pytest.mark.parametrize("name", variant_names())
def test_every_variant_plays_to_an_end_that_agrees_with_the_rules(name: str) -> None:
    variant = get_variant(name)
    rnd = random.Random(name)
    played = play_round(deal(variant, variant.player_counts[0], rnd), NO_FAULTS, rnd)
    verdict = check(played.state)
    assert played.end == {"blocked": "blocked", "went-out": "domino"}[verdict.status]


def test_readings_without_faults_are_the_truth() -> None:
    rnd = random.Random(1)
    state = deal(get_variant("draw"), 2, rnd)
    readings = read_round(Played(state, None, "stopped"), NO_FAULTS, rnd)
    assert readings.hands == tuple(p.hand for p in state.players)
    assert readings.faults == frozenset() and readings.face_down == 0


def test_faults_change_the_readings_they_name() -> None:
    rnd = random.Random(2)
    state = deal(get_variant("block"), 4, rnd)
    missed = read_round(Played(state, None, "stopped"), replace(NO_FAULTS, missed_tile=1.0), rnd)
    assert [len(hand) for hand in missed.hands] == [4, 4, 4, 4] and missed.faults == {MISSED}
    cheat = read_round(Played(state, None, "stopped"), replace(NO_FAULTS, cheat=1.0), rnd)
    assert cheat.faults == {CHEAT} and cheat.hands != missed.hands


@pytest.mark.parametrize("tile", [Tile(0, 0), Tile(3, 5), Tile(6, 6)])
def test_a_misread_is_a_neighbour_within_the_set(tile: Tile) -> None:
    rnd = random.Random(3)
    for _ in range(20):
        read = neighbour(tile, 6, rnd)
        assert read != tile and read.high <= 6
        assert abs(read.pips - tile.pips) == 1


def test_the_summary_and_its_table(results) -> None:
    summary = summarize(results, 7, FaultRates())
    assert summary["rounds"] == 80 and set(summary["policies"]) == set(POLICIES)
    for policy in POLICIES:
        row = summary["policies"][policy]
        assert row["ruled"] + row["held"]["k"] + row["errors"] == 80
        assert row["held_with_a_reading_fault"] + row["held_without"] == row["held"]["k"]
        assert 0.0 <= row["wrong"]["low"] <= row["wrong"]["high"] <= 1.0
        assert row["wrong"]["k"] <= row["wrong_without_doubts"]["k"]
        assert row["held"]["k"] == row["held_without_doubts"] + row["held_for_a_doubt_alone"]
    # No false alarm but the reader's needless doubts.
    row = summary["policies"]["ledger+count"]
    assert row["held_without"] == row["held_without_for_a_needless_doubt"]
    assert summary["doubts"]["rounds_asking"]["k"] == sum(r.asks for r in results)
    held = sum(r.rulings["ledger"].kind == HELD for r in results)
    assert summary["policies"]["ledger"]["held"]["k"] == held
    text = format_report(summary)
    assert "ledger + the host's count" in text and "Uncatchable by counting" in text
    assert "a reader that never doubts" in text


def test_the_command(capsys) -> None:
    assert main(["--rounds", "12", "--seed", "1", "--quiet", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["command"] == "python -m studies.round_simulation --rounds 12 --seed 1"
    assert main(["--rounds", "0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
