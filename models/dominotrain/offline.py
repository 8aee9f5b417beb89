"""Keep ultralytics offline, quiet and fast on a CPU: call `setup()` before importing it.

What it does (each item measured on these machines, see docs/training.md, "The `train` extra"):
* `YOLO_OFFLINE=1`: no hub, no update checks, no event reporting.
* `YOLO_CONFIG_DIR=<project>/.yolo` (git-ignored): the settings file and the font live in the
  project, not in `~/.config`, and every integration logger (clearml, comet, mlflow, ...) is
  switched off in it.
* matplotlib's DejaVuSans.ttf is copied to `$YOLO_CONFIG_DIR/Ultralytics/Arial.ttf`, so the font
  check that every train/val runs finds a file instead of trying a download.
* `NUM_THREADS = os.cpu_count()`: ultralytics gives torch `min(8, cpus - 1)` threads, one on a
  2-core machine; two threads train about 1.6x faster.
* Its AMP check (CUDA runs only) would download `yolo26n.pt` to compare half and full precision;
  it is replaced by "AMP on" (`amp=False` in a run's arguments still turns it off).
* Without polars (a GPU machine with no network where only ultralytics' own wheel was
  carried, docs/training.md, "On a GPU machine"), the trainer reads its `results.csv` with
  the standard csv module; the plots, which need polars, are off there (`HAS_POLARS`).

Models are always built from their YAML (`yolov8n-obb.yaml`), never from a `.pt` name that
ultralytics would try to download; `check_model_name` enforces that.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
from pathlib import Path
from types import ModuleType

from dominocam.errors import UserInputError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = PROJECT_ROOT / ".yolo"
TRAIN_EXTRA_HINT = "install the train extra: pip install -e '.[train]'"
# ultralytics reads its results.csv and draws its plots with polars; a GPU machine may lack it
# (set by `setup`).
HAS_POLARS = True

_INTEGRATIONS_OFF = {
    "sync": False,
    "clearml": False,
    "comet": False,
    "dvc": False,
    "mlflow": False,
    "raytune": False,
    "tensorboard": False,
    "wandb": False,
    "vscode_msg": False,
    "openvino_msg": False,
}


def setup(config_dir: Path | None = None, threads: int | None = None) -> ModuleType:
    """Set the offline environment, import ultralytics and return it.

    Args:
        config_dir: where ultralytics keeps its settings and font (default `<project>/.yolo`).
            Only the first call in a process decides it: ultralytics reads it at import.
        threads: torch threads for CPU training (default: every core).

    Raises:
        UserInputError: the train extra (ultralytics, torch) is not installed.
    """
    config_dir = Path(config_dir or os.environ.get("YOLO_CONFIG_DIR") or CONFIG_DIR)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "False"  # never pip-install behind the user's back
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config_dir))
    font_dir = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    _install_font(font_dir / "Arial.ttf")
    try:
        import ultralytics
        import ultralytics.utils
        import ultralytics.utils.torch_utils as torch_utils
    except ImportError as error:  # torch, torchvision or ultralytics missing or broken
        raise UserInputError(f"{TRAIN_EXTRA_HINT} ({error})") from error
    n = int(threads or os.cpu_count() or 1)
    torch_utils.NUM_THREADS = n
    ultralytics.utils.NUM_THREADS = n
    ultralytics.utils.SETTINGS.update(
        {k: v for k, v in _INTEGRATIONS_OFF.items() if k in ultralytics.utils.SETTINGS}
    )
    import ultralytics.engine.trainer as trainer

    global HAS_POLARS
    try:
        import polars  # noqa: F401
    except ImportError:
        HAS_POLARS = False
    trainer.check_amp = _amp_without_download
    if not HAS_POLARS:
        trainer.BaseTrainer.read_results_csv = _read_results_csv
    return ultralytics


def _amp_without_download(model, *args, **kwargs) -> bool:
    """ultralytics' `check_amp` without its download: AMP stays on."""
    return True


def _read_results_csv(self) -> dict:
    """`BaseTrainer.read_results_csv` without polars: column -> list of floats."""
    try:
        rows = list(csv.DictReader(io.StringIO(self.csv.read_text())))
    except OSError:
        return {}
    columns: dict = {}
    for row in rows:
        for key, value in row.items():
            try:
                number = float(value)
            except (TypeError, ValueError):
                number = value
            columns.setdefault(key.strip(), []).append(number)
    return columns


def _install_font(target: Path) -> None:
    """Copy matplotlib's DejaVuSans.ttf to `target` (ultralytics' Arial.ttf) if it is missing."""
    if target.exists():
        return
    try:
        import matplotlib
    except ImportError:
        return  # ultralytics falls back harmlessly; only the plots' font differs
    source = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    if source.exists():
        shutil.copyfile(source, target)


def check_model_name(model: str) -> str:
    """Refuse a bare `.pt` model name (a download); accept YAML names and existing files.

    Raises:
        UserInputError: `model` is a `.pt` name that is not a file here.
    """
    if model.endswith((".pt", ".pth")) and not Path(model).is_file():
        raise UserInputError(
            f"model {model!r} is not a file here and cannot be downloaded offline; "
            "build from YAML (e.g. yolov8n-obb.yaml) or pass an existing checkpoint"
        )
    return model
