"""The two engines the dashboard wires together: the rules engine and the vision runtime.

Nothing here re-implements a rule or a detector: game states go to `rules` as the DESIGN.md
game-state dict and come back as its verdict; photos go to `vision` and come back as Scene
JSON. The vision models are loaded lazily, so the app starts (and says what is missing) when
no trained model is installed.

A test (or an embedding application) may inject `SCENE_PROVIDER` in the app config: a callable
`(pixels_bgr, kind, set_max) -> scene dict` used instead of the vision runtime.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from flask import current_app

import rules
from dominocam.errors import UserInputError


class EngineUnavailable(RuntimeError):
    """A part of the product is not installed (no trained model): HTTP 503."""


def plain(value: Any) -> dict[str, Any]:
    """A result object as a plain dict: `to_dict()`, `to_json()` (dict or JSON text), a dict."""
    import json

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
        "title": variant.title,
        "description": variant.description,
        "set": variant.set,
        "teams": bool(variant.team_scoring),
        "settings": dict(variant.settings),
    }


def settings_schema() -> dict[str, Any]:
    """Each overridable setting: help text, kind (choice/int/bool) and choices."""
    return {
        name: {"help": setting.help, "kind": setting.kind, "choices": list(setting.choices or ())}
        for name, setting in rules.SETTINGS.items()
    }


def check(state: dict[str, Any]) -> dict[str, Any]:
    """The verdict of the rules engine for a game-state dict (DESIGN.md).

    Raises:
        UserInputError: the state is invalid (HTTP 400 with the engine's message).
    """
    return rules.check(rules.parse_state(state)).to_json()


def validate(state: dict[str, Any]) -> None:
    """Raise UserInputError when the rules engine rejects the state (unknown variant, ...)."""
    rules.parse_state(state)


def score_domino(state: dict[str, Any], winner: str) -> dict[str, Any]:
    """Scoring of a round that ended by domino (`winner` played their last tile)."""
    return plain(rules.score_domino(rules.parse_state(state), winner))


# --- vision -----------------------------------------------------------------------------------

SceneProvider = Callable[[np.ndarray, str, int], dict[str, Any]]


def read_scene(pixels: np.ndarray, kind: str, set_max: int) -> dict[str, Any]:
    """Scene JSON for a decoded photo of the table (`kind="table"`) or a hand (`"hand"`).

    Raises:
        EngineUnavailable: the vision runtime or its trained models are not installed.
    """
    provider: SceneProvider | None = current_app.config.get("SCENE_PROVIDER")
    if provider is not None:
        return provider(pixels, kind, set_max)
    return vision_scene(pixels, kind, set_max)


_models_lock = threading.Lock()
_models_cache: dict[str, Any] = {}


def vision_models() -> Any:
    """The vision models, loaded once per process (missing files -> EngineUnavailable)."""
    with _models_lock:
        if "models" not in _models_cache:
            from vision import pipeline

            try:
                _models_cache["models"] = pipeline.load_models()
            except (UserInputError, FileNotFoundError, OSError) as error:
                raise EngineUnavailable(
                    f"no trained model is installed ({error}); the photo is kept: enter the "
                    "tiles by hand"
                ) from error
        return _models_cache["models"]


def vision_scene(pixels: np.ndarray, kind: str, set_max: int) -> dict[str, Any]:
    """The real vision runtime: `vision.pipeline.read_image` with the bundled models."""
    from vision import pipeline

    models = vision_models()
    scene = pipeline.read_image(
        pixels, models.detector, models.reader, set_max=set_max, with_layout=kind == "table"
    )
    return plain(scene)


def models_status() -> dict[str, Any]:
    """Whether photos can be read here, for the pages to say so before an upload."""
    if current_app.config.get("SCENE_PROVIDER") is not None:
        return {"available": True, "message": "photo reader injected by configuration"}
    if "models" in _models_cache:
        return {"available": True, "message": "photo reader ready"}
    from vision import onnx_model

    try:
        for role in ("detector", "reader"):
            onnx_model.resolve_model_path(role, None)
    except Exception as error:  # a probe must never take the page down
        return {
            "available": False,
            "message": f"no trained model installed ({error}); enter tiles by hand",
        }
    return {"available": True, "message": "photo reader installed"}
