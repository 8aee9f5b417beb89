"""The round's operations, written once against a `RoundStore` (`dominocam.rounds.store`).

Both modes call these: the single-table dashboard through `dominocam.server.game` (SQLite) and
tournament mode through `dominocam.tournament.rounds` (PostgreSQL). Each runs in one transaction of
the store and raises `lifecycle.Conflict` (HTTP 409) when the round does not allow it, or
`UserInputError` (HTTP 400) for a bad request (bad tiles, no reason).

* `confirm_hand`: a hand is in once its owner confirms it (or the host enters it); the
  rules of who may change what are `lifecycle.confirm_change`'s. `discard_pending` drops a
  new photo's reading, `declare_cannot_play` keeps a declaration, `refuse_photo_when_locked`
  refuses a photo while the hands are locked.
* `rule`: a block proposed or domino called, judged after the round's ledger and held for
  the host (the hands lock) or, by the host, scored.
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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from dominocam.errors import UserInputError
from dominocam.i18n import DEFAULT_LANGUAGE, N_, _, use_language
from dominocam.rounds import ledger_words, lifecycle, wording
from dominocam.rounds.ledger import (
    HandState,
    Ruling,
    RulingGo,
    RulingWait,
    WaitReason,
    boneyard_floor,
    decide,
    problems_signature,
    round_ledger,
)
from dominocam.rounds.lifecycle import (
    HOST,
    AuditEntry,
    Conflict,
    confirm_change,
    require_reason,
)
from dominocam.rounds.store import Judged, RoundRow, RoundStore
from dominocam.rules.blocked import check
from dominocam.rules.ledger_words import problem_text
from dominocam.rules.scoring import score_domino
from dominocam.rules.state import parse_state

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


def discard_pending(store: RoundStore, player: str) -> str | None:
    """Drop `player`'s new photo and its reading, keeping the confirmed hand (also once
    locked: it changes no hand). Returns the photo the store kept (the caller deletes it).

    Raises:
        Conflict: no new photo, or no open round.
    """
    with store.transaction():
        rnd = store.open_round()
        row = store.hand(rnd, player)
        if row is None or (row.pending is None and row.pending_photo is None):
            raise Conflict(_("there is no new photo to discard"), "no_new_photo")
        store.drop_pending(rnd, player)
        store.changed("hand", {"player": player})
    return row.pending_photo


def declare_cannot_play(store: RoundStore, player: str, value: bool) -> None:
    """`player` says they cannot play (a false declaration is a foul at the block check).

    Raises:
        Conflict: the hands are locked, or no open round.
    """
    with store.transaction():
        rnd = store.open_round()
        lifecycle.refuse_if_locked(rnd.locked_by)
        store.declare(rnd, player, value)
        store.changed("declare", {"player": player, "cannot_play": value})


def refuse_photo_when_locked(store: RoundStore) -> None:
    """A hand photo is refused at once while the hands are locked (before it is stored or
    sent to read).

    Raises:
        Conflict: the hands are locked, or no open round.
    """
    with store.transaction():
        lifecycle.refuse_if_locked(store.open_round().locked_by)


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
            raise Conflict(_("no ruling is waiting to be scored"), "no_ruling_waiting")
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
            raise Conflict(_("the hands are not locked"), "hands_not_locked")
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
        raise Conflict(
            _("no ruling is waiting to be scored: propose a block or call domino"),
            "no_ruling_waiting",
        )
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
            raise Conflict(
                _("the round adds up: there is nothing to override"), "nothing_to_override"
            )
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
                    ),
                    "nothing_to_reopen",
                    round=rnd.number,
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


# --- rulings: a block proposed, domino called -------------------------------------------------

# Why a ruling waits for the host besides the ledger's reasons: the rules engine refused the
# round's state (its message may name a hand's tile: the host's screen shows it).
RULES_REFUSED = "rules-refused"
# Marked here, translated where raised (the request's language).
CANCELLED_BY_HOST = N_(
    "The table host cancelled the last ruling: it cannot be proposed again as it was. Play "
    "goes on; every player confirms their hand again before a new ruling."
)


class HeldForHost(Conflict):
    """The ruling is held for the table host (the round's ledger does not let it go on, or
    the rules engine refused the round's state): the round changed (the ruling waits, the
    hands are locked), though the request is refused. Its message names no tile for a
    player; the host reads why."""


@dataclass(frozen=True)
class Ruled:
    """What `rule` did.

    Attributes:
        ended: the round was scored (`result`: the store's `end_round`).
        held: the ruling waits for the host's confirmation (`pending`).
        outcome: a block check's stored outcome (`lifecycle.check_outcome`, with the
            store's `id` where it keeps one), None for a domino.
    """

    by: str
    who: str
    ended: bool = False
    held: bool = False
    outcome: dict[str, Any] | None = None
    pending: dict[str, Any] | None = None
    result: dict[str, Any] | None = None


def _judge(by: str, who: str, state: dict[str, Any]) -> Any:
    """The rules engine's pure answer: the block verdict, or the domino's score. A refusal is
    worded in the request's language; the answer is stored, machine output in English."""
    parsed = parse_state(state)
    with use_language(DEFAULT_LANGUAGE):
        return check(parsed) if by == "block" else score_domino(parsed, who)


def lock(store: RoundStore, rnd: RoundRow, reason: str, author: str) -> RoundRow:
    """Lock the hands of `rnd` for `reason` (stored English, a `wording` phrase; inside the
    transaction): from now on only the host changes a hand, with a reason. A lock already
    there stays as it is. Returns the round as it is now."""
    if rnd.locked_by:
        return rnd
    store.set_lock(rnd, reason)
    store.record(rnd, _note("lock", author, wording.HANDS_LOCKED.format(text=reason)))
    store.changed("round", {"action": "locked"})
    return store.open_round()


def _lock(store: RoundStore, rnd: RoundRow, pending: Mapping[str, Any], author: str) -> RoundRow:
    """`lock` for the ruling `pending`."""
    who = pending["proposer"] if pending["by"] == "block" else pending["player"]
    return lock(store, rnd, lifecycle.lock_reason(pending["by"], who), author)


def _hold_for_host(
    store: RoundStore,
    rnd: RoundRow,
    pending: dict[str, Any],
    reasons: list[str],
    author: str,
    entry: AuditEntry,
) -> None:
    """Hold the ruling (`pending`) for the host's check and lock the hands (inside the
    transaction: a ruling held for the host is what locks them). Stored once for both
    modes: the held ruling with `"waiting": true` and its reasons, and `entry` (action
    "review": why, for the host; its public text says only that the host checks)."""
    held = dict(pending, waiting=True, reasons=reasons)
    held.update(lifecycle.held_ruling(held))
    store.set_pending_end(rnd, held)
    store.set_host_check(rnd, reasons)
    store.record(rnd, entry)
    store.changed("review", {"action": "host-checking"})
    _lock(store, rnd, pending, author)


def _refuse_after_cancel(store: RoundStore, rnd: RoundRow) -> None:
    """A player's ruling right after the host cancelled one: play goes on, and every hand is
    confirmed again before a new ruling (nothing a phone sends brings the cancelled one
    back).

    Raises:
        Conflict: the host's last decision on a ruling was a cancel, and a hand is still to
            be confirmed again since.
    """
    if store.last_decision(rnd) != "cancel":
        return
    if any(hand.state is HandState.TO_CONFIRM for hand in store.facts(rnd).hands):
        raise Conflict(_(CANCELLED_BY_HOST), "cancelled_by_host")


def rule(
    store: RoundStore,
    by: str,
    who: str,
    *,
    author: str,
    confirm: bool = False,
) -> Ruled:
    """A block proposed by `who`, or domino called by `who` (who went out): judged by the
    rules engine after the round's ledger, then held for the host (which locks the hands)
    or, when the host rules with `confirm`, scored (`store.end_round`).

    In order, a ruling is refused (409, nothing changes) while another ruling waits, while
    the host checks the round (a player's), right after the host cancelled one (a
    player's, until every hand is confirmed again), while a hand is missing or to be
    confirmed again, or while the table reading needs the host's check. Then it is held
    for the host (the hands locked; the caller hears only that the host checks) when the
    round's ledger does not let it go on, or when the rules engine refuses the round's
    state (its message may name a tile: it goes to the host). A block check that stops
    locks nothing: play goes on, every hand is confirmed again before the next ruling.

    The whole ruling is one transaction holding the round: a hand saved meanwhile lands
    before it (and is judged) or after it (and finds the hands locked, or to confirm).

    Args:
        author: who gives the ruling: `lifecycle.HOST` (the host's page, or scoring a held
            ruling) or the player's name. Only the host's ruling with `confirm` scores.

    Raises:
        Conflict: refused (above).
        HeldForHost: held for the host (the hold and its lock are committed).
    """
    by_host = author == HOST
    confirm = confirm and by_host
    pending: dict[str, Any] = (
        {"by": "block", "proposer": who} if by == "block" else {"by": "domino", "player": who}
    )
    refusal: Conflict | None = None
    with store.transaction():
        rnd = store.open_round()
        held = None if rnd.pending_end is None else dict(rnd.pending_end)
        lifecycle.refuse_other_ruling(held, by, who, confirm)
        checking = store.host_checking(rnd)
        if checking and not by_host:
            raise Conflict(
                ledger_words.public_message(checking), "held_for_host", reasons=list(checking)
            )
        if not by_host:
            _refuse_after_cancel(store, rnd)
        if by == "block":
            state = store.rules_state(rnd, proposer=who)
        else:
            state = store.rules_state(rnd, empty_hand=who)
        # Judged as the host's ruling, whoever asks: a player's ruling never scores (it is
        # held for the host either way), so counts that do not close are the host's to
        # weigh when they score it (their screen says so), not a reason to refuse it.
        decision = decide(
            store.facts(rnd), Ruling(by), who if by == "domino" else None, by_host=True
        )
        if isinstance(decision, RulingWait) and WaitReason.HANDS_TO_CONFIRM in decision.reasons:
            # Refused before anything locks: the owners confirm (as it is, or corrected).
            raise Conflict(
                ledger_words.to_confirm_message(decision.to_confirm),
                "hands_to_confirm",
                players=list(decision.to_confirm),
            )
        store.refuse_doubtful_table(rnd)
        floor = boneyard_floor(decision) if by == "block" else None
        go: RulingGo | None = None
        if isinstance(decision, RulingGo):
            go = decision
        elif floor is not None:
            # Only the counts are missing: a player who can play stops the check whatever
            # the boneyard holds; when nobody can, the count decides and the host enters it.
            go = RulingGo(decision.ledger, floor)
        judged: Any = None
        if go is None:
            assert isinstance(decision, RulingWait)
            refusal = _held(store, rnd, pending, decision, author)
        else:
            state["boneyard"] = go.boneyard
            try:
                judged = _judge(by, who, state)
            except UserInputError as error:
                refusal = _refused_state(store, rnd, pending, error, author)
            else:
                if isinstance(decision, RulingWait) and _nobody_can_play(judged):
                    # Nobody can play on the floor: the boneyard's count decides (the host's).
                    refusal = _held(store, rnd, pending, decision, author)
        if refusal is None:
            assert go is not None
            return _ruled(store, rnd, Judged(by, who, judged, state, go, author), confirm)
    # Raised once the hold (and its lock) is committed.
    raise refusal


def _nobody_can_play(verdict: Any) -> bool:
    """Condition 1 of a block holds in the engine's verdict (nobody can play a tile)."""
    return bool(verdict.to_json()["conditions"]["no_playable_end"])


def _held(
    store: RoundStore,
    rnd: RoundRow,
    pending: dict[str, Any],
    decision: RulingWait,
    author: str,
) -> HeldForHost:
    """Hold for the round's ledger; the refusal to raise once committed. The host reads
    why, problem by problem (which tile, where, whose hand), in the audit trail and in the
    answer to their own ruling; everybody else reads only `ledger_words.public_message`."""
    reasons = [str(reason) for reason in decision.reasons]
    ledger = decision.ledger

    def host_lines() -> list[str]:
        return ledger_words.wait_text(reasons, decision.to_confirm) + [
            problem_text(problem, ledger.max_pip) for problem in ledger.problems
        ]

    with use_language(DEFAULT_LANGUAGE):  # stored: English, the problems' codes beside it
        stored = " ".join(host_lines())
    problems = [problem.to_dict() for problem in ledger.problems]
    entry = AuditEntry(
        "review",
        "ledger",
        stored,
        wording.HELD_FOR_HOST,
        None,
        {"waits": reasons, "problems": problems},
    )
    _hold_for_host(store, rnd, pending, reasons, author, entry)
    if author == HOST:
        return HeldForHost(" ".join(host_lines()), "held_for_host", reasons=reasons)
    return HeldForHost(ledger_words.public_message(reasons), "held_for_host", reasons=reasons)


def _refused_state(
    store: RoundStore,
    rnd: RoundRow,
    pending: dict[str, Any],
    error: UserInputError,
    author: str,
) -> HeldForHost:
    """The rules engine refused the round's state (for example a tile held twice). Its
    message may name a hand's tiles: it goes to the host (an entry shown in full once the
    round ends, and the host's correction screen); the ruling is held for the host, the
    hands lock, and the caller hears only that a tile needs checking."""
    entry = AuditEntry(
        "review",
        "rules",
        wording.RULES_REFUSED.format(error=str(error)),
        wording.TILE_NEEDS_CHECKING,
        None,
        {"waits": [RULES_REFUSED]},
    )
    _hold_for_host(store, rnd, pending, [RULES_REFUSED], author, entry)
    return HeldForHost(_(ledger_words.HOST_CHECKING), "held_for_host", reasons=[RULES_REFUSED])


def _ruled(store: RoundStore, rnd: RoundRow, judged: Judged, confirm: bool) -> Ruled:
    """`rule`'s judged ruling, inside its transaction: a block check that stops (nothing
    locks, play goes on), the round scored (the host's `confirm`), or the ruling held for
    the host's confirmation (the hands lock)."""
    by, who = judged.by, judged.who
    pending = {"by": "block", "proposer": who} if by == "block" else {"by": "domino", "player": who}
    # Reached while the host checks only by the host's own ruling: the check is done.
    store.set_host_check(rnd, None)
    outcome = None
    if by == "block":
        declared = {p["name"] for p in judged.state["players"] if p.get("declared_cannot_play")}
        verdict = judged.value.to_json()
        outcome = lifecycle.check_outcome(who, verdict, declared)
        check_id = store.record_check(rnd, who, verdict, outcome)
        if check_id is not None:
            outcome["id"] = check_id
        if not judged.value.blocked:
            # Stopped: nothing locks; play goes on, each hand confirmed again before the
            # next ruling (tiles are played from now on).
            play_goes_on(store, rnd)
            store.changed("block_check", {"outcome": lifecycle.public_outcome(outcome)})
            return Ruled(by, who, outcome=outcome)
    # Locked as it is held, or as it ends (kept if the host reopens the round).
    rnd = _lock(store, rnd, pending, judged.author)
    if confirm:
        result = store.end_round(rnd, judged)
        if outcome is not None:
            store.changed("block_check", {"outcome": lifecycle.public_outcome(outcome)})
        return Ruled(by, who, ended=True, outcome=outcome, result=result)
    if outcome is not None and "id" in outcome:
        pending["check"] = outcome["id"]
    held = lifecycle.held_ruling(pending)
    store.set_pending_end(rnd, held)
    store.record(rnd, _note("held", judged.author, held["text"]))
    if outcome is not None:
        outcome["awaiting_confirmation"] = True
        store.changed("block_check", {"outcome": lifecycle.public_outcome(outcome)})
    else:
        store.changed("round", {"action": "domino-called"})
    return Ruled(by, who, held=True, outcome=outcome, pending=held)
