"""Finding the model files and opening them with onnxruntime (shared by detector and reader).

Model files are looked up, in order: an explicit path (the --detector / --reader flags), the
folder named by the environment variable DOMINOCAM_MODELS, the bundled models (the package
`dominomodels`: the repository's `models/` folder, installed as package data by the wheel).
onnxruntime is imported inside the functions so that importing `vision` stays light.
"""

from __future__ import annotations

import ast
import hashlib
import os
from importlib import resources
from pathlib import Path
from typing import Any

from dominocam.errors import UserInputError

MODEL_FILES: dict[str, str] = {
    "detector": "detector.onnx",
    "reader": "reader.onnx",
    "verifier": "verifier.onnx",
}
MODELS_ENV = "DOMINOCAM_MODELS"
BUNDLED_MODELS = "dominomodels"


def default_models_dir() -> Path:
    """$DOMINOCAM_MODELS if set, else the folder of the bundled models (`dominomodels`)."""
    env = os.environ.get(MODELS_ENV)
    if env:
        return Path(env).expanduser()
    # Installed unzipped (a wheel, or the checkout's editable install), so a real folder.
    return Path(str(resources.files(BUNDLED_MODELS)))


def resolve_model_path(kind: str, override: str | os.PathLike[str] | None = None) -> Path:
    """The file of model `kind` ("detector", "reader" or "verifier"); a clear UserInputError
    if missing."""
    if kind not in MODEL_FILES:
        raise ValueError(f"unknown model kind {kind!r}; valid: {sorted(MODEL_FILES)}")
    if override is not None:
        path = Path(override).expanduser()
        where = f"--{kind} {override}"
    else:
        path = default_models_dir() / MODEL_FILES[kind]
        where = f"{path} (set {MODELS_ENV} or pass --{kind} PATH to use another file)"
    if not path.is_file():
        raise UserInputError(
            f"{kind} model not found: {where}; make one with `dominocam train {kind}` then "
            "`dominocam export` (see docs/training.md)"
        )
    return path


def open_session(path: Path, threads: int | None = None) -> Any:
    """An onnxruntime CPU session with `threads` intra-op threads (default: all cores)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = int(threads) if threads else (os.cpu_count() or 1)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Idle worker threads sleep instead of spinning: between and after the two networks the
    # numpy stages, the camera loop and the web server need the few cores. On the 2-core dev
    # machine under load this nearly halved a whole read (docs/vision.md, Benchmark).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as error:  # onnxruntime raises its own exception types
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UserInputError(f"cannot load ONNX model {path}: {first}") from error


def metadata(session: Any) -> dict[str, str]:
    """The custom metadata map of an ONNX session (ultralytics writes names, imgsz, stride)."""
    return dict(session.get_modelmeta().custom_metadata_map or {})


def parse_literal(meta: dict[str, str], key: str, path: Path) -> Any:
    """A metadata value written as a Python literal (ultralytics' way), parsed safely."""
    if key not in meta:
        raise UserInputError(f"ONNX model {path} has no '{key}' in its metadata; re-export it")
    try:
        return ast.literal_eval(meta[key])
    except (ValueError, SyntaxError) as error:
        raise UserInputError(f"ONNX model {path}: metadata '{key}' is not a literal") from error


def parse_names(meta: dict[str, str], path: Path) -> dict[int, str]:
    """Class index -> name from the metadata `names` ("{0: 'tile_up', 1: 'tile_down'}")."""
    names = parse_literal(meta, "names", path)
    if isinstance(names, (list, tuple)):
        names = dict(enumerate(names))
    if not isinstance(names, dict) or not names:
        raise UserInputError(f"ONNX model {path}: metadata 'names' is not a class map")
    return {int(k): str(v) for k, v in names.items()}


def parse_imgsz(meta: dict[str, str], path: Path) -> tuple[int, int]:
    """(height, width) of the network input from the metadata `imgsz` ("[640, 640]" or "640")."""
    size = parse_literal(meta, "imgsz", path)
    if isinstance(size, int):
        return size, size
    if isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(v, int) for v in size):
        return int(size[0]), int(size[1])
    raise UserInputError(f"ONNX model {path}: metadata 'imgsz' is not [h, w]: {size!r}")


def file_sha256(path: Path) -> str:
    """The SHA-256 of a model file, in hex: names the exact model a figure was measured with."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
