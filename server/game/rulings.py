"""Rulings on the open round with the rules engine: the block check and the end by domino,
and the game state they judge (it holds every hand: never shown before the round ends).

Every ruling consults the round's ledger first (`review.decide_ruling`,
`rounds.ledger`): hands to confirm again refuse it before anything locks; a round
that does not add up, or a draw game's boneyard nobody counted, holds it for the host
(`review.hold_for_host`), who resolves it and scores (`score_pending`). Condition 2 of a
block is judged from the ledger's boneyard, never from a default 0.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from dominocam.errors import UserInputError
from dominocam.i18n import N_, _
from rounds import ledger_words, lifecycle, operations, wording
from rounds.ledger import (
    Ruling,
    RulingDecision,
    RulingGo,
    RulingWait,
    WaitReason,
    boneyard_floor,
)
from rules import phrases
from server import engine, storage
from server.game import audit, hands, review
from server.game.records import (
    Conflict,
    get_game,
    get_round,
    open_round,
    player_by_name,
    players,
    round_hands,
)
from server.game.round_store import SqliteRoundStore
from server.game.scoreboard import finish_if_over
from server.storage import dumps, loads, now, transaction


def rules_state(
    conn: sqlite3.Connection,
    game_id: int,
    proposer: str | None = None,
    allow_missing: bool = False,
    empty_hand: str | None = None,
) -> dict[str, Any]:
    """The game-state dict (docs/design.md) of the latest round, for the rules engine."""
    game = get_game(conn, game_id)
    rnd = get_round(conn, game_id)
    held = round_hands(conn, rnd["id"])
    roster = []
    missing = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        if p["name"] == empty_hand:
            tiles: list = []
        elif row is None or row["confirmed_at"] is None:
            if not allow_missing:
                missing.append(p["name"])
            tiles = []
        else:
            tiles = loads(row["tiles"], [])
        entry: dict[str, Any] = {"name": p["name"], "hand": tiles}
        if row is not None and row["declared_cannot_play"]:
            entry["declared_cannot_play"] = True
        if p["team"]:
            entry["team"] = p["team"]
        roster.append(entry)
    if missing:
        raise Conflict(
            _(
                "no confirmed hand yet for {missing}: each player sends a photo from their link "
                "and confirms the tiles, or the table enters them"
            ).format(missing=", ".join(missing))
        )
    state: dict[str, Any] = {
        "variant": game["variant"],
        "rules": loads(game["rules"], {}),
        "set": game["set_max"],
        "players": roster,
        "layout": {"lines": loads(rnd["layout"], [])},
        "boneyard": rnd["boneyard"],
    }
    if proposer is not None:
        state["proposer"] = proposer
    return state


def game_state_for_rules(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The state the rules engine would judge now (admin only: it holds every hand)."""
    return rules_state(conn, game_id, allow_missing=True)


def lock_hands(conn: sqlite3.Connection, game_id: int, why: str, author: str) -> None:
    """Lock every hand of the open round (a ruling held for the host): from now on only the
    host changes a hand, with a reason (`hands.confirm_hand`)."""
    with transaction(conn):
        _lock(conn, game_id, open_round(conn, game_id), why, author)


def _lock(conn: sqlite3.Connection, game_id: int, rnd: sqlite3.Row, why: str, author: str) -> None:
    """`lock_hands` inside the caller's transaction (the ruling is held in the same one)."""
    if rnd["locked_at"]:
        return
    conn.execute(
        "UPDATE rounds SET locked_at = ?, locked_by = ?, locked_words = ? WHERE id = ?",
        (now(), why, dumps(phrases.to_json(why)), rnd["id"]),
    )
    audit.record(conn, game_id, rnd["id"], "lock", author, wording.HANDS_LOCKED.format(text=why))
    storage.add_event(conn, game_id, "round", {"action": "locked"})


def unlock_hands(conn: sqlite3.Connection, game_id: int, reason: object) -> None:
    """The host lets play go on (`rounds.operations.unlock_hands`)."""
    operations.unlock_hands(SqliteRoundStore(conn, game_id), reason)


def _hold_for_host(
    conn: sqlite3.Connection,
    game_id: int,
    reasons: list[str],
    pending: dict[str, Any],
    author: str,
) -> None:
    """Hold the ruling for the host's check (`review.hold_for_host`) and lock the hands in
    the same transaction: a ruling held for the host's decision is what locks them."""
    with transaction(conn):
        rnd = open_round(conn, game_id)
        review.hold_for_host(conn, game_id, rnd["id"], reasons, pending)
        _lock(conn, game_id, rnd, _lock_reason(pending), author)


def _lock_reason(pending: dict[str, Any]) -> str:
    if pending["by"] == "block":
        return lifecycle.lock_reason("block", pending["proposer"])
    return lifecycle.lock_reason("domino", pending["player"])


def _judge(
    judge: Callable[[], dict[str, Any]],
    conn: sqlite3.Connection,
    game_id: int,
    pending: dict[str, Any],
    author: str | None = None,
) -> Any:
    """Run the rules engine on a state holding every hand. Its messages may name a hand's
    tiles ("tile 5-6 is held twice: in Ana's hand and in Caro's hand"): they go to the host's
    correction screen (the round's review), the ruling waits for the host, and the caller
    hears only that a tile needs checking."""
    try:
        return judge()
    except UserInputError as error:
        with transaction(conn):
            rnd = open_round(conn, game_id)
            audit.record(
                conn,
                game_id,
                rnd["id"],
                "review",
                "rules",
                text=wording.RULES_REFUSED.format(error=error),
                public_text=wording.TILE_NEEDS_CHECKING,
            )
            review.hold_for_host(conn, game_id, rnd["id"], [review.RULES_REFUSED], pending)
            who = author or str(pending.get("proposer") or pending.get("player"))
            _lock(conn, game_id, rnd, _lock_reason(pending), who)
        raise Conflict(_(ledger_words.HOST_CHECKING)) from None


def _ledger_first(
    conn: sqlite3.Connection, game_id: int, ruling: Ruling, went_out: str | None
) -> RulingDecision:
    """The round's ledger before a ruling (`round_ledger.decide`): hands to confirm again
    refuse the ruling at once, before anything locks (their owners confirm them: as it is,
    or corrected, which a lock would forbid).

    Raises:
        Conflict: hands to confirm, naming whose (no tile, no count).
    """
    # Judged as the host's ruling, whoever asks: a player's proposal never scores (it waits
    # for the host's decision either way), so counts that do not close are the host's to
    # weigh when they score it (their screen says so), not a reason to refuse the proposal.
    decision = review.decide_ruling(conn, game_id, ruling, went_out, by_host=True)
    if isinstance(decision, RulingWait) and WaitReason.HANDS_TO_CONFIRM in decision.reasons:
        raise Conflict(ledger_words.to_confirm_message(decision.to_confirm))
    return decision


def _go_or_hold(
    conn: sqlite3.Connection,
    game_id: int,
    decision: RulingDecision,
    pending: dict[str, Any],
    by_host: bool,
    author: str,
) -> RulingGo:
    """Go on, or hold the ruling (`pending`) for the host's check and refuse it now: the host
    reads what is wrong, tile by tile, on the correction screen; everybody else reads only
    that the host is checking.

    Raises:
        Conflict: the ruling waits (the host hears why, a player that the host checks).
    """
    if isinstance(decision, RulingGo):
        return decision
    reasons = [str(reason) for reason in decision.reasons]
    _hold_for_host(conn, game_id, reasons, pending, author)
    if by_host:
        raise Conflict(" ".join(ledger_words.wait_text(reasons)))
    raise Conflict(ledger_words.public_message(reasons))


def _refuse_after_cancel(conn: sqlite3.Connection, rnd: sqlite3.Row) -> None:
    """A player's ruling right after the host cancelled one: play goes on, and every hand is
    confirmed again before a new ruling (nothing a phone sends brings the cancelled one
    back).

    Raises:
        Conflict: the host's last decision on a ruling was a cancel, and a hand is still to
            be confirmed again since.
    """
    last = conn.execute(
        "SELECT action FROM audit WHERE round_id = ? AND action IN ('cancel', 'unlock', 'lock') "
        "ORDER BY id DESC LIMIT 1",
        (rnd["id"],),
    ).fetchone()
    if last is None or last["action"] != "cancel":
        return
    waiting = conn.execute(
        "SELECT 1 FROM hands WHERE round_id = ? AND to_confirm = 1 LIMIT 1", (rnd["id"],)
    ).fetchone()
    if waiting is not None:
        raise Conflict(_(CANCELLED_BY_HOST))


# Marked here, translated where raised (the request's language).
CANCELLED_BY_HOST = N_(
    "The table host cancelled the last ruling: it cannot be proposed again as it was. Play "
    "goes on; every player confirms their hand again before a new ruling."
)


def _refuse_if_hands_changed(
    conn: sqlite3.Connection, game_id: int, judged: dict[str, Any], **which: Any
) -> None:
    """Inside the transaction that scores or holds a ruling: the hands (and declarations)
    are still those the rules engine judged. A hand saved meanwhile is not scored over:
    the ruling is refused and proposed again on the hands as they are.

    Raises:
        Conflict: a hand changed while the ruling was judged.
    """
    now_state = rules_state(conn, game_id, allow_missing=True, **which)
    if now_state["players"] != judged["players"]:
        raise Conflict(
            _(
                "A hand changed while the ruling was being judged: nothing was scored or held. "
                "Try again on the hands as they are now."
            )
        )


def block_check(
    conn: sqlite3.Connection,
    game_id: int,
    proposer_name: object,
    confirm: bool = False,
    by_host: bool = False,
) -> dict[str, Any]:
    """Run the clockwise verification from `proposer_name` with the rules engine.

    Only the host turns a ruling into a score. A confirmed block ends the round when the
    host rules with `confirm` (`by_host`): hands revealed, totals, winner, ties and points
    written to the scoreboard. Otherwise (a player's proposal, whatever it sends) a blocked
    round is held for the host (`score_pending`, `cancel_pending`) and only then are the
    hands locked. A check that stops, or is refused, locks nothing: the outcome names the
    first player who can play and whether that player had declared "cannot play" (a foul);
    which tile that player can play is told to that player only. Play goes on after it:
    every hand is to be confirmed again before the next ruling.

    The ruling is scored or held in one transaction that first checks the hands are still
    those judged (`_refuse_if_hands_changed`): a hand saved meanwhile is never scored over.

    Args:
        by_host: the table's host rules (the admin's page, or scoring a held ruling): only
            the host rules while a ruling waits for the host's check, and only the host
            scores.

    Raises:
        Conflict: a hand is missing, unconfirmed or to be confirmed again, the table reading
            needs the host's check, the round's ledger holds the ruling for the host (the
            host's screen says why), another ruling awaits confirmation, the host cancelled
            the last ruling, or a hand changed while it was judged.
    """
    confirm = confirm and by_host
    proposer = player_by_name(conn, game_id, proposer_name)
    name = proposer["name"]
    author = audit.HOST if by_host else name
    rnd = open_round(conn, game_id)
    lifecycle.refuse_other_ruling(loads(rnd["pending_end"], None), "block", name, confirm)
    review.refuse_while_host_checks(rnd, by_host)
    if not by_host:
        _refuse_after_cancel(conn, rnd)
    state = rules_state(conn, game_id, proposer=name)
    decision = _ledger_first(conn, game_id, Ruling.BLOCK, None)
    review.refuse_unchecked(conn, game_id, rnd)
    pending = {"by": "block", "proposer": name}
    floor = boneyard_floor(decision)
    if floor is not None:
        # Only the boneyard's count is missing: a player who can play stops the check
        # whatever it holds; when nobody can, the count decides and the host enters it.
        verdict = _judge(
            lambda: engine.check(dict(state, boneyard=floor)), conn, game_id, pending, author
        )
        if verdict["conditions"]["no_playable_end"]:
            _go_or_hold(conn, game_id, decision, pending, by_host, author)
        go = RulingGo(decision.ledger, floor)
    else:
        go = _go_or_hold(conn, game_id, decision, pending, by_host, author)
        # Condition 2 from the ledger's boneyard: known, or bounded well enough to decide it.
        state["boneyard"] = go.boneyard
        verdict = _judge(lambda: engine.check(state), conn, game_id, pending, author)
    outcome = _outcome(conn, game_id, name, verdict)
    with transaction(conn):
        rnd = open_round(conn, game_id)
        _refuse_if_hands_changed(conn, game_id, state, proposer=name)
        cur = conn.execute(
            "INSERT INTO block_checks (round_id, proposer, verdict, outcome, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (rnd["id"], name, dumps(verdict), dumps(outcome), now()),
        )
        outcome["id"] = int(cur.lastrowid or 0)
        # Reached while the host checks only by the host's own ruling: the check is done.
        review.clear_host_check(conn, rnd["id"])
        if verdict.get("blocked") and confirm:
            # Locked as it ends (kept if the host reopens the round).
            _lock(conn, game_id, rnd, lifecycle.lock_reason("block", name), author)
            _end_round(conn, game_id, rnd, "block", dict(verdict, ledger=go.to_dict()))
        elif verdict.get("blocked"):
            outcome["awaiting_confirmation"] = True
            _hold(conn, rnd, dict(pending, check=outcome["id"]))
            _lock(conn, game_id, rnd, lifecycle.lock_reason("block", name), author)
        else:
            # Stopped: nothing locks, play goes on (each hand confirmed again before the
            # next ruling: tiles are played from now on).
            hands.play_goes_on(conn, rnd["id"])
        storage.add_event(conn, game_id, "block_check", {"outcome": public_outcome(outcome)})
    return public_outcome(outcome)


def _hold(conn: sqlite3.Connection, rnd: sqlite3.Row, pending: dict[str, Any]) -> None:
    """Keep a ruling that would end the round until the host confirms it."""
    pending.update(lifecycle.held_ruling(pending))
    conn.execute("UPDATE rounds SET pending_end = ? WHERE id = ?", (dumps(pending), rnd["id"]))


public_outcome = lifecycle.public_outcome


def _outcome(
    conn: sqlite3.Connection, game_id: int, proposer: str, verdict: dict[str, Any]
) -> dict[str, Any]:
    """The outcome stored with the check (`lifecycle.check_outcome`)."""
    rnd = get_round(conn, game_id)
    declared = {
        row["name"]
        for row in conn.execute(
            "SELECT p.name FROM hands h JOIN players p ON p.id = h.player_id "
            "WHERE h.round_id = ? AND h.declared_cannot_play",
            (rnd["id"],),
        )
    }
    return lifecycle.check_outcome(proposer, verdict, declared)


def end_by_domino(
    conn: sqlite3.Connection,
    game_id: int,
    winner_name: object,
    confirm: bool = False,
    by_host: bool = False,
) -> dict[str, Any]:
    """`winner_name` played their last tile: with the host's `confirm`, end the round and
    score it per the variant. Otherwise the call is held for the host (`score_pending`),
    which locks the hands, and returns `{"pending": ...}` with nothing scored. Only the host
    calls domino in single-table mode (a phone has no such request).

    Raises:
        Conflict: as `block_check` (the winner's own hand needs no confirmation: it is
            empty).
    """
    confirm = confirm and by_host
    winner = player_by_name(conn, game_id, winner_name)
    name = winner["name"]
    author = audit.HOST if by_host else name
    rnd = open_round(conn, game_id)
    lifecycle.refuse_other_ruling(loads(rnd["pending_end"], None), "domino", name, confirm)
    review.refuse_while_host_checks(rnd, by_host)
    state = rules_state(conn, game_id, empty_hand=name)
    decision = _ledger_first(conn, game_id, Ruling.DOMINO, name)
    review.refuse_unchecked(conn, game_id, rnd)
    pending = {"by": "domino", "player": name}
    go = _go_or_hold(conn, game_id, decision, pending, by_host, author)
    state["boneyard"] = go.boneyard
    result = _judge(lambda: engine.score_domino(state, name), conn, game_id, pending, author)
    with transaction(conn):
        rnd = open_round(conn, game_id)
        _refuse_if_hands_changed(conn, game_id, state, empty_hand=name)
        review.clear_host_check(conn, rnd["id"])
        if not confirm:
            _hold(conn, rnd, pending)
            _lock(conn, game_id, rnd, lifecycle.lock_reason("domino", name), author)
            storage.add_event(conn, game_id, "round", {"action": "domino-called"})
            return {"pending": pending}
        conn.execute(
            "UPDATE hands SET tiles = '[]' WHERE round_id = ? AND player_id = ?",
            (rnd["id"], winner["id"]),
        )
        result = dict(result, ledger=go.to_dict())
        _lock(conn, game_id, rnd, lifecycle.lock_reason("domino", name), author)
        _end_round(conn, game_id, rnd, "domino", result)
    return result


def score_pending(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """The host confirms the ruling that ends the round (`rounds.operations.score_held_ruling`):
    judged again on the hands as they are now and, if it still ends the round, scored; a
    block that no longer holds is dropped and the hands are released (play goes on).

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
    (`rounds.operations.override_ledger`)."""
    operations.override_ledger(SqliteRoundStore(conn, game_id), reason)


def cancel_pending(conn: sqlite3.Connection, game_id: int, reason: object) -> None:
    """The host dismisses a ruling awaiting confirmation (`rounds.operations.cancel_ruling`):
    the hands are released, play goes on, and every hand is confirmed again before a new
    ruling (`_refuse_after_cancel`)."""
    operations.cancel_ruling(SqliteRoundStore(conn, game_id), reason)


def _end_round(
    conn: sqlite3.Connection,
    game_id: int,
    rnd: sqlite3.Row,
    ended_by: str,
    result: dict[str, Any],
) -> None:
    conn.execute(
        "UPDATE rounds SET status = 'ended', ended_by = ?, result = ?, ended_at = ?, "
        "pending_end = NULL, host_check = NULL WHERE id = ?",
        (ended_by, dumps(result), now(), rnd["id"]),
    )
    by_name = {p["name"]: p["id"] for p in players(conn, game_id)}
    for name, points in (result.get("points") or {}).items():
        conn.execute(
            "INSERT OR REPLACE INTO scores (round_id, name, player_id, points) VALUES (?, ?, ?, ?)",
            (rnd["id"], name, by_name.get(name), int(points)),
        )
    storage.add_event(
        conn,
        game_id,
        "round",
        {"action": "ended", "round": rnd["number"], "by": ended_by, "winner": result.get("winner")},
    )
    finish_if_over(conn, game_id)
