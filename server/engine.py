"""The two engines the dashboard wires together: the rules engine and the vision runtime.

Nothing here re-implements a rule or a detector: game states go to `rules` as the DESIGN.md
game-state dict and come back as its verdict; photos go to `vision` and come back as Scene
JSON. Both are imported lazily so the app starts (and says what is missing) even when one of
them, or the trained models, is absent.

A test (or an embedding application) may inject `SCENE_PROVIDER` in the app config: a callable
`(pixels_bgr, kind, set_max) -> scene dict` used instead of the vision runtime.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from flask import current_app

from dominocam.errors import UserInputError


class EngineUnavailable(RuntimeError):
    """A part of the product is not installed (no trained model, rules API missing): HTTP 503."""


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


def _rules() -> Any:
    try:
        return importlib.import_module("rules")
    except ImportError as error:  # pragma: no cover - the package ships with the server
        raise EngineUnavailable(f"the rules engine cannot be imported: {error}") from error


def _rules_attr(*names: str) -> Any:
    """The first of `names` (dotted, inside `rules`) that exists."""
    for name in names:
        module_name, _, attr = name.rpartition(".")
        try:
            module = importlib.import_module(f"rules.{module_name}" if module_name else "rules")
        except ImportError:
            continue
        value = getattr(module, attr, None)
        if value is not None:
            return value
    raise EngineUnavailable(
        f"the rules engine does not provide {names[0]} yet; this DominoCam build is incomplete"
    )


def variant_names() -> list[str]:
    """The variants the rules engine knows, by name."""
    names = _rules_attr("VARIANTS", "variants.VARIANTS", "variant_names", "variants.names")
    if callable(names):
        names = names()
    return sorted(names)


def variant_settings(name: str) -> dict[str, Any]:
    """The settings of a named variant as a plain dict (what `rules` overrides)."""
    getter = _rules_attr("get_variant", "variants.get_variant", "variant", "variants.variant")
    variant = getter(name)
    if hasattr(variant, "settings"):
        return dict(variant.settings)
    return plain(variant)


def variant_info(name: str) -> dict[str, Any]:
    """Title, description, usual set, whether teams score, and the settings of a variant."""
    getter = _rules_attr("get_variant", "variants.get_variant")
    variant = getter(name)
    return {
        "name": getattr(variant, "name", name),
        "title": getattr(variant, "title", name),
        "description": getattr(variant, "description", ""),
        "set": getattr(variant, "set", None),
        "teams": bool(getattr(variant, "team_scoring", False)),
        "settings": variant_settings(name),
    }


def settings_schema() -> dict[str, Any]:
    """Each overridable setting: help text, kind (choice/int/bool) and choices."""
    try:
        schema = _rules_attr("SETTINGS", "variants.SETTINGS")
    except EngineUnavailable:
        return {}
    return {
        name: {
            "help": getattr(s, "help", getattr(s, "description", "")),
            "kind": getattr(s, "kind", "int"),
            "choices": list(getattr(s, "choices", ()) or ()),
        }
        for name, s in schema.items()
    }


def check(state: dict[str, Any]) -> dict[str, Any]:
    """The verdict of the rules engine for a game-state dict (DESIGN.md).

    Raises:
        UserInputError: the state is invalid (HTTP 400 with the engine's message).
    """
    parse = _rules_attr("parse_state", "state.parse_state", "game.parse_state")
    judge = _rules_attr("check", "blocked.check")
    return plain(judge(parse(state)))


def validate(state: dict[str, Any]) -> None:
    """Raise UserInputError when the rules engine rejects the state (unknown variant, ...)."""
    _rules_attr("parse_state", "state.parse_state", "game.parse_state")(state)


def score_domino(state: dict[str, Any], winner: str) -> dict[str, Any]:
    """Scoring of a round that ended by domino (`winner` played their last tile)."""
    parse = _rules_attr("parse_state", "state.parse_state", "game.parse_state")
    score = _rules_attr("score_domino", "scoring.score_domino")
    return plain(score(parse(state), winner))


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


def _models() -> Any:
    """The vision models, loaded once per process (missing files -> EngineUnavailable)."""
    with _models_lock:
        if "models" not in _models_cache:
            try:
                pipeline = importlib.import_module("vision.pipeline")
                _models_cache["models"] = pipeline.load_models()
            except ImportError as error:
                raise EngineUnavailable(
                    f"no photo reader is installed ({error}); enter the tiles by hand"
                ) from error
            except (UserInputError, FileNotFoundError, OSError) as error:
                raise EngineUnavailable(
                    f"no trained model is installed ({error}); the photo is kept: enter the "
                    "tiles by hand"
                ) from error
        return _models_cache["models"]


def vision_scene(pixels: np.ndarray, kind: str, set_max: int) -> dict[str, Any]:
    """The real vision runtime: `vision.pipeline.read_image` with the bundled models."""
    pipeline = importlib.import_module("vision.pipeline")
    models = _models()
    scene = pipeline.read_image(pixels, models.detector, models.reader, set_max=set_max)
    return plain(scene)


def models_status() -> dict[str, Any]:
    """Whether photos can be read here, for the pages to say so before an upload."""
    if current_app.config.get("SCENE_PROVIDER") is not None:
        return {"available": True, "message": "photo reader injected by configuration"}
    if "models" in _models_cache:
        return {"available": True, "message": "photo reader ready"}
    try:
        onnx_model = importlib.import_module("vision.onnx_model")
        for role in ("detector", "reader"):
            onnx_model.resolve_model_path(role, None)
    except ImportError:
        return {"available": False, "message": "no photo reader installed: enter tiles by hand"}
    except Exception as error:  # a probe must never take the page down
        return {
            "available": False,
            "message": f"no trained model installed ({error}); enter tiles by hand",
        }
    return {"available": True, "message": "photo reader installed"}
