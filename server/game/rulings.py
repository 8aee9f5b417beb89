"""Rulings on the open round: the block check and the end by domino, written once in
`dominocam.rounds.operations.rule` and stored here by `SqliteRoundStore`; the game state they judge
(it holds every hand: never shown before the round ends).

Every ruling consults the round's ledger first (`dominocam.rounds.ledger.decide`): hands to confirm
again refuse it before anything locks; a round that does not add up, a draw game's boneyard
nobody counted, or a state the rules engine refuses holds it for the host (the hands lock),
who resolves it and scores (`score_pending`). Condition 2 of a block is judged from the
ledger's boneyard, never from a default 0.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.rounds import lifecycle, operations
from dominocam.server.game import audit
from dominocam.server.game.records import (
    player_by_name,
)
from dominocam.server.game.round_store import SqliteRoundStore, rules_state

__all__ = [
    "block_check",
    "cancel_pending",
    "end_by_domino",
    "game_state_for_rules",
    "lock_hands",
    "override_ledger",
    "public_outcome",
    "rules_state",
    "score_pending",
    "unlock_hands",
]

public_outcome = lifecycle.public_outcome


def game_state_for_rules(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The state the rules engine would judge now (admin only: it holds every hand)."""
    return rules_state(conn, game_id, allow_missing=True)


def lock_hands(conn: sqlite3.Connection, game_id: int, why: str, author: str) -> None:
    """Lock every hand of the open round (`dominocam.rounds.operations.lock`): from now on only the
    host changes a hand, with a reason (`hands.confirm_hand`)."""
    store = SqliteRoundStore(conn, game_id)
    with store.transaction():
        operations.lock(store, store.open_round(), why, author)


def unlock_hands(conn: sqlite3.Connection, game_id: int, reason: object) -> None:
    """The host lets play go on (`dominocam.rounds.operations.unlock_hands`)."""
    operations.unlock_hands(SqliteRoundStore(conn, game_id), reason)


def block_check(
    conn: sqlite3.Connection,
    game_id: int,
    proposer_name: object,
    confirm: bool = False,
    by_host: bool = False,
) -> dict[str, Any]:
    """Run the clockwise verification from `proposer_name` (`dominocam.rounds.operations.rule`).

    Only the host turns a ruling into a score: a confirmed block ends the round when the
    host rules with `confirm` (`by_host`). Otherwise a blocked round is held for the host
    (`score_pending`, `cancel_pending`), which locks the hands. A check that stops locks
    nothing: the outcome names the first player who can play and whether that player had
    declared "cannot play" (a foul); play goes on, every hand confirmed again.

    Returns:
        The check's public outcome (`lifecycle.public_outcome`), with its `id` and
        `awaiting_confirmation` when held.

    Raises:
        Conflict: as `dominocam.rounds.operations.rule` (`HeldForHost` when held for the host).
    """
    name = player_by_name(conn, game_id, proposer_name)["name"]
    author = audit.HOST if by_host else name
    store = SqliteRoundStore(conn, game_id)
    ruled = operations.rule(store, "block", name, author=author, confirm=confirm)
    assert ruled.outcome is not None
    return public_outcome(ruled.outcome)


def end_by_domino(
    conn: sqlite3.Connection,
    game_id: int,
    winner_name: object,
    confirm: bool = False,
    by_host: bool = False,
) -> dict[str, Any]:
    """`winner_name` played their last tile (`dominocam.rounds.operations.rule`): with the host's
    `confirm`, end the round and score it per the variant (returns the result). Otherwise
    the call is held for the host (`score_pending`), which locks the hands, and returns
    `{"pending": ...}` with nothing scored. Only the host calls domino in single-table mode
    (a phone has no such request).

    Raises:
        Conflict: as `block_check` (the winner's own hand needs no confirmation: it is
            empty).
    """
    name = player_by_name(conn, game_id, winner_name)["name"]
    author = audit.HOST if by_host else name
    store = SqliteRoundStore(conn, game_id)
    ruled = operations.rule(store, "domino", name, author=author, confirm=confirm)
    if ruled.held:
        return {"pending": ruled.pending}
    assert ruled.result is not None
    return ruled.result


def score_pending(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The host confirms the ruling that ends the round
    (`dominocam.rounds.operations.score_held_ruling`): judged again on the hands as they are now
    and, if it still ends the round, scored; a block that no longer holds is dropped and the hands
    are released (play goes on).

    Returns:
        `{"ended": bool, "outcome" | "result": ...}`.
    """

    def rule(by: str, who: str) -> dict[str, Any]:
        if by == "domino":
            result = end_by_domino(conn, game_id, who, confirm=True, by_host=True)
            return {"ended": True, "result": result}
        outcome = block_check(conn, game_id, who, confirm=True, by_host=True)
        return {"ended": outcome["blocked"], "outcome": outcome}

    store = SqliteRoundStore(conn, game_id)
    return operations.score_held_ruling(store, rule, lambda answer: bool(answer["ended"]))


def override_ledger(conn: sqlite3.Connection, game_id: int, reason: object) -> None:
    """The host rules the round although it does not add up, with a reason
    (`dominocam.rounds.operations.override_ledger`)."""
    operations.override_ledger(SqliteRoundStore(conn, game_id), reason)


def cancel_pending(conn: sqlite3.Connection, game_id: int, reason: object) -> None:
    """The host dismisses a ruling awaiting confirmation
    (`dominocam.rounds.operations.cancel_ruling`): the hands are released, play goes on, and every
    hand is confirmed again before a new
    ruling (`dominocam.rounds.operations.rule` refuses a player's ruling until then)."""
    operations.cancel_ruling(SqliteRoundStore(conn, game_id), reason)
