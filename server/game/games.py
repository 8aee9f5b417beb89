"""Creating a game with its players, starting rounds, finishing a game, its settings.

A game ends by itself when its variant says so (`scoreboard.finish_if_over`); then no round
can start (`start_round`: 409).
"""

from __future__ import annotations

import secrets
import sqlite3
from typing import Any

from dominocam.errors import UserInputError
from dominocam.i18n import _
from dominocam.rounds.lifecycle import Conflict
from dominocam.rules.ledger import make_deal
from dominocam.rules.tiles import SUPPORTED_SETS
from dominocam.rules.variants import VARIANTS, get_variant
from dominocam.server import engine, json_fields, storage
from dominocam.server.game.records import Refused, get_game, get_round
from dominocam.server.game.rulings import rules_state
from dominocam.server.game.scoreboard import finish_if_over, scoreboard
from dominocam.server.storage import dumps, loads, now, transaction

MAX_PLAYERS = 10


def create_game(conn: sqlite3.Connection, spec: dict[str, Any]) -> int:
    """A new game with its players (clockwise seat order) and its first round.

    `spec`: {"name", "variant", "set", "rules": {...}, "players": [{"name", "team"} | "name"]}.
    """
    if not isinstance(spec, dict):
        raise Refused(_("send the game as a JSON object"), "game_not_an_object")
    variant = str(spec.get("variant") or "").strip()
    names = engine.variant_names()
    if variant not in names:
        raise Refused(
            _("unknown variant {variant!r}; valid variants: {names}").format(
                variant=variant, names=", ".join(names)
            ),
            "unknown_variant",
            variant=variant,
            valid=list(names),
        )
    set_max = spec.get("set", 6)
    if set_max not in SUPPORTED_SETS:
        valid = ", ".join(str(n) for n in SUPPORTED_SETS)
        raise Refused(
            _("unknown set double-{set_max}; valid sets: {valid}").format(
                set_max=set_max, valid=valid
            ),
            "unknown_set",
            set=set_max if isinstance(set_max, (int, str)) else str(set_max),
            valid=list(SUPPORTED_SETS),
        )
    rules_overrides = spec.get("rules") or {}
    if not isinstance(rules_overrides, dict):
        raise Refused(_("'rules' must be an object of variant settings"), "rules_not_an_object")
    roster = _parse_players(spec.get("players"))
    deal = parse_deal(spec.get("deal"), variant, rules_overrides, set_max, len(roster))
    name = str(spec.get("name") or "").strip()[:80] or f"{variant} night"
    with transaction(conn):
        cur = conn.execute(
            "INSERT INTO games (name, variant, rules, set_max, deal, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (name, variant, dumps(rules_overrides), set_max, deal, now()),
        )
        game_id = int(cur.lastrowid or 0)
        for seat, (player_name, team) in enumerate(roster):
            conn.execute(
                "INSERT INTO players (game_id, seat, name, team, salt) VALUES (?, ?, ?, ?, ?)",
                (game_id, seat, player_name, team, secrets.token_hex(8)),
            )
        _insert_round(conn, game_id, 1, variant, set_max)
        storage.add_event(conn, game_id, "game", {"action": "created"})
    # Validate the whole setup with the rules engine once, with empty hands and no layout.
    try:
        engine.validate(rules_state(conn, game_id, proposer=roster[0][0], allow_missing=True))
    except UserInputError:
        with transaction(conn):
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        raise
    except engine.EngineUnavailable:
        pass
    return game_id


def parse_deal(
    raw: object, variant: str, overrides: dict[str, Any], set_max: int, players: int
) -> int | None:
    """The tiles the table deals each player, or None for the variant's usual deal (rule
    books differ by a tile or two, and the round's ledger counts from the deal).

    Raises:
        UserInputError: not a whole number >= 1, or more tiles than the set holds.
    """
    if raw in (None, ""):
        return None
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < 1:
        raise Refused(
            _("'deal' must be a whole number of tiles >= 1, got {value!r}").format(value=raw),
            "bad_deal",
        )
    make_deal(get_variant(variant, overrides), players, set_max, raw)  # fits the set
    return raw


def usual_deal(variant: str, overrides: dict[str, Any], players: int) -> int | None:
    """The variant's deal for this many players, or None when it has no row for them."""
    try:
        return get_variant(variant, overrides).hand_size(players)
    except UserInputError:
        return None


def set_deal(conn: sqlite3.Connection, game_id: int, raw: object) -> None:
    """The tiles the table deals each player from now on (None: the variant's)."""
    game = get_game(conn, game_id)
    count = conn.execute("SELECT COUNT(*) FROM players WHERE game_id = ?", (game_id,)).fetchone()
    deal = parse_deal(raw, game["variant"], loads(game["rules"], {}), game["set_max"], count[0])
    with transaction(conn):
        conn.execute("UPDATE games SET deal = ? WHERE id = ?", (deal, game_id))
        storage.add_event(conn, game_id, "game", {"action": "settings"})


def _parse_players(raw: object) -> list[tuple[str, str | None]]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_PLAYERS:
        raise Refused(
            _("list 2 to {max_players} players in clockwise seat order").format(
                max_players=MAX_PLAYERS
            ),
            "bad_players",
            max_players=MAX_PLAYERS,
        )
    roster: list[tuple[str, str | None]] = []
    for entry in raw:
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, dict):
            raise Refused(
                _("each player is a name or an object {{name, team}}").format(), "bad_player"
            )
        for key in ("name", "team"):
            json_fields.check_field(entry, key, json_fields.optional(json_fields.STRING, True))
        name = (entry.get("name") or "").strip()[:40]
        team = (entry.get("team") or "").strip()[:40] or None
        if not name:
            raise Refused(_("every player needs a name"), "player_without_name")
        if name in (n for n, _ in roster):
            raise Refused(
                _("two players are called {name!r}; names must differ").format(name=name),
                "duplicate_player",
                name=name,
            )
        roster.append((name, team))
    return roster


def _is_train_variant(variant: str) -> bool:
    known = VARIANTS.get(variant)
    return known is not None and known.engine_rounds


def engine_double(variant: str, set_max: int, number: int) -> int | None:
    """The engine double of round `number`: n-n first, then one lower each round, wrapping."""
    if not _is_train_variant(variant):
        return None
    return set_max - (number - 1) % (set_max + 1)


def _insert_round(
    conn: sqlite3.Connection, game_id: int, number: int, variant: str, set_max: int
) -> int:
    cur = conn.execute(
        "INSERT INTO rounds (game_id, number, engine, started_at) VALUES (?, ?, ?, ?)",
        (game_id, number, engine_double(variant, set_max, number), now()),
    )
    return int(cur.lastrowid or 0)


def start_round(conn: sqlite3.Connection, game_id: int) -> int:
    """The next round (the current one must have ended, the game must not be over); returns
    its number."""
    if get_game(conn, game_id)["status"] == "active":
        # A game whose last round ended before games ended by themselves is over too.
        with transaction(conn):
            finish_if_over(conn, game_id)
    game = get_game(conn, game_id)
    if game["status"] != "active":
        final = scoreboard(conn, game_id)["final"]
        raise Conflict(
            _("the game is over: {text} Start a new game at /setup.").format(text=final["text"]),
            "game_over",
        )
    with transaction(conn):
        last = get_round(conn, game_id)
        if last["status"] == "open":
            raise Conflict(
                _("round {number} is still open; end it first").format(number=last["number"]),
                "round_still_open",
                round=last["number"],
            )
        number = last["number"] + 1
        _insert_round(conn, game_id, number, game["variant"], game["set_max"])
        storage.add_event(conn, game_id, "round", {"action": "started", "round": number})
    return number


def finish_game(conn: sqlite3.Connection, game_id: int) -> None:
    """The table ends the game now (before its variant would)."""
    get_game(conn, game_id)
    with transaction(conn):
        conn.execute("UPDATE games SET status = 'finished' WHERE id = ?", (game_id,))
        storage.add_event(conn, game_id, "game", {"action": "finished", "by": "table"})


def update_settings(conn: sqlite3.Connection, game_id: int, rules_overrides: object) -> None:
    if not isinstance(rules_overrides, dict):
        raise Refused(_("'rules' must be an object of variant settings"), "rules_not_an_object")
    # Each setting of its type and range, as when the game was made (a stored "100" for a
    # target would fail every ruling later).
    get_variant(get_game(conn, game_id)["variant"], rules_overrides)
    with transaction(conn):
        conn.execute("UPDATE games SET rules = ? WHERE id = ?", (dumps(rules_overrides), game_id))
        storage.add_event(conn, game_id, "game", {"action": "settings"})
