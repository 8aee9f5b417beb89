"""The two engines the dashboard wires together: the rules engine and the vision runtime.

Nothing here re-implements a rule or a detector: game states go to `rules` as the docs/design.md
game-state dict and come back as its verdict; photos go to `vision` and come back as Scene
JSON. The vision models are loaded lazily, so the app starts (and says what is missing) when
no trained model is installed.

A test (or an embedding application) may inject `SCENE_PROVIDER` in the app config: a callable
`(pixels_bgr, kind, set_max) -> scene dict` used instead of the vision runtime.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from flask import current_app

from dominocam import rules
from dominocam.errors import UserInputError
from dominocam.i18n import DEFAULT_LANGUAGE, N_, _, use_language
from dominocam.vision import onnx_model


class EngineUnavailable(RuntimeError):
    """A part of the product is not installed or not ready (no trained model, no camera):
    HTTP 503, with the refusal's stable `code` and `params` (as `dominocam.errors.Refused`)."""

    def __init__(self, message: str, code: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def plain(value: Any) -> dict[str, Any]:
    """A result object as a plain dict: `to_dict()`, `to_json()` (dict or JSON text), a dict."""
    for method in ("to_dict", "to_json", "as_dict"):
        if hasattr(value, method):
            out = getattr(value, method)()
            return json.loads(out) if isinstance(out, str) else dict(out)
    if isinstance(value, dict):
        return dict(value)
    raise TypeError(f"cannot turn {type(value).__name__} into JSON")


# --- rules ------------------------------------------------------------------------------------


def variant_names() -> list[str]:
    """The variants the rules engine knows, by name."""
    return sorted(rules.variant_names())


def variant_settings(name: str) -> dict[str, Any]:
    """The settings of a named variant as a plain dict (what a state's `rules` overrides)."""
    return dict(rules.get_variant(name).settings)


def variant_info(name: str) -> dict[str, Any]:
    """Title, description, usual set, whether teams score, and the settings of a variant."""
    variant = rules.get_variant(name)
    return {
        "name": variant.name,
        # Words for people, in the request's language (rules/variants.py marks them).
        "title": _(variant.title),
        "description": _(variant.description),
        "set": variant.set,
        "teams": bool(variant.team_scoring),
        "settings": dict(variant.settings),
        # Where each default comes from (rules/variants.py), by setting name.
        "sources": dict(variant.sources),
    }


# What the setup page calls each setting: players' words, not the engine's keys.
SETTING_LABELS: dict[str, str] = {
    "play": N_("Where a player may play"),
    "double_cover": N_("Tiles an open double needs before play goes on elsewhere"),
    "spinner_arms": N_("Lines that may grow from the spinner"),
    "spinner_first": N_("Start every arm of the spinner first"),
    "draw": N_("Drawing from the boneyard"),
    "reserve": N_("Boneyard tiles that are never drawn"),
    "block_winner": N_("Who wins a blocked round"),
    "points": N_("Points for a blocked round"),
    "rounding": N_("Rounding of points"),
    "bonus": N_("Bonus points for the winner of a blocked round"),
    "tie": N_("A tie for the lowest count"),
    "double_blank": N_("What the 0-0 counts in a hand"),
    "game_end": N_("How the game ends"),
    "target": N_("Points that win the game"),
}


def settings_schema() -> dict[str, Any]:
    """Each overridable setting: label (words), help text, kind (choice/int/bool), choices."""
    return {
        name: {
            "label": (
                _(SETTING_LABELS[name])
                if name in SETTING_LABELS
                else name.replace("_", " ").capitalize()
            ),
            "help": _(setting.help),
            "kind": setting.kind,
            "choices": list(setting.choices or ()),
        }
        for name, setting in rules.SETTINGS.items()
    }


def check(state: dict[str, Any]) -> dict[str, Any]:
    """The verdict of the rules engine for a game-state dict (docs/design.md).

    Raises:
        UserInputError: the state is invalid (HTTP 400 with the engine's message).
    """
    parsed = rules.parse_state(state)  # a refusal is worded in the request's language
    # The verdict is stored and is machine output: its reason texts stay English (dominocam.i18n).
    with use_language(DEFAULT_LANGUAGE):
        return rules.check(parsed).to_json()


def validate(state: dict[str, Any]) -> None:
    """Raise UserInputError when the rules engine rejects the state (unknown variant, ...)."""
    rules.parse_state(state)


def score_domino(state: dict[str, Any], winner: str) -> dict[str, Any]:
    """Scoring of a round that ended by domino (`winner` played their last tile)."""
    parsed = rules.parse_state(state)
    with use_language(DEFAULT_LANGUAGE):  # stored with the round: machine output
        return plain(rules.score_domino(parsed, winner))


def game_progress(
    variant: str,
    overrides: dict[str, Any],
    set_max: int,
    seats: list[tuple[str, str | None]],
    rounds: list[dict[str, Any]],
) -> dict[str, Any]:
    """Where a game stands by its variant's end rule (`rules.Game`: `game_end`, `target`).

    Args:
        variant, overrides: the variant's name and the game's settings.
        set_max: n of the set (descending doubles: one round per double, n-n down to 0-0).
        seats: (player, team) in seat order; teams score when the variant scores teams.
        rounds: the ended rounds in order, `{"points": {name: n}, "winner", "blocked", "void"}`.

    Returns:
        `{"end", "planned_rounds", "target", "lower_wins", "rounds_played", "over",
        "winners", "standings": [[name, total], ...] (best first)}`; `target` is None and
        `planned_rounds` a number for descending doubles, the other way round for a target.

    Raises:
        UserInputError: the rounds do not fit the variant (more rounds than it plays).
    """
    chosen = rules.get_variant(variant, overrides)
    teams = [team for _, team in seats if team]
    if chosen.team_scoring and len(teams) == len(seats):
        names = list(dict.fromkeys(teams))
    else:
        names = [name for name, _ in seats]
    for result in rounds:
        names += [name for name in result["points"] if name not in names]
    played = tuple(
        rules.RoundResult(
            points=dict(r["points"]),
            winner=r.get("winner"),
            blocked=bool(r.get("blocked", True)),
            void=bool(r.get("void")),
        )
        for r in rounds
    )
    game = rules.Game(chosen, tuple(names), set_max, played)
    return {
        "end": chosen.game_end,
        "planned_rounds": game.planned_rounds,
        "target": chosen.target if chosen.game_end == "target" else None,
        "lower_wins": game.lower_wins,
        "rounds_played": len(played),
        "over": game.is_over,
        "winners": list(game.winners()),
        "standings": [[name, total] for name, total in game.standings()],
    }


# --- vision -----------------------------------------------------------------------------------

SceneProvider = Callable[[np.ndarray, str, int], dict[str, Any]]


@dataclass(frozen=True)
class TableGame:
    """What rebuilding the layout of a game's table picture needs to know of the game.

    Attributes:
        variant: the rules variant's name; it picks the layout kind (line, spinner for All
            Fives, mexican, chicken: `dominocam.vision.layout.layout_kind`).
        players: players at the table (a Mexican Train engine offers one train each plus the
            public train).
        engine: the round's engine double (Mexican Train, Chicken Foot), else None.
    """

    variant: str
    players: int
    engine: int | None = None

    def __post_init__(self) -> None:
        if self.players < 1:
            raise ValueError(f"a table has at least one player, got {self.players}")


def reading_game(table: TableGame | None) -> Any:
    """The game a table picture shows, as the vision runtime takes it
    (`dominocam.vision.reading.Game`); None without a game."""
    from dominocam.vision.reading import Game

    return None if table is None else Game(table.variant, table.players, table.engine)


def read_scene(
    pixels: np.ndarray, kind: str, set_max: int, table: TableGame | None = None
) -> dict[str, Any]:
    """Scene JSON for a decoded photo of the table (`kind="table"`) or a hand (`"hand"`).

    `table` says which game the table photo is of, so its layout is rebuilt as the variant
    lays it out (an injected `SCENE_PROVIDER` stands in for all of vision and ignores it).

    Raises:
        EngineUnavailable: the vision runtime or its trained models are not installed.
    """
    provider: SceneProvider | None = current_app.config.get("SCENE_PROVIDER")
    if provider is not None:
        return provider(pixels, kind, set_max)
    return vision_scene(pixels, kind, set_max, table)


_reader_lock = threading.Lock()
_reader_cache: dict[str, Any] = {}


def photo_reader() -> Any:
    """The vision runtime's `dominocam.vision.reading.PhotoReader` with the bundled models, loaded
    once per process (missing files -> EngineUnavailable)."""
    with _reader_lock:
        if "reader" not in _reader_cache:
            from dominocam.vision.reading import PhotoReader

            try:
                _reader_cache["reader"] = PhotoReader.load()
            except (UserInputError, FileNotFoundError, OSError) as error:
                raise EngineUnavailable(
                    _(
                        "no trained model is installed ({error}); the photo is kept: enter the "
                        "tiles by hand"
                    ).format(error=error),
                    "no_model",
                ) from error
        return _reader_cache["reader"]


def vision_scene(
    pixels: np.ndarray, kind: str, set_max: int, table: TableGame | None = None
) -> dict[str, Any]:
    """The real vision runtime: the photo read as `dominocam.vision.reading.PhotoReader` reads its
    kind, a table photo laid out as the game lays it out."""
    scene = photo_reader().read(pixels, kind, set_max, reading_game(table))
    return plain(scene)


def models_status() -> dict[str, Any]:
    """Whether photos can be read here, for the pages to say so before an upload."""
    if current_app.config.get("SCENE_PROVIDER") is not None:
        return {"available": True, "message": _("photo reader injected by configuration")}
    if "reader" in _reader_cache:
        return {"available": True, "message": _("photo reader ready")}

    try:
        for role in ("detector", "reader"):
            onnx_model.resolve_model_path(role, None)
    except Exception as error:  # a probe must never take the page down
        return {
            "available": False,
            "message": _("no trained model installed ({error}); enter tiles by hand").format(
                error=error
            ),
        }
    return {"available": True, "message": _("photo reader installed")}
