"""`dominocam train detector|reader`: ultralytics training, offline, logged, resumable.

A run lives in `runs/<kind>/<name>/` (git-ignored):

* `train.log`        everything the run printed (also when it runs in the background);
* `dominotrain.json` what `dominocam export` needs later: the exact command, the data set and
  its card (`card.json` of `dominocam synth`), the base model and fine-tuning weights;
* `data.yaml`        (detector) a copy of the data set's YAML with an absolute `path`, so
  ultralytics never resolves it against its own datasets folder;
* `weights/last.pt`  written after every epoch; `weights/best.pt` the best by validation.

Starting a run whose `weights/last.pt` exists and is unfinished resumes it (ultralytics
`resume=True`: same epochs, optimiser state and schedule); `--resume` insists on that.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from dominocam.errors import UserInputError
from dominotrain import offline
from dominotrain.offline import PROJECT_ROOT, check_model_name

RUNS_DIR = PROJECT_ROOT / "runs"
KINDS = ("detector", "reader")
DEFAULT_MODEL = {"detector": "yolov8n-obb.yaml", "reader": "yolov8n-cls.yaml"}
DEFAULT_IMGSZ = {"detector": 640, "reader": 64}
DEFAULT_BATCH = {"detector": 16, "reader": 64}
DEFAULT_EPOCHS = {"detector": 30, "reader": 30}
# Augmentation that keeps labels true. Reader: never crop or erase pips away (RandomResizedCrop
# keeps 90-100% of the area, no random erasing); hue jitter because colour must never be the
# signal; no vertical flip (the divider stays at the bottom of a half crop). Detector: a table
# seen from above has no up or down, so flip both ways.
AUGMENT = {
    "detector": {"flipud": 0.5, "fliplr": 0.5},
    "reader": {"scale": 0.1, "erasing": 0.0, "hsv_h": 0.3, "flipud": 0.0, "fliplr": 0.5},
}
# Set in the environment of a background child whose output already goes to the log file.
_LOG_REDIRECTED = "DOMINOTRAIN_LOG_REDIRECTED"


@dataclass
class TrainConfig:
    """One training run, as given on the command line (resolved paths)."""

    kind: str
    data: str
    also: tuple[str, ...] = ()  # more sets whose train splits are added; val stays `data`'s
    model: str | None = None
    epochs: int | None = None
    imgsz: int | None = None
    batch: int | None = None
    device: str = "cpu"
    name: str | None = None
    resume: bool = False
    weights: str | None = None
    hours: float | None = None
    patience: int = 100
    seed: int = 0
    fraction: float | None = None
    runs_dir: str = str(RUNS_DIR)
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise UserInputError(f"unknown model kind {self.kind!r}; choose one of {KINDS}")
        self.model = self.model or DEFAULT_MODEL[self.kind]
        self.epochs = self.epochs or DEFAULT_EPOCHS[self.kind]
        self.imgsz = self.imgsz or DEFAULT_IMGSZ[self.kind]
        self.batch = self.batch or DEFAULT_BATCH[self.kind]
        self.name = self.name or self.kind
        for label, value in (("epochs", self.epochs), ("imgsz", self.imgsz), ("batch", self.batch)):
            if value < 1:
                raise UserInputError(f"--{label} must be at least 1, got {value}")
        if self.imgsz % 32:
            raise UserInputError(
                f"--imgsz must be a multiple of 32 (ultralytics rounds {self.imgsz} up to "
                f"{-(-self.imgsz // 32) * 32}, and the export would not match), got {self.imgsz}"
            )
        if self.hours is not None and self.hours <= 0:
            raise UserInputError(f"--hours must be positive, got {self.hours}")
        if self.fraction is not None and not 0 < self.fraction <= 1:
            raise UserInputError(f"--fraction must be in (0, 1], got {self.fraction}")

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.kind / self.name


# ----------------------------------------------------------------------------- data


def find_card(path: Path) -> dict | None:
    """The `card.json` of the data set at `path` (looked for there and two folders up)."""
    path = Path(path).resolve()
    for folder in [path if path.is_dir() else path.parent, *path.parents][:3]:
        card = folder / "card.json"
        if card.is_file():
            try:
                return json.loads(card.read_text())
            except json.JSONDecodeError as error:
                raise UserInputError(f"{card} is not valid JSON: {error}") from error
    return None


def resolve_detector_data(data: Path) -> Path:
    """The data set YAML for a detector: a `.yaml` file, `DIR/data.yaml` or `DIR/detector/`."""
    data = Path(data)
    for candidate in (data, data / "data.yaml", data / "detector" / "data.yaml"):
        if candidate.is_file() and candidate.suffix in {".yaml", ".yml"}:
            return candidate.resolve()
    raise UserInputError(
        f"no detector data set at {data}: pass the folder `dominocam synth --out` wrote, "
        "its detector/ folder, or a data.yaml"
    )


def resolve_reader_data(data: Path) -> Path:
    """The folder of a classification set: `DIR` with train/ and val/, or `DIR/reader/`."""
    data = Path(data)
    for candidate in (data, data / "reader"):
        if (candidate / "train").is_dir() and (candidate / "val").is_dir():
            return candidate.resolve()
    raise UserInputError(
        f"no reader data set at {data}: pass the folder `dominocam synth --out` wrote, "
        "or a folder with train/<class>/ and val/<class>/ image folders"
    )


def absolute_data_spec(source: Path) -> dict:
    """A YOLO data YAML's contents with `path` made absolute (relative to the YAML)."""
    try:
        spec = yaml.safe_load(Path(source).read_text()) or {}
    except yaml.YAMLError as error:
        raise UserInputError(f"{source} is not valid YAML: {error}") from error
    if not isinstance(spec, dict) or "train" not in spec or "names" not in spec:
        raise UserInputError(f"{source} lacks `train` or `names`: not a YOLO data set YAML")
    root = Path(spec.get("path") or ".")
    if not root.is_absolute():
        root = (Path(source).parent / root).resolve()
    spec["path"] = str(root)
    return spec


def absolute_data_yaml(source: Path, target: Path, also: tuple[Path, ...] = ()) -> Path:
    """Copy a YOLO data YAML to `target` with `path` made absolute (relative to the YAML).

    With `also` (more data YAMLs), their train splits are added to `train`, which becomes a
    list of absolute folders; validation stays on `source`'s val split.
    """
    spec = absolute_data_spec(source)
    if also:
        train = _absolute_split(spec, "train")
        for other in also:
            other_spec = absolute_data_spec(other)
            if other_spec["names"] != spec["names"]:
                raise UserInputError(
                    f"{other}: classes {other_spec['names']} differ from {source}'s {spec['names']}"
                )
            train += _absolute_split(other_spec, "train")
        spec["train"], spec["val"] = train, _absolute_split(spec, "val")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(spec, sort_keys=False))
    return target


def _absolute_split(spec: dict, split: str) -> list[str]:
    """A YOLO `train` / `val` entry (one folder or a list) as absolute folders."""
    entries = spec[split] if isinstance(spec[split], list) else [spec[split]]
    return [str(Path(spec["path"]) / entry) for entry in entries]


def combined_reader_folder(source: Path, also: tuple[Path, ...], target: Path) -> Path:
    """A classification folder at `target` whose train/<class>/ links the images of `source`
    and of every `also` set, and whose val/ links `source`'s val split only."""
    if target.exists():
        shutil.rmtree(target)
    for split, sets in (("train", [source, *also]), ("val", [source])):
        for number, folder in enumerate(sets):
            for image in sorted((folder / split).glob("*/*")):
                link = target / split / image.parent.name / f"s{number}_{image.name}"
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(image.resolve())
    return target


def count_classes(kind: str, data: Path) -> int:
    """How many classes the prepared data has: `names` of a detector YAML, class folders
    of a reader's train/."""
    if kind == "detector":
        names = yaml.safe_load(Path(data).read_text()).get("names") or {}
        return len(names)
    return sum(1 for child in (Path(data) / "train").iterdir() if child.is_dir())


def cpu_optimizer(device: str, classes: int) -> dict:
    """The optimiser settings of a CPU run whose user named none: what `optimizer=auto` picks
    for short runs (AdamW, lr0 0.002 * 5 / (4 + classes), momentum 0.9, no bias warm-up), for
    runs of any length. Beyond 10,000 iterations `auto` switches to MuSGD at lr0 0.01, a rate
    for training from scratch, and on this project's 2-core CPU a MuSGD step was about 30
    times slower (the reader on 53k crops: 0.18 against 5.3 iterations a second). Other
    devices keep `auto`."""
    if device != "cpu":
        return {}
    lr0 = round(0.002 * 5 / (4 + classes), 6)
    return {"optimizer": "AdamW", "lr0": lr0, "momentum": 0.9, "warmup_bias_lr": 0.0}


# ----------------------------------------------------------------------------- runs


def checkpoint_state(last: Path) -> str:
    """'unfinished', 'finished' or 'missing' for a run's last.pt (needs torch)."""
    if not last.is_file():
        return "missing"
    import torch

    ckpt = torch.load(last, map_location="cpu", weights_only=False)
    resumable = ckpt.get("epoch", -1) >= 0 and ckpt.get("optimizer") is not None
    return "unfinished" if resumable else "finished"


def command_line(argv: list[str] | None = None) -> str:
    """The command as typed, for cards: `dominocam train ...`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    argv = [a for a in argv if a != "--background"]
    return shlex.join(["dominocam", *argv])


def launch_background(argv: list[str], log: Path) -> int:
    """Run `dominocam ARGV` detached from the terminal, output to `log`; return its PID."""
    log.parent.mkdir(parents=True, exist_ok=True)
    code = "import sys; from dominocam.cli import main; sys.exit(main())"
    env = {**os.environ, _LOG_REDIRECTED: "1", "PYTHONUNBUFFERED": "1"}
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", code, *argv],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=os.getcwd(),
            env=env,
        )
    return process.pid


def _log_to_file(log: Path) -> None:
    """Send ultralytics' log lines to `log` too (foreground runs)."""
    if os.environ.get(_LOG_REDIRECTED):
        return
    handler = logging.FileHandler(log, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    logging.getLogger("ultralytics").addHandler(handler)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _claim(run_dir: Path) -> Path:
    """Mark `run_dir` as being trained by this process (`train.pid`).

    Raises:
        UserInputError: another live process is training the same run (a crashed run leaves
            a stale `train.pid`, which is taken over).
    """
    pid_file = run_dir / "train.pid"
    if pid_file.is_file():
        text = pid_file.read_text().strip()
        other = int(text) if text.isdigit() else 0
        if other and other != os.getpid() and _alive(other):
            raise UserInputError(
                f"{run_dir} is being trained right now by process {other}; wait for it, stop "
                "it, or choose another --name"
            )
    run_dir.mkdir(parents=True, exist_ok=True)
    pid_file.write_text(f"{os.getpid()}\n")
    return pid_file


def train(config: TrainConfig, argv: list[str] | None = None) -> Path:
    """Train (or resume) one model; return the run folder.

    Raises:
        UserInputError: bad data, a finished run under the same name, a missing checkpoint
            for --resume, or the train extra not installed.
    """
    run_dir = config.run_dir
    last = run_dir / "weights" / "last.pt"
    check_model_name(config.model)
    if config.weights and not Path(config.weights).is_file():
        raise UserInputError(f"--weights {config.weights}: no such file")
    resolve = resolve_detector_data if config.kind == "detector" else resolve_reader_data
    data_source = resolve(Path(config.data))
    also = tuple(resolve(Path(other)) for other in config.also)

    if (run_dir / "train.pid").is_file():
        _claim(run_dir)  # fail early when another process trains this run
    ultralytics = offline.setup()
    state = checkpoint_state(last)
    if config.resume and state != "unfinished":
        raise UserInputError(
            f"nothing to resume in {run_dir}: "
            + ("the run finished" if state == "finished" else "no weights/last.pt")
        )
    if state == "finished":
        raise UserInputError(
            f"{run_dir} holds a finished run; choose another --name (or delete the folder)"
        )
    pid_file = _claim(run_dir)
    try:
        return _train(config, argv, ultralytics, state, run_dir, last, data_source, also)
    finally:
        pid_file.unlink(missing_ok=True)


def _train(config, argv, ultralytics, state, run_dir, last, data_source, also) -> Path:
    """The body of `train` once the run folder is claimed."""
    log = run_dir / "train.log"
    _log_to_file(log)
    stamp = _dt.datetime.now().astimezone().isoformat(timespec="seconds")

    if state == "unfinished":
        print(f"resuming {last}", flush=True)
        with open(run_dir / "dominotrain.json") as handle:
            record = json.load(handle)
        record.setdefault("resumed", []).append({"at": stamp, "command": command_line(argv)})
        (run_dir / "dominotrain.json").write_text(json.dumps(record, indent=2))
        ultralytics.YOLO(str(last)).train(resume=True, device=config.device)
        return run_dir

    if config.kind == "detector":
        data = absolute_data_yaml(data_source, run_dir / "data.yaml", also)
    elif also:
        data = combined_reader_folder(data_source, also, run_dir / "reader-data")
    else:
        data = data_source
    classes = count_classes(config.kind, data)
    record = {
        "kind": config.kind,
        "command": command_line(argv),
        "started": stamp,
        "config": asdict(config),
        "data": str(data_source),
        "data_card": find_card(data_source),
        "also": [{"data": str(other), "data_card": find_card(other)} for other in also],
    }
    (run_dir / "dominotrain.json").write_text(json.dumps(record, indent=2))
    arguments = {
        "data": str(data),
        "epochs": config.epochs,
        "imgsz": config.imgsz,
        "batch": config.batch,
        "device": config.device,
        "project": str(run_dir.parent),
        "name": run_dir.name,
        "exist_ok": True,
        "seed": config.seed,
        "deterministic": False,
        "patience": config.patience,
        # ultralytics loads on the main process on a CPU anyway; a GPU is fed by every core
        "workers": 0 if config.device == "cpu" else min(os.cpu_count() or 1, 16),
        "plots": True,
        "amp": config.device != "cpu",
        "close_mosaic": max(0, min(10, config.epochs // 4)),
        **AUGMENT[config.kind],
        **({} if "optimizer" in config.extra else cpu_optimizer(config.device, classes)),
        **config.extra,
    }
    if config.hours:
        arguments["time"] = config.hours
    if config.fraction:
        arguments["fraction"] = config.fraction
    if config.weights:
        arguments["pretrained"] = str(Path(config.weights).resolve())
    print(f"training {config.kind} in {run_dir} (log: {log})", flush=True)
    ultralytics.YOLO(config.model, task="obb" if config.kind == "detector" else "classify").train(
        **arguments
    )
    return run_dir
