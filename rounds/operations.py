"""The round's operations, written once against a `RoundStore` (`rounds.store`).

Both modes call these: the single-table dashboard through `server.game` (SQLite) and
tournament mode through `tournament.rounds` (PostgreSQL). Each runs in one transaction of
the store and raises `lifecycle.Conflict` (HTTP 409) when the round does not allow it, or
`UserInputError` (HTTP 400) for a bad request (bad tiles, no reason).

* `confirm_hand`: a hand is in once its owner confirms it (or the host enters it); the
  rules of who may change what are `lifecycle.confirm_change`'s.
* `cancel_ruling`: the host drops a held ruling. The hands are released and play goes on:
  every confirmed hand is confirmed again before the next ruling.
* `unlock_hands`: the host lets play go on; the same release.
* `override_ledger`: the host rules a round that does not add up, for the problems it has
  now, with a reason.
* `score_held_ruling`: the host scores the held ruling, judged again by the mode's ruling;
  a block that no longer holds releases the hands.
* `reopen_last_round`: the last ended round is open again, its hands locked, its points out
  of the scoreboard.

When play goes on (`play_goes_on`) the host's word on the ledger's old problems no longer
holds either: a ruling after it is checked afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from dominocam.i18n import _
from rounds import wording
from rounds.ledger import problems_signature, round_ledger
from rounds.lifecycle import (
    HOST,
    AuditEntry,
    Conflict,
    confirm_change,
    require_reason,
)
from rounds.store import RoundRow, RoundStore

A = TypeVar("A")


def _note(
    action: str, author: str, text: str, reason: str | None = None, **detail: Any
) -> AuditEntry:
    """An entry whose text names no tile (shown to everybody at once)."""
    return AuditEntry(action, author, text, text, reason, dict(detail))


@dataclass(frozen=True)
class HandConfirmed:
    """What `confirm_hand` confirmed: the round's number and the hand."""

    round: int
    tiles: list[list[int]]


def confirm_hand(
    store: RoundStore, player: str, tiles: object, *, author: str, reason: object = None
) -> HandConfirmed:
    """Confirm `player`'s hand: `tiles` given (typed or corrected), or the photo's pending
    reading when `tiles` is None.

    Args:
        author: the player's own name, or `lifecycle.HOST`.

    Raises:
        Conflict: the hands are locked and the author is not the host, or there is nothing
            to confirm.
        UserInputError: bad tiles, or the host changes a locked hand without a reason.
    """
    with store.transaction():
        rnd = store.open_round()
        row = store.hand(rnd, player)
        confirmed = row is not None and row.tiles is not None
        change = confirm_change(
            player=player,
            author=author,
            locked_by=rnd.locked_by,
            reason=reason,
            tiles=tiles,
            pending=None if row is None else row.pending,
            before=row.tiles if row is not None and confirmed else None,
            set_max=store.set_max,
            to_confirm=bool(row is not None and confirmed and row.to_confirm),
        )
        store.save_confirmed_hand(rnd, player, change.tiles)
        if change.typed is not None:
            # For the table's host alone (`lifecycle.HOST_ONLY`): tiles typed over the
            # photo's reading, both lists.
            store.record(rnd, change.typed)
        if change.audit is not None:
            # A confirmed hand changed (confirming one as it is, or for the first time, is
            # no change: the audit trail keeps changes).
            store.record(rnd, change.audit)
        store.changed("hand", {"player": player, "count": len(change.tiles)})
    return HandConfirmed(rnd.number, change.tiles)


def play_goes_on(store: RoundStore, rnd: RoundRow) -> None:
    """Play goes on after a ruling was sought (inside a transaction): every confirmed hand
    may now list tiles played since, so each is confirmed again by its owner before the next
    ruling, and the host's word on the old problems no longer holds."""
    store.hands_to_confirm(rnd)
    store.set_override(rnd, None)


def _release(store: RoundStore, rnd: RoundRow) -> None:
    """The host's decision releases the hands: the lock and the held ruling go, play goes on."""
    store.set_lock(rnd, None)
    store.set_pending_end(rnd, None)
    play_goes_on(store, rnd)


def cancel_ruling(store: RoundStore, reason: object) -> None:
    """The host drops the ruling held for them, with a reason: the hands are released and
    every hand is confirmed again before a new ruling.

    Raises:
        UserInputError: no reason.
        Conflict: no open round, or no ruling waits.
    """
    why = require_reason(reason, _("cancelling a ruling"))
    with store.transaction():
        rnd = store.open_round()
        if rnd.pending_end is None:
            raise Conflict(_("no ruling is waiting to be scored"))
        _release(store, rnd)
        text = wording.HOST_CANCELLED.format(text=rnd.pending_end["text"])
        store.record(rnd, _note("cancel", HOST, text, why))
        store.changed("round", {"action": "cancelled"})


def unlock_hands(store: RoundStore, reason: object) -> None:
    """The host lets play go on, with a reason: the hands can change again, a held ruling is
    dropped, and every hand is confirmed again by its owner before the next ruling.

    Raises:
        UserInputError: no reason.
        Conflict: no open round, or the hands are not locked.
    """
    why = require_reason(reason, _("unlocking the hands"))
    with store.transaction():
        rnd = store.open_round()
        if not rnd.locked_by:
            raise Conflict(_("the hands are not locked"))
        _release(store, rnd)
        store.record(rnd, _note("unlock", HOST, wording.HOST_UNLOCKED, why))
        store.changed("round", {"action": "unlocked"})


def score_held_ruling(
    store: RoundStore, rule: Callable[[str, str], A], ended: Callable[[A], bool]
) -> A:
    """The host scores the ruling held for them: `rule(by, who)` judges it again, as the
    host's confirmed ruling, on the round as it is now (the host may have corrected a hand)
    and scores it if it still ends the round. A block that no longer holds is dropped and
    the hands are released: play goes on, every hand confirmed again (as a cancel).

    Args:
        rule: the mode's ruling ("block" with the proposer, or "domino" with the player
            who went out), confirmed by the host.
        ended: whether `rule`'s answer ended the round.

    Raises:
        Conflict: no ruling waits, or the ruling's own refusals.
    """
    with store.transaction():
        pending = store.open_round().pending_end
    if pending is None:
        raise Conflict(_("no ruling is waiting to be scored: propose a block or call domino"))
    by = str(pending["by"])
    answer = rule(by, str(pending["player"] if by == "domino" else pending["proposer"]))
    if not ended(answer):
        with store.transaction():
            _release(store, store.open_round())
            store.changed("round", {"action": "unlocked"})
    return answer


def went_out(rnd: RoundRow) -> str | None:
    """The player a held domino says went out (their hand counts as empty)."""
    pending = rnd.pending_end or {}
    return pending.get("player") if pending.get("by") == "domino" else None


def override_ledger(store: RoundStore, reason: object) -> dict[str, Any]:
    """The host rules the round although it does not add up, for the problems it has now
    (`ledger.problems_signature`: a new problem needs a new look), with a reason kept in the
    audit trail (the problems in its detail, for the host) and, once scored, in the round's
    result. Returns `{"round", "override": {"reason"}}`.

    Raises:
        UserInputError: no reason.
        Conflict: the round adds up (nothing to override), or no open round.
    """
    why = require_reason(reason, _("scoring a round that does not add up"))
    with store.transaction():
        rnd = store.open_round()
        ledger = round_ledger(store.facts(rnd), went_out(rnd))
        signature = problems_signature(ledger)
        if signature is None:
            raise Conflict(_("the round adds up: there is nothing to override"))
        store.set_override(rnd, {"problems": signature, "reason": why})
        problems = [problem.to_dict() for problem in ledger.problems]
        store.record(rnd, _note("override", HOST, wording.HOST_OVERRIDE, why, problems=problems))
        store.changed("review", {"action": "override"})
    return {"round": rnd.number, "override": {"reason": why}}


def reopen_last_round(store: RoundStore, reason: object, *, author: str = HOST) -> int:
    """Open the last ended round again: its points leave the scoreboard, its hands stay (and
    lock: the host corrects them with a reason), every hand is confirmed again before the
    next ruling, and it is ruled and scored again. A round started after it in which nothing
    happened yet goes. Returns the reopened round's number.

    Raises:
        UserInputError: no reason.
        Conflict: no round has ended, or the round after it is under way.
    """
    why = require_reason(reason, _("reopening a round"))
    with store.transaction():
        rnd = store.latest_round()
        if rnd.status == "open":
            if rnd.number == 1 or store.touched(rnd):
                raise Conflict(
                    _("round {number} is still open: there is nothing to reopen").format(
                        number=rnd.number
                    )
                )
            store.delete_round(rnd)
            rnd = store.latest_round()
        points = store.reopen(rnd)
        store.set_lock(rnd, rnd.locked_by or wording.ROUND_REOPENED)
        play_goes_on(store, rnd)
        shown = ", ".join(f"{name} {n}" for name, n in points.items()) or wording.NO_POINTS
        text = wording.HOST_REOPENED.format(number=rnd.number, points=shown)
        # About the round's score, not its hands: shown at once.
        store.record(
            None, _note("reopen", author, text, why, round=rnd.number, points_before=points)
        )
        store.changed("round", {"action": "reopened", "round": rnd.number})
    return rnd.number
