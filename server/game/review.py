"""What must be checked by the host before the round can be ruled: a doubtful table reading,
and the round's ledger (every tile of the set in exactly one place).

* **The table reading.** A Scene with `needs_review: true` or a tile with `doubtful: true`
  (the reader is unsure, docs/design.md "Scene JSON") is not ruled on silently: the block
  check and the domino answer 409 until the host has checked the reading
  (`mark_table_checked`) or corrected it.
  The check holds for the doubts it saw (`doubt_signature`): a new doubt needs a new check.
  Scenes without these keys have no doubt.
* **The round's ledger** (`dominocam.rounds.ledger`, issue 32). Before a ruling the table,
  the hands and the boneyard are counted against the set (`decide`): a tile in two places
  (two hands, the table and a hand), a tile missed, a hand not confirmed since play went on,
  or a draw game's boneyard nobody counted holds the ruling (`dominocam.rounds.operations.rule`).
  Which tile and whose hand goes to the host's correction screen (`host_review`: the set as
  a picture, each problem in words), never to a player or the public table before the round
  ends; the public state says only that the host is checking (`host_checking`), a flag that
  the host's actions alone set and clear, so that saving tiles can never probe another hand.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from dominocam.i18n import N_, _
from dominocam.rounds import ledger_words, operations, wording
from dominocam.rounds.ledger import (
    HandState,
    Override,
    RoundFacts,
    SeatHand,
    on_table,
    round_facts,
    table_report,
)
from dominocam.rounds.lifecycle import Conflict
from dominocam.rules import phrases
from dominocam.rules.tiles import Tile
from dominocam.server import storage
from dominocam.server.game import audit
from dominocam.server.game.records import get_game, open_round, players, round_hands
from dominocam.server.storage import dumps, loads, transaction
from dominocam.vision.notes import detail_text, notes_json, notes_of, player_text

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
    """A Scene's warnings as a player reads them, in the current language: what to check and
    where, written from each warning's code (`dominocam.vision.notes.player_text`), each sentence
    once (several warnings may ask the same check). The Scene's own `warnings` stay English
    (machine output); a warning without a code is shown as its text."""
    shown: list[str] = []
    for warning in notes_of(scene or {}):
        text = player_text(warning)
        if text not in shown:
            shown.append(text)
    return shown


def warning_details(scene: dict[str, Any] | None) -> list[str]:
    """A Scene's warnings as the reader gave them, for the host: tile numbers and
    probabilities, in the current language (`dominocam.vision.notes.detail_text`)."""
    return [detail_text(w) for w in notes_of(scene or {})]


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
    """Raise a player-facing 409 while the table reading needs the host's check."""
    if table_needs_check(rnd):
        scene = loads(rnd["table_scene"], {})
        raise Conflict(
            " ".join([_(TABLE_NEEDS_CHECK), *shown_warnings(scene)]),
            "table_needs_check",
            notes=notes_json(notes_of(scene or {})),
        )


# --- the round's ledger -------------------------------------------------------------------------


def hand_state(row: sqlite3.Row | None) -> HandState:
    """Where a stored hand stands (`round_ledger.HandState`)."""
    if row is not None and row["confirmed_at"] is not None:
        return HandState.TO_CONFIRM if row["to_confirm"] else HandState.CONFIRMED
    if row is not None and row["pending"] is not None:
        return HandState.PENDING
    return HandState.NONE


def seat_hands(conn: sqlite3.Connection, game_id: int, round_id: int) -> list[SeatHand]:
    """Every seat's hand as the ledger takes it, in seat order (holds every hand's tiles)."""
    held = round_hands(conn, round_id)
    out = []
    for p in players(conn, game_id):
        row = held.get(p["id"])
        state = hand_state(row)
        column = "pending" if state is HandState.PENDING else "tiles"
        tiles = loads(row[column], []) if row is not None else []
        out.append(SeatHand(p["name"], state, tuple(Tile.of(a, b) for a, b in tiles)))
    return out


def stored_override(rnd: sqlite3.Row) -> Override | None:
    data = loads(rnd["ledger_override"], None)
    return None if data is None else Override(data["problems"], data["reason"])


def facts(conn: sqlite3.Connection, game_id: int, rnd: sqlite3.Row) -> RoundFacts:
    """The round as the ledger takes it (`round_ledger.round_facts`)."""
    game = get_game(conn, game_id)
    return round_facts(
        variant=game["variant"],
        rules=loads(game["rules"], {}),
        max_pip=game["set_max"],
        table_scene=loads(rnd["table_scene"], None),
        hands=seat_hands(conn, game_id, rnd["id"]),
        boneyard=rnd["boneyard"],
        boneyard_source=rnd["boneyard_source"],
        override=stored_override(rnd),
        hand_size=game["deal"],
    )


def host_check(rnd: sqlite3.Row) -> list[str]:
    """Why a ruling of the open round waits for the host (empty: it does not)."""
    if rnd["status"] != "open":
        return []
    return list((loads(rnd["host_check"], None) or {}).get("reasons") or [])


def _went_out(rnd: sqlite3.Row) -> str | None:
    """The player a held domino says went out (their hand counts as empty)."""
    pending = loads(rnd["pending_end"], None) or {}
    return pending.get("player") if pending.get("by") == "domino" else None


def public_review(rnd: sqlite3.Row) -> dict[str, Any]:
    """What the table may say about pending checks: flags and sentences, no tile of a hand.

    `host_checking` is set when a ruling is held for the host and cleared by the host's
    actions only: nothing a player saves changes it, so it answers no question about
    another player's hand."""
    table = rnd["status"] == "open" and table_needs_check(rnd)
    reasons = host_check(rnd)
    messages = [_(TABLE_NEEDS_CHECK)] if table else []
    if reasons:
        messages.append(ledger_words.public_message(reasons))
    return {"table": table, "host_checking": bool(reasons), "messages": messages}


def player_notices(rnd: sqlite3.Row, row: sqlite3.Row | None) -> dict[str, Any]:
    """What only this hand's owner reads about it: tiles of their hand the table photo shows
    face up ("2-6 is now on the table"), and whether to confirm it again."""
    tiles = [Tile.of(a, b) for a, b in loads(row["tiles"], [])] if row is not None else []
    scene = loads(rnd["table_scene"], None)
    shown = on_table(tiles, table_report(scene)) if rnd["status"] == "open" else ()
    return {
        "on_table": [t.as_list() for t in shown],
        "on_table_text": ledger_words.owner_on_table(shown) if shown else None,
        "to_confirm": hand_state(row) is HandState.TO_CONFIRM and rnd["status"] == "open",
    }


def host_review(conn: sqlite3.Connection, game_id: int) -> dict[str, Any]:
    """Everything the host's correction screen needs to check (admin only)."""
    rnd = open_round(conn, game_id)
    scene = loads(rnd["table_scene"], None) or {}
    return {
        "table_needs_check": table_needs_check(rnd),
        "needs_review": bool(scene.get("needs_review")),
        "warnings": list(scene.get("warnings") or []),
        "warnings_shown": shown_warnings(scene),
        # The reader's own account (tile numbers, probabilities): the host's details.
        "warnings_details": warning_details(scene),
        "doubtful": [t.get("id") for t in doubtful_tiles(scene)],
        "rejected": list(scene.get("rejected") or []),
        "hand_conflicts": hand_conflicts(conn, game_id, rnd["id"]),
        "rules_refusal": _latest_refusal(conn, rnd),
        "ledger": ledger_review(conn, game_id, rnd),
    }


def ledger_review(conn: sqlite3.Connection, game_id: int, rnd: sqlite3.Row) -> dict[str, Any]:
    """The round's ledger for the host: the set as cells, each problem in words, and what the
    host's ruling waits for now (admin only: it names hands' tiles)."""
    return {
        **ledger_words.host_ledger(
            facts(conn, game_id, rnd), _went_out(rnd), rnd["boneyard"], rnd["boneyard_source"]
        ),
        "host_checking": host_check(rnd),
    }


def _latest_refusal(conn: sqlite3.Connection, rnd: sqlite3.Row) -> str | None:
    """The rules engine's last refusal of this round, in its own words (it may name a hand's
    tile: admin only), while the round waits for the host because of it."""
    if operations.RULES_REFUSED not in host_check(rnd):
        return None
    row = conn.execute(
        "SELECT detail FROM audit WHERE round_id = ? AND action = 'review' "
        "AND author = 'rules' ORDER BY id DESC LIMIT 1",
        (rnd["id"],),
    ).fetchone()
    if row is None:
        return None
    detail = loads(row["detail"], {})
    return phrases.said(str(detail.get("text")), detail.get("words"))
