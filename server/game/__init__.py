"""Game nights in the database, one module per concept:

- `records`: looking up games, players, rounds and hands; `NotFound` (404), `Conflict` (409);
- `games`: creating a game and its players, starting rounds, finishing, settings;
- `table`: the round's lines, boneyard, table photo Scene and its corrections;
- `camera_events`: the live camera's confirmed changes, stored per round;
- `hands`: players' hands and "cannot play" declarations;
- `rulings`: the block check and the end by domino, judged by the rules engine;
- `scoreboard`: points per round, totals, and whether the game is over;
- `review`: what the host must check before a ruling (doubtful reading, the round's ledger);
- `round_ledger`, `ledger_words`: the round's ledger before a ruling, pure (shared with the
  tournament's store), and its words;
- `audit`: the trail of every change after confirmation, with time, author and reason;
- `history`: the ended rounds (hands, ruling, audit trail) and the game's CSV/JSON export;
- `undo`: the host's corrections after the fact (reopen, score, delete, rename, reorder);
- `views`: what the pages show (`public_state`, `player_view`).

Functions take an open connection and plain values and return JSON-able dicts; the HTTP layer
(`dominocam.server.api`) only parses requests and calls them. Every write records an event, which
the SSE stream and the polling endpoint forward to the pages.

Hands are secret: `public_state` never contains another player's tiles (only counts) until the
round has ended; a player's own view adds their hand (`player_view`).

This package re-exports each module's public functions, so callers write `game.public_state`.
"""

from dominocam.rounds.lifecycle import Conflict, parse_hand
from dominocam.server.game.camera_events import (
    LATEST_TABLE_EVENTS,
    latest_table_events,
    record_camera_update,
    table_events,
)
from dominocam.server.game.games import (
    MAX_PLAYERS,
    create_game,
    engine_double,
    finish_game,
    set_deal,
    start_round,
    update_settings,
)
from dominocam.server.game.hands import (
    attach_hand_photo,
    confirm_hand,
    declare_cannot_play,
    discard_pending,
    hand_row,
    read_hand_photo,
    set_hand,
)
from dominocam.server.game.history import export_csv, export_json, round_history
from dominocam.server.game.records import (
    NotFound,
    Refused,
    current_game_id,
    get_game,
    get_round,
    list_games,
    open_round,
    player_by_id,
    player_by_name,
    players,
    round_hands,
)
from dominocam.server.game.review import host_review, mark_table_checked
from dominocam.server.game.rulings import (
    block_check,
    cancel_pending,
    end_by_domino,
    game_state_for_rules,
    lock_hands,
    override_ledger,
    public_outcome,
    rules_state,
    score_pending,
    unlock_hands,
)
from dominocam.server.game.scoreboard import final_result, finish_if_over, game_progress, scoreboard
from dominocam.server.game.table import (
    add_table_tile,
    correct_table_tile,
    layout_from_scene,
    restore_rejected,
    save_table_scene,
    set_boneyard,
    set_layout,
    table_game,
)
from dominocam.server.game.undo import (
    correct_score,
    delete_game,
    rename_player,
    reopen_last_round,
    reorder_players,
)
from dominocam.server.game.views import player_view, public_state

__all__ = [
    "LATEST_TABLE_EVENTS",
    "MAX_PLAYERS",
    "Conflict",
    "NotFound",
    "Refused",
    "add_table_tile",
    "attach_hand_photo",
    "block_check",
    "cancel_pending",
    "confirm_hand",
    "correct_score",
    "correct_table_tile",
    "create_game",
    "current_game_id",
    "declare_cannot_play",
    "delete_game",
    "discard_pending",
    "end_by_domino",
    "engine_double",
    "export_csv",
    "export_json",
    "final_result",
    "finish_game",
    "finish_if_over",
    "game_progress",
    "game_state_for_rules",
    "get_game",
    "get_round",
    "hand_row",
    "host_review",
    "latest_table_events",
    "layout_from_scene",
    "list_games",
    "lock_hands",
    "mark_table_checked",
    "open_round",
    "override_ledger",
    "parse_hand",
    "player_by_id",
    "player_by_name",
    "player_view",
    "players",
    "public_outcome",
    "public_state",
    "read_hand_photo",
    "record_camera_update",
    "rename_player",
    "reopen_last_round",
    "reorder_players",
    "restore_rejected",
    "round_hands",
    "round_history",
    "rules_state",
    "save_table_scene",
    "score_pending",
    "scoreboard",
    "set_boneyard",
    "set_deal",
    "set_hand",
    "set_layout",
    "start_round",
    "table_events",
    "table_game",
    "unlock_hands",
    "update_settings",
]
