"""What must be checked by the host before the round can be ruled: a doubtful table reading
and hands that contradict each other.

* **The table reading.** A Scene with `needs_review: true` or a tile with `doubtful: true`
  (the reader is unsure, DESIGN.md) is not ruled on silently: the block check and the domino
  answer 409 until the host has checked the reading (`mark_table_checked`) or corrected it.
  The check holds for the doubts it saw (`doubt_signature`): a new doubt needs a new check.
  Scenes without these keys have no doubt.
* **Hands that contradict each other.** A tile confirmed in two hands is a misread or a slip.
  The players are told only that a tile needs checking; which tile and whose hands goes to
  the host's correction screen (`hand_conflicts`, admin only), never to a player or the
  public table, before the round ends.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from rules.i18n import N_, _
from server import storage
from server.game import audit, wording
from server.game.records import Conflict, open_round, players, round_hands
from server.storage import dumps, loads, transaction
from vision.messages import shown as shown_warning

# Marked here, translated where raised or shown (the request's language).
TABLE_NEEDS_CHECK = N_(
    "The table reading needs checking before a ruling: the host confirms or corrects it on "
    "the correction screen."
)
HANDS_NEED_CHECK = N_(
    "A tile needs checking before a ruling: the host is checking the hands on the correction "
    "screen."
)


def shown_warnings(scene: dict[str, Any] | None) -> list[str]:
    """A Scene's warnings as a person reads them, in the current language (the Scene's own
    `warnings` stay English: machine output, vision.messages)."""
    return [shown_warning(str(w)) for w in (scene or {}).get("warnings") or []]


def doubtful_tiles(scene: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [t for t in (scene or {}).get("tiles") or [] if t.get("doubtful")]


def doubt_signature(scene: dict[str, Any] | None) -> str | None:
    """What the reader doubts in a Scene, as text (None when it doubts nothing): the host's
    check holds while this stays the same."""
    if not scene:
        return None
    doubtful = doubtful_tiles(scene)
    if not scene.get("needs_review") and not doubtful:
        return None
    return dumps(
        {
            "needs_review": bool(scene.get("needs_review")),
            # A camera tile keeps its track while it stays; a photo's tiles keep their ids.
            "tiles": sorted(
                ([t.get("track", t.get("id")), t.get("pips")] for t in doubtful), key=dumps
            ),
            "warnings": list(scene.get("warnings") or []),
        }
    )


def table_needs_check(rnd: sqlite3.Row) -> bool:
    signature = doubt_signature(loads(rnd["table_scene"], None))
    return signature is not None and signature != rnd["table_checked"]


def mark_table_checked(conn: sqlite3.Connection, game_id: int) -> None:
    """The host has looked at the table reading: its current doubts do not stop a ruling."""
    with transaction(conn):
        rnd = open_round(conn, game_id)
        scene = loads(rnd["table_scene"], None)
        conn.execute(
            "UPDATE rounds SET table_checked = ? WHERE id = ?",
            (doubt_signature(scene), rnd["id"]),
        )
        audit.record(
            conn, game_id, rnd["id"], "table-checked", audit.HOST, wording.HOST_CHECKED_TABLE
        )
        storage.add_event(conn, game_id, "table", {"action": "checked"})


def hand_conflicts(conn: sqlite3.Connection, game_id: int, round_id: int) -> list[dict[str, Any]]:
    """Tiles confirmed in more than one hand: `[{"tile": [a, b], "players": [names]}]`.

    Admin only: it names tiles of hands."""
    names = {p["id"]: p["name"] for p in players(conn, game_id)}
    holders: dict[tuple[int, int], list[str]] = {}
    for player_id, row in round_hands(conn, round_id).items():
        if row["confirmed_at"] is None:
            continue
        for a, b in loads(row["tiles"], []):
            holders.setdefault((min(a, b), max(a, b)), []).append(names.get(player_id, "?"))
    return [
        {"tile": list(tile), "players": who}
        for tile, who in sorted(holders.items())
        if len(who) > 1
    ]


def refuse_unchecked(conn: sqlite3.Connection, game_id: int, rnd: sqlite3.Row) -> None:
    """Raise a player-facing 409 when the round cannot be ruled on yet.

    A hand conflict is flagged on the round (`hands_to_check`) so that the public table says
    a tile needs checking; the host's screen lists which."""
    if table_needs_check(rnd):
        warnings = loads(rnd["table_scene"], {}).get("warnings") or []
        shown = [shown_warning(str(w)) for w in warnings]
        raise Conflict(" ".join([_(TABLE_NEEDS_CHECK), *shown]))
    if hand_conflicts(conn, game_id, rnd["id"]):
        with transaction(conn):
            conn.execute("UPDATE rounds SET hands_to_check = 1 WHERE id = ?", (rnd["id"],))
            storage.add_event(conn, game_id, "review", {"action": "hands"})
        raise Conflict(_(HANDS_NEED_CHECK))


def public_review(conn: sqlite3.Connection, game_id: int, rnd: sqlite3.Row) -> dict[str, Any]:
    """What the table may say about pending checks: flags and sentences, no tile of a hand."""
    table = rnd["status"] == "open" and table_needs_check(rnd)
    hands_flag = (
        rnd["status"] == "open"
        and bool(rnd["hands_to_check"])
        and bool(hand_conflicts(conn, game_id, rnd["id"]))
    )
    messages = [
        _(m) for m, on in ((TABLE_NEEDS_CHECK, table), (HANDS_NEED_CHECK, hands_flag)) if on
    ]
    return {"table": table, "hands": hands_flag, "messages": messages}


def host_review(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """Everything the host's correction screen needs to check (admin only)."""
    rnd = open_round(conn, game_id)
    scene = loads(rnd["table_scene"], None) or {}
    return {
        "table_needs_check": table_needs_check(rnd),
        "needs_review": bool(scene.get("needs_review")),
        "warnings": list(scene.get("warnings") or []),
        "warnings_shown": shown_warnings(scene),
        "doubtful": [t.get("id") for t in doubtful_tiles(scene)],
        "rejected": list(scene.get("rejected") or []),
        "hand_conflicts": hand_conflicts(conn, game_id, rnd["id"]),
        "rules_refusal": _latest_refusal(conn, rnd["id"]),
    }


def _latest_refusal(conn: sqlite3.Connection, round_id: int) -> str | None:
    """The rules engine's last refusal of this round, in its own words (it may name a hand's
    tile: admin only), while the hands have not been judged since."""
    row = conn.execute(
        "SELECT a.detail FROM audit a JOIN rounds r ON r.id = a.round_id WHERE a.round_id = ? "
        "AND a.action = 'review' AND r.hands_to_check = 1 ORDER BY a.id DESC LIMIT 1",
        (round_id,),
    ).fetchone()
    return None if row is None else str(loads(row["detail"], {}).get("text"))
