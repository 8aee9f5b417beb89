"""The hand lifecycle and the round's rulings as rules, independent of any database.

One place for each rule of a round the table can trust, called by both stores: the embedded SQLite
one (`dominocam.server.game.hands`, `dominocam.server.game.rulings`) and the tournament's PostgreSQL
one (`dominocam.tournament.rounds`). The stores read rows, call these functions with plain values,
and write what they return; nothing here touches a connection.

* A photo's reading is *pending* until its owner confirms it, as read or corrected
  (`confirm_change`); only then is the hand in.
* A ruling held for the host's decision *locks* the round's hands (`lock_reason`); a refused
  ruling or a block check that stops locks nothing. After that only the host changes a
  hand, and says why (`confirm_change`).
* Tiles typed instead of a photo's pending reading leave an entry for the host alone
  (`HandChange.typed`, `typed_over_reading`, `HOST_ONLY`).
* Every change of a confirmed hand is an `AuditEntry`: `text` may name tiles and is shown
  to everybody once the round ends; `public_text` names no tile and is shown at once
  (`shown_entry`).
* A ruling that ends the round is *held* until the host confirms it (`held_ruling`,
  `refuse_other_ruling`); the scoreboard counts only confirmed rounds.
* When play goes on again after a ruling was sought (the host unlocking the hands after a
  block check that stopped or a domino called by mistake, or reopening a round), every
  confirmed hand is *to confirm* again: its owner confirms it, as it is or corrected, before
  the next ruling (`round_ledger.decide` waits). Confirming it as it is needs no reason even
  once the hands are locked: nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dominocam.errors import Refused
from dominocam.i18n import _
from dominocam.rounds import wording
from dominocam.rules import phrases
from dominocam.rules.tiles import Tile, parse_tile


class Conflict(Refused):
    """The request is well formed but does not fit the round's state (an ended round, locked
    hands, a ruling waiting): HTTP 409 in both web apps."""


# The author of what the table's host (or, in a tournament, the event director) does.
HOST = "host"
# A reason is kept whole up to this length (it goes to the audit trail).
MAX_REASON = 300
# Tiles typed instead of a photo's reading (`confirm_change`'s `typed` entry).
TYPED_OVER_READING = "typed"
# Audit actions for the table's host alone: no public list shows them, not even after the
# round, since their mere presence says something of a hand.
HOST_ONLY: tuple[str, ...] = (TYPED_OVER_READING,)


@dataclass(frozen=True)
class AuditEntry:
    """One change for the audit trail; `public_text` names no tile and no pip total."""

    action: str
    author: str
    text: str
    public_text: str
    reason: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HandChange:
    """What confirming a hand writes: the tiles that are now the hand, the host's reason
    (if any), the audit entry when a confirmed hand changed, and `typed`, the host-only
    entry (`HOST_ONLY`) when tiles were typed instead of a photo's pending reading."""

    tiles: list[list[int]]
    reason: str | None
    audit: AuditEntry | None
    typed: AuditEntry | None = None


def require_reason(reason: object, what: str) -> str:
    """The host's reason as stored text; a clear error when it is missing."""
    text = str(reason or "").strip()[:MAX_REASON]
    if not text:
        raise Refused(
            _("{what} needs a reason (kept in the audit trail): send 'reason'").format(what=what),
            "reason_needed",
        )
    return text


def parse_hand(raw: object, set_max: int) -> list[list[int]]:
    """A hand as `[[a, b], ...]`: tiles of the set, each once."""
    if not isinstance(raw, list):
        raise Refused(_("'tiles' must be a list of [a, b] pairs"), "tiles_not_a_list")
    tiles = [parse_tile(t, set_max) for t in raw]
    seen: set[Tile] = set()
    for tile in tiles:
        if tile in seen:
            raise Refused(
                _("tile {tile} is listed twice; a set has each tile once").format(tile=tile),
                "tile_twice",
                tile=tile.as_list(),
            )
        seen.add(tile)
    return [t.as_list() for t in tiles]


def locked_message(locked_by: str) -> str:
    """Why a change is refused, in the reader's language (`locked_by`: the lock's reason, a
    `dominocam.rules.phrases.Phrase`, or its stored English when it has no code)."""
    return _(
        "the hands are locked ({why}): only the host can change a hand now, with a reason"
    ).format(why=phrases.said(locked_by))


def hands_locked(locked_by: str) -> Conflict:
    """The refusal of a player's change once the hands are locked: code `hands_locked`, the
    lock's reason as its sentence's code and parameters (`dominocam.rules.phrases.to_json`)."""
    return Conflict(locked_message(locked_by), "hands_locked", reason=phrases.to_json(locked_by))


def refuse_if_locked(locked_by: str | None) -> None:
    """A player's own change (a photo, a declaration) is refused once the hands are locked."""
    if locked_by:
        raise hands_locked(locked_by)


def lock_reason(action: str, who: str) -> str:
    """Why the hands lock, as stored (English, from a `wording` template): `action` is
    "block" (proposed) or "domino" (called)."""
    if action == "block":
        return wording.PROPOSED_A_BLOCK.format(name=who)
    if action == "domino":
        return wording.CALLED_DOMINO.format(name=who)
    raise Refused(_("a round is ruled on by 'block' or 'domino'"), "unknown_ruling", by=action)


def _pips(tiles: list[list[int]]) -> int:
    return sum(a + b for a, b in tiles)


def tiles_text(tiles: list[list[int]]) -> str:
    return " ".join(f"{a}-{b}" for a, b in tiles) or "no tiles"


def confirm_change(
    *,
    player: str,
    author: str,
    locked_by: str | None,
    reason: object,
    tiles: object,
    pending: list[list[int]] | None,
    before: list[list[int]] | None,
    set_max: int,
    to_confirm: bool = False,
) -> HandChange:
    """The hand `player` has once `author` confirms it.

    Args:
        author: the player's own name, or `HOST`.
        locked_by: why the round's hands are locked, or None while they are not.
        tiles: the tiles given (a correction, or typed in), or None to take `pending`
            (or, with no reading, the hand as it is when it is `to_confirm`).
        pending: the photo's reading awaiting confirmation, if any.
        before: the confirmed hand so far, or None when it was never confirmed.
        to_confirm: play went on since `before` was confirmed: its owner confirms it again.

    Raises:
        Conflict: the hands are locked and the author is not the host (unless the owner
            confirms a hand to confirm as it is), or there is neither a reading nor tiles
            to confirm.
        UserInputError: bad tiles, or the host changes a locked hand without a reason.
    """
    by_host = author == HOST
    if locked_by and not by_host and not to_confirm:
        raise hands_locked(locked_by)
    why = None
    if locked_by and by_host:
        why = str(reason or "").strip()[:MAX_REASON]
        if not why:
            # Read on the host's page (the request without 'reason' is still a 400).
            raise Refused(
                _(
                    "The hands are locked: give a reason for the change (it is kept in the "
                    "audit trail)."
                ),
                "reason_needed",
            )
    elif by_host and reason:
        why = str(reason).strip()[:MAX_REASON] or None
    typed_in = tiles is not None
    if tiles is None:
        if pending is not None:
            tiles = pending
        elif to_confirm and before is not None:
            tiles = before
        else:
            raise Conflict(
                _("there is no photo reading to confirm: take a photo or save tiles"),
                "nothing_to_confirm",
            )
    parsed = parse_hand(tiles, set_max)
    if locked_by and not by_host and not (before is not None and sorted(before) == sorted(parsed)):
        # A hand to confirm, once locked: its owner confirms it as it is, or the host fixes it.
        raise hands_locked(locked_by)
    entry = None
    if before is not None and sorted(before) != sorted(parsed):
        # Stored in English from `wording`'s templates; pages show them translated.
        changed = wording.HOST_CHANGED_HAND if by_host else wording.PLAYER_CHANGED_HAND
        public = wording.HOST_CHANGED_HAND_PUBLIC if by_host else wording.PLAYER_CHANGED_HAND_PUBLIC
        entry = AuditEntry(
            action="hand",
            author=author,
            text=changed.format(
                who=player,
                name=player,
                before=tiles_text(before),
                before_pips=_pips(before),
                after=tiles_text(parsed),
                after_pips=_pips(parsed),
            ),
            public_text=public.format(
                who=player, name=player, before=len(before), after=len(parsed)
            ),
            reason=why,
            detail={"player": player, "before": before, "after": parsed},
        )
    typed = None
    if typed_in and pending is not None and sorted(pending) != sorted(parsed):
        typed = typed_over_reading(player, author, pending, parsed)
    return HandChange(parsed, why, entry, typed)


def typed_over_reading(
    player: str, author: str, reading: list[list[int]], typed: list[list[int]]
) -> AuditEntry:
    """Tiles typed instead of a photo's reading: an entry for the table's host alone
    (`HOST_ONLY`), with both lists. Nobody else hears of it, not even that it happened: it
    would tell them something of the hand."""
    text = wording.TYPED_OVER_READING.format(
        who=author, name=player, reading=tiles_text(reading), typed=tiles_text(typed)
    )
    return AuditEntry(
        action=TYPED_OVER_READING,
        author=author,
        text=text,
        public_text=text,
        detail={"player": player, "reading": reading, "typed": typed},
    )


def replaced_entry(action: str, author: str, time: str, detail: dict[str, Any]) -> dict[str, Any]:
    """One thing typed over a hand, for the host's view of it (`replaced`): over a photo's
    reading (a `TYPED_OVER_READING` entry) or over an earlier confirmed list (a "hand"
    entry): `{"time", "author", "source": "photo" | "hand", "reading", "typed"}`."""
    photo = action == TYPED_OVER_READING
    return {
        "time": time,
        "author": author,
        "source": "photo" if photo else "hand",
        "reading": detail.get("reading") if photo else detail.get("before"),
        "typed": detail.get("typed") if photo else detail.get("after"),
    }


def held_ruling(pending: dict[str, Any]) -> dict[str, Any]:
    """A ruling that would end the round, with the text everybody sees while it waits for
    the host: `{"by": "block", "proposer"}` or `{"by": "domino", "player"}`; with
    `"waiting": true` it is not judged yet, the host checks the round first (its ledger,
    `dominocam.rounds.ledger`)."""
    block = pending["by"] == "block"
    if pending.get("waiting"):
        template = wording.HELD_BLOCK_CHECKING if block else wording.HELD_DOMINO_CHECKING
    else:
        template = wording.HELD_BLOCK if block else wording.HELD_DOMINO
    return dict(pending, text=template.format(name=pending["proposer" if block else "player"]))


def refuse_other_ruling(pending: dict[str, Any] | None, by: str, who: str, confirm: bool) -> None:
    """While a ruling waits for the host, only confirming that same ruling goes on.

    Raises:
        Conflict: another ruling (or the same one without confirmation) is waiting.
    """
    if pending is None:
        return
    key = "proposer" if by == "block" else "player"
    if confirm and pending.get("by") == by and pending.get(key) == who:
        return
    raise Conflict(
        _("{text} The host scores the round or cancels first.").format(
            text=phrases.said(held_ruling(pending)["text"])
        ),
        "ruling_waiting",
        by=pending.get("by"),
    )


def shown_entry(
    text: str, public_text: str, reason: str | None, round_ended: bool
) -> dict[str, str | None]:
    """An audit entry as anybody may see it now: while its round is open, its public text
    only (a host's reason may name a tile of a hand, so it waits for the round's end too)."""
    return {
        "text": text if round_ended else public_text,
        "reason": reason if round_ended else None,
    }


def public_outcome(outcome: dict[str, Any]) -> dict[str, Any]:
    """A block-check outcome as anybody may see it while the round is open: who stopped the
    check and whether it was a foul, not which tile they hold or where it goes."""
    shown = dict(outcome)
    if shown.get("stopped"):
        shown["stopped"] = {
            k: v for k, v in shown["stopped"].items() if k in ("player", "foul", "foul_by")
        }
    return shown


def foul_by(foul: bool, said_cannot_play: bool, is_proposer: bool) -> str | None:
    """What the player did that makes it a foul, so the pages word it as it happened:
    "declared" (they said "cannot play"), "proposed" (they only proposed the block, which
    counts as that declaration), or None (no foul)."""
    if not foul:
        return None
    if said_cannot_play:
        return "declared"
    return "proposed" if is_proposer else "declared"


def check_outcome(proposer: str, verdict: dict[str, Any], declared: set[str]) -> dict[str, Any]:
    """The outcome of a block check from the rules engine's verdict: the confirmations in
    turn and where they stopped (the tile and line too: shown to that player only, and to
    everybody once the round ends).

    Args:
        declared: the players who declared "cannot play" this round.
    """
    steps = [
        {
            "player": s.get("player"),
            "can_play": bool(s.get("can_play")),
            "declared": bool(s.get("declared")),
            "foul": bool(s.get("foul")),
        }
        for s in verdict.get("verification") or []
    ]
    stopped = None
    if not verdict.get("blocked"):
        first = next((s for s in steps if s["can_play"]), None)
        if first is not None:
            move: dict[str, Any] = next(
                (m for m in verdict.get("playable") or [] if m.get("player") == first["player"]),
                {},
            )
            said_cannot_play = first["player"] in declared
            foul = first["foul"] or said_cannot_play
            stopped = {
                "player": first["player"],
                "tile": move.get("tile"),
                "line": move.get("line"),
                "foul": foul,
                "foul_by": foul_by(foul, said_cannot_play, first["player"] == proposer),
            }
        else:
            stopped = {"player": None, "tile": None, "line": None, "foul": False, "foul_by": None}
    conditions = verdict.get("conditions") or {}
    return {
        "proposer": proposer,
        "blocked": bool(verdict.get("blocked")),
        "conditions": conditions,
        "steps": steps,
        "stopped": stopped,
        "boneyard_reason": (
            None
            if conditions.get("boneyard_exhausted", True)
            else "tiles can still be drawn from the boneyard"
        ),
    }
