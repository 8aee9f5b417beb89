"""The round's operations (`rounds.operations`) on both stores, through `RoundStore`: one set
of scenarios, run on SQLite (the single-table dashboard's `SqliteRoundStore`) and on
PostgreSQL (tournament mode's `PgRoundStore`, with the `tournament` marker and a real
server: `make test-tournament`). Only a round's setup that the operations do not cover yet
(ending a round with a score) is written per store."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dominocam.errors import UserInputError
from rounds import lifecycle, operations, wording
from rounds.ledger import HandState
from rounds.lifecycle import HOST, Conflict
from rounds.store import RoundStore


@dataclass
class Table:
    """A table of two players, P1 and P2, at a double-six Block game."""

    store: RoundStore
    end_round: Callable[[dict[str, int]], None]  # score the open round, open the next


def sqlite_table(tmp_path: Path) -> Iterator[Table]:
    from server import storage
    from server.game import create_game, start_round
    from server.game.round_store import SqliteRoundStore

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

    yield Table(SqliteRoundStore(conn, game_id), end_round)
    conn.close()


def postgres_table() -> Iterator[Table]:
    database_url = os.environ.get("DOMINOCAM_DATABASE_URL")
    if not database_url:
        pytest.skip("needs PostgreSQL: run `make test-tournament`")
    from psycopg.types.json import Jsonb

    from tournament import store
    from tournament.config import parse_config
    from tournament.rounds import PgRoundStore

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

    yield Table(PgRoundStore(conn, event_id, "t1", config), end_round)
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
