"""The round's operations (`dominocam.rounds.operations`) on both stores, through `RoundStore`: one
set of scenarios, run on SQLite (the single-table dashboard's `SqliteRoundStore`) and on PostgreSQL
(tournament mode's `PgRoundStore`, with the `tournament` marker and a real server: `make
test-tournament`). Only a round's setup that the operations do not cover
(ending a round by hand, the table's lines, the camera's reading) is written per store."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dominocam.errors import UserInputError
from dominocam.rounds import lifecycle, operations, wording
from dominocam.rounds.ledger import HandState
from dominocam.rounds.lifecycle import HOST, Conflict
from dominocam.rounds.store import RoundStore


@dataclass
class Table:
    """A table of two players, P1 and P2, at a double-six Block game."""

    store: RoundStore
    end_round: Callable[[dict[str, int]], None]  # score the open round, open the next
    set_lines: Callable[[list[dict[str, Any]]], None]  # the host types the table's lines
    camera_reads: Callable[[dict[str, Any]], None]  # the table's newest reading (a Scene)
    host_checks_table: Callable[[], None]  # the host's word on a doubtful reading


def sqlite_table(tmp_path: Path) -> Iterator[Table]:
    from dominocam.server import storage
    from dominocam.server.game import create_game, start_round
    from dominocam.server.game.round_store import SqliteRoundStore

    conn = storage.connect(str(tmp_path / "rounds.sqlite"))
    storage.migrate(conn)
    game_id = create_game(conn, {"name": "contract", "variant": "block", "players": ["P1", "P2"]})

    def end_round(points: dict[str, int]) -> None:
        with storage.transaction(conn):
            rnd = conn.execute(
                "SELECT id FROM rounds WHERE game_id = ? AND status = 'open'", (game_id,)
            ).fetchone()
            conn.execute(
                "UPDATE rounds SET status = 'ended', ended_by = 'block', result = ? WHERE id = ?",
                (storage.dumps({"points": points}), rnd["id"]),
            )
            for name, value in points.items():
                conn.execute(
                    "INSERT INTO scores (round_id, name, points) VALUES (?, ?, ?)",
                    (rnd["id"], name, value),
                )
        start_round(conn, game_id)

    def set_lines(lines: list[dict[str, Any]]) -> None:
        with storage.transaction(conn):
            conn.execute(
                "UPDATE rounds SET layout = ? WHERE game_id = ? AND status = 'open'",
                (storage.dumps(lines), game_id),
            )

    def camera_reads(scene: dict[str, Any]) -> None:
        with storage.transaction(conn):
            conn.execute(
                "UPDATE rounds SET table_scene = ? WHERE game_id = ? AND status = 'open'",
                (storage.dumps(scene), game_id),
            )

    def host_checks_table() -> None:
        from dominocam.server.game.review import mark_table_checked

        mark_table_checked(conn, game_id)

    yield Table(
        SqliteRoundStore(conn, game_id), end_round, set_lines, camera_reads, host_checks_table
    )
    conn.close()


def postgres_table() -> Iterator[Table]:
    database_url = os.environ.get("DOMINOCAM_DATABASE_URL")
    if not database_url:
        pytest.skip("needs PostgreSQL: run `make test-tournament`")
    from psycopg.types.json import Jsonb

    from dominocam.tournament import rounds, store
    from dominocam.tournament.config import parse_config
    from dominocam.tournament.rounds import PgRoundStore

    config = parse_config(
        {
            "event": f"contract-{uuid.uuid4().hex[:10]}",
            "variant": "block",
            "set": 6,
            "players": [{"name": "P1"}, {"name": "P2"}],
            "tables": [{"id": "t1", "name": "Table 1", "seats": ["P1", "P2"]}],
        }
    )
    conn = store.connect(database_url)
    event_id = store.load_event(conn, config).event_id

    def end_round(points: dict[str, int]) -> None:
        with conn.transaction():
            rnd = conn.execute(
                "SELECT id, number FROM rounds WHERE event_id = %s AND status = 'open'",
                (event_id,),
            ).fetchone()
            conn.execute(
                "UPDATE rounds SET status = 'ended', ended_by = 'block', result = %s WHERE id = %s",
                (Jsonb({"round": {"points": points}, "state": {"players": []}}), rnd["id"]),
            )
            conn.execute(
                "INSERT INTO rounds (event_id, table_id, number) VALUES (%s, 't1', %s)",
                (event_id, rnd["number"] + 1),
            )

    def set_lines(lines: list[dict[str, Any]]) -> None:
        rounds.set_table(conn, event_id, "t1", {"lines": lines}, None)

    def camera_reads(scene: dict[str, Any]) -> None:
        store.store_scene(conn, event_id, "t1", 1, scene, sent_at=0.0, read_s=0.0, worker="test")

    def host_checks_table() -> None:  # the host types the lines the rulings judge by
        set_lines(LINES)

    yield Table(
        PgRoundStore(conn, event_id, "t1", config),
        end_round,
        set_lines,
        camera_reads,
        host_checks_table,
    )
    conn.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.tournament)])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Table]:
    if request.param == "sqlite":
        yield from sqlite_table(tmp_path)
    else:
        yield from postgres_table()


def hand_states(table: Table) -> dict[str, tuple[str, list[list[int]]]]:
    with table.store.transaction():
        facts = table.store.facts(table.store.open_round())
    return {h.player: (str(h.state), [t.as_list() for t in h.tiles]) for h in facts.hands}


def hold(table: Table, by: str = "block", who: str = "P1") -> None:
    """A ruling held for the host, which locks the hands (what a ruling does today)."""
    key = "proposer" if by == "block" else "player"
    with table.store.transaction():
        rnd = table.store.open_round()
        table.store.set_pending_end(rnd, lifecycle.held_ruling({"by": by, key: who}))
        table.store.set_lock(rnd, lifecycle.lock_reason(by, who))


def open_round(table: Table) -> Any:
    with table.store.transaction():
        return table.store.open_round()


def test_a_hand_is_in_once_confirmed_and_then_only_the_host_changes_it(table: Table) -> None:
    with pytest.raises(Conflict):  # no photo reading, no tiles
        operations.confirm_hand(table.store, "P1", None, author="P1")
    with pytest.raises(UserInputError):
        operations.confirm_hand(table.store, "P1", [[1, 2], [2, 1]], author="P1")
    done = operations.confirm_hand(table.store, "P1", [[1, 2], [3, 4]], author="P1")
    assert (done.round, done.tiles) == (1, [[1, 2], [3, 4]])
    operations.confirm_hand(table.store, "P2", [[5, 5]], author="P2")
    assert hand_states(table) == {
        "P1": ("confirmed", [[1, 2], [3, 4]]),
        "P2": ("confirmed", [[5, 5]]),
    }
    hold(table)
    with pytest.raises(Conflict):  # locked: the owner no longer changes it
        operations.confirm_hand(table.store, "P1", [[1, 2]], author="P1")
    with pytest.raises(UserInputError):  # the host does, with a reason
        operations.confirm_hand(table.store, "P1", [[1, 2]], author=HOST)
    operations.confirm_hand(table.store, "P1", [[1, 2]], author=HOST, reason="3-4 was played")
    assert hand_states(table)["P1"] == ("confirmed", [[1, 2]])


def test_cancelling_a_held_ruling_releases_the_hands_and_play_goes_on(table: Table) -> None:
    operations.confirm_hand(table.store, "P1", [[1, 2]], author="P1")
    operations.confirm_hand(table.store, "P2", [[1, 2]], author="P2")  # a tile twice
    with pytest.raises(Conflict):
        operations.cancel_ruling(table.store, "no ruling waits")
    hold(table)
    operations.override_ledger(table.store, "both hold it? I saw it")
    assert open_round(table).pending_end["by"] == "block"
    with pytest.raises(UserInputError):
        operations.cancel_ruling(table.store, " ")
    operations.cancel_ruling(table.store, "P2 can play")
    rnd = open_round(table)
    assert (rnd.pending_end, rnd.locked_by) == (None, None)
    assert {state for state, _ in hand_states(table).values()} == {str(HandState.TO_CONFIRM)}
    with table.store.transaction():
        assert table.store.facts(table.store.open_round()).override is None
    with pytest.raises(Conflict):
        operations.cancel_ruling(table.store, "again")


def test_unlocking_lets_play_go_on(table: Table) -> None:
    operations.confirm_hand(table.store, "P1", [[1, 2]], author="P1")
    with pytest.raises(Conflict):
        operations.unlock_hands(table.store, "not locked")
    hold(table, "domino", "P2")
    assert open_round(table).locked_by == "P2 called domino"
    with pytest.raises(UserInputError):
        operations.unlock_hands(table.store, "")
    operations.unlock_hands(table.store, "called by mistake")
    rnd = open_round(table)
    assert (rnd.pending_end, rnd.locked_by) == (None, None)
    assert hand_states(table)["P1"] == (str(HandState.TO_CONFIRM), [[1, 2]])
    # Its owner confirms it as it is, and it is in again.
    operations.confirm_hand(table.store, "P1", None, author="P1")
    assert hand_states(table)["P1"] == (str(HandState.CONFIRMED), [[1, 2]])


def test_the_host_overrides_a_ledger_only_when_it_does_not_add_up(table: Table) -> None:
    operations.confirm_hand(table.store, "P1", [[1, 2]], author="P1")
    operations.confirm_hand(table.store, "P2", [[3, 4]], author="P2")
    with pytest.raises(Conflict):  # nothing is wrong: nothing to override
        operations.override_ledger(table.store, "fine")
    operations.confirm_hand(table.store, "P2", [[1, 2]], author="P2")  # now a tile twice
    with pytest.raises(UserInputError):
        operations.override_ledger(table.store, None)
    done = operations.override_ledger(table.store, "I saw both")
    assert done == {"round": 1, "override": {"reason": "I saw both"}}
    with table.store.transaction():
        override = table.store.facts(table.store.open_round()).override
    assert override is not None and override.reason == "I saw both"


def test_reopening_the_last_round(table: Table) -> None:
    with pytest.raises(Conflict):  # nothing has ended
        operations.reopen_last_round(table.store, "why")
    operations.confirm_hand(table.store, "P1", [[1, 2]], author="P1")
    operations.confirm_hand(table.store, "P2", [[3, 4]], author="P2")
    table.end_round({"P1": 7})
    assert open_round(table).number == 2
    with pytest.raises(UserInputError):
        operations.reopen_last_round(table.store, "")
    assert operations.reopen_last_round(table.store, "P2 had a tile under the table") == 1
    rnd = open_round(table)
    assert (rnd.number, rnd.status, rnd.locked_by) == (1, "open", wording.ROUND_REOPENED)
    assert hand_states(table) == {
        "P1": (str(HandState.TO_CONFIRM), [[1, 2]]),
        "P2": (str(HandState.TO_CONFIRM), [[3, 4]]),
    }
    # Only the host changes a hand now; its owner confirms it as it is.
    operations.confirm_hand(table.store, "P1", None, author="P1")
    with pytest.raises(Conflict):
        operations.confirm_hand(table.store, "P2", [[3, 3]], author="P2")
    # A round under way after the last ended one: nothing to reopen.
    table.end_round({"P1": 3})
    operations.confirm_hand(table.store, "P1", [[0, 0]], author="P1")
    with pytest.raises(Conflict):
        operations.reopen_last_round(table.store, "too late")


def test_scoring_a_held_ruling_rules_it_again_and_releases_a_block_that_no_longer_holds(
    table: Table,
) -> None:
    """The judging is each mode's own (`rule`); what the host's "score" does around it is
    the core's: which ruling it judges again, and a block that no longer holds lets play go
    on (here `rule` answers as a block that stopped: a hand was corrected meanwhile)."""
    asked: list[tuple[str, str]] = []

    def stopped(by: str, who: str) -> dict[str, Any]:
        asked.append((by, who))
        return {"ended": False}

    operations.confirm_hand(table.store, "P1", [[1, 2]], author="P1")
    with pytest.raises(Conflict):  # nothing held
        operations.score_held_ruling(table.store, stopped, lambda answer: answer["ended"])
    assert asked == []
    hold(table, "block", "P2")
    answer = operations.score_held_ruling(table.store, stopped, lambda answer: answer["ended"])
    assert answer == {"ended": False} and asked == [("block", "P2")]
    rnd = open_round(table)
    assert (rnd.pending_end, rnd.locked_by) == (None, None)
    assert hand_states(table)["P1"] == (str(HandState.TO_CONFIRM), [[1, 2]])
    # A domino is judged for the player who went out; a ruling that ends keeps what it did.
    hold(table, "domino", "P1")
    ended = operations.score_held_ruling(
        table.store, lambda by, who: {"ended": True, "by": by, "who": who}, lambda a: a["ended"]
    )
    assert ended == {"ended": True, "by": "domino", "who": "P1"}
    assert open_round(table).locked_by == "P1 called domino"


# --- rulings (`operations.rule`) ----------------------------------------------------------------

# Both ends of the table want a 6 or a 5: 1-2 and 3-4 cannot play, 1-6 can.
LINES = [{"name": "left", "open_end": 6}, {"name": "right", "open_end": 5}]


def dealt(table: Table, p1: list[list[int]], p2: list[list[int]]) -> None:
    table.set_lines(LINES)
    operations.confirm_hand(table.store, "P1", p1, author="P1")
    operations.confirm_hand(table.store, "P2", p2, author="P2")


def host_rules(table: Table) -> operations.Ruled:
    """The host scores the held ruling (`score_held_ruling` with the core's `rule`)."""

    def confirmed(by: str, who: str) -> operations.Ruled:
        return operations.rule(table.store, by, who, author=HOST, confirm=True)

    return operations.score_held_ruling(table.store, confirmed, lambda ruled: ruled.ended)


def test_a_block_that_holds_is_held_for_the_host_who_scores_it(table: Table) -> None:
    dealt(table, [[1, 2]], [[3, 4]])
    ruled = operations.rule(table.store, "block", "P1", author="P1", confirm=True)
    assert (ruled.held, ruled.ended) == (True, False)  # a player's confirm scores nothing
    assert ruled.outcome is not None and ruled.outcome["blocked"]
    rnd = open_round(table)
    assert rnd.locked_by == "P1 proposed a block" and rnd.locked_by.code == "proposed_a_block"
    assert rnd.pending_end is not None and rnd.pending_end["by"] == "block"
    assert not rnd.pending_end.get("waiting")
    with pytest.raises(Conflict):  # locked: only the host changes a hand
        operations.confirm_hand(table.store, "P2", [[3, 3]], author="P2")
    with pytest.raises(Conflict):  # another ruling waits
        operations.rule(table.store, "domino", "P2", author="P2")
    scored = host_rules(table)
    assert scored.ended and scored.result is not None
    with table.store.transaction():
        ended = table.store.latest_round()
    assert ended.number == 2 or ended.status == "ended"


def test_a_block_that_does_not_hold_locks_nothing_and_play_goes_on(table: Table) -> None:
    dealt(table, [[1, 2]], [[1, 6]])
    ruled = operations.rule(table.store, "block", "P1", author="P1")
    assert (ruled.held, ruled.ended) == (False, False)
    assert ruled.outcome is not None and not ruled.outcome["blocked"]
    assert ruled.outcome["stopped"]["player"] == "P2"
    rnd = open_round(table)
    assert (rnd.locked_by, rnd.pending_end) == (None, None)
    # Tiles are played from now on: each hand is confirmed again before the next ruling.
    assert {state for state, _ in hand_states(table).values()} == {str(HandState.TO_CONFIRM)}
    with pytest.raises(Conflict, match="confirm"):
        operations.rule(table.store, "block", "P1", author="P1")
    assert open_round(table).locked_by is None


def test_a_domino_called_is_held_for_the_host(table: Table) -> None:
    dealt(table, [[1, 2]], [[3, 4]])
    ruled = operations.rule(table.store, "domino", "P2", author="P2")
    assert ruled.held and ruled.outcome is None
    assert ruled.pending is not None and ruled.pending["player"] == "P2"
    rnd = open_round(table)
    assert rnd.locked_by == "P2 called domino"
    assert rnd.pending_end is not None and rnd.pending_end["by"] == "domino"
    scored = host_rules(table)
    assert scored.ended and scored.by == "domino"


def test_a_state_the_rules_engine_refuses_is_held_and_locks_the_hands(table: Table) -> None:
    """The engine's words may name a tile: the host's alone. Players read only that a tile
    needs checking; the ruling waits for the host and the hands lock (both modes)."""
    dealt(table, [[1, 2]], [[3, 4]])
    table.set_lines([{"name": "left", "open_end": 9}])  # a double-six set has no 9
    with pytest.raises(operations.HeldForHost) as held:
        operations.rule(table.store, "block", "P1", author="P1")
    assert str(held.value).startswith("A tile needs checking") and "9" not in str(held.value)
    rnd = open_round(table)
    assert rnd.locked_by == "P1 proposed a block"
    assert rnd.pending_end is not None and rnd.pending_end["waiting"]
    assert rnd.pending_end["reasons"] == [operations.RULES_REFUSED]
    with table.store.transaction():
        assert table.store.host_checking(table.store.open_round()) == [operations.RULES_REFUSED]
    with pytest.raises(Conflict):  # the host checks: no player's ruling meanwhile
        operations.rule(table.store, "domino", "P2", author="P2")
    with pytest.raises(Conflict):
        operations.confirm_hand(table.store, "P2", [[3, 3]], author="P2")


def test_a_player_cannot_propose_again_right_after_the_host_cancelled(table: Table) -> None:
    dealt(table, [[1, 2]], [[3, 4]])
    assert operations.rule(table.store, "block", "P1", author="P1").held
    operations.cancel_ruling(table.store, "P2 can still play 3-4 on a 4")
    with pytest.raises(Conflict) as refused:
        operations.rule(table.store, "block", "P1", author="P1")
    assert refused.value.code == "cancelled_by_host"
    assert open_round(table).locked_by is None
    # Once every hand is confirmed again, a new ruling goes on.
    operations.confirm_hand(table.store, "P1", None, author="P1")
    operations.confirm_hand(table.store, "P2", None, author="P2")
    assert operations.rule(table.store, "block", "P1", author="P1").held


def test_a_doubtful_table_reading_refuses_a_ruling_until_the_host_checks(table: Table) -> None:
    operations.confirm_hand(table.store, "P1", [[1, 2]], author="P1")
    operations.confirm_hand(table.store, "P2", [[3, 4]], author="P2")
    table.camera_reads(
        {
            "needs_review": False,
            "tiles": [{"id": 1, "pips": [6, 6], "face": "up", "doubtful": True}],
            "warnings": [],
        }
    )
    with pytest.raises(Conflict) as refused:
        operations.rule(table.store, "block", "P1", author="P1")
    assert refused.value.code == "table_needs_check"
    rnd = open_round(table)
    assert (rnd.locked_by, rnd.pending_end) == (None, None)
    # The host's word on the table (each mode's: the reading checked, or the lines typed)
    # lets the ruling go on to the round's ledger (which holds it for the host here: the
    # table's one tile and two hands do not add up to a round).
    table.host_checks_table()
    try:
        held = operations.rule(table.store, "block", "P1", author="P1").held
    except operations.HeldForHost:
        held = True
    assert held and open_round(table).locked_by == "P1 proposed a block"


def test_a_declaration_and_a_photo_are_refused_once_the_hands_lock(table: Table) -> None:
    dealt(table, [[1, 2]], [[3, 4]])
    operations.declare_cannot_play(table.store, "P2", True)
    operations.refuse_photo_when_locked(table.store)  # not locked: a photo is welcome
    with pytest.raises(Conflict):  # no new photo to discard
        operations.discard_pending(table.store, "P1")
    with table.store.transaction():
        state = table.store.rules_state(table.store.open_round(), proposer="P1")
    assert [p.get("declared_cannot_play", False) for p in state["players"]] == [False, True]
    hold(table)
    with pytest.raises(Conflict, match="locked"):
        operations.declare_cannot_play(table.store, "P2", False)
    with pytest.raises(Conflict, match="locked"):
        operations.refuse_photo_when_locked(table.store)
