"""One training run for a machine with a GPU and many cores: `scripts/train-on-device.sh`.

    python -m dominotrain.device_run --out runs/device [--realval ../shared/realval]

Renders the synthetic sets with every core, fine-tunes the detector, the reader and the
verifier from the committed models, exports them to ONNX, fits their calibration and measures
them with `dominocam eval`, in stages. Nothing is downloaded (`dominotrain.offline`, with its
settings and font in `OUT/.yolo`) and nothing in `models/` is written: the new files are
candidates, kept only by `python -m dominotrain.keep` when every gate of issue 36 holds.

What `OUT` holds:

* `candidates/`: `detector.onnx`, `reader.onnx`, `verifier.onnx`, `calibration.json` and
  `report.json` (the plan, each stage's seconds, the machine, the files' sha256 and the eval
  figures with the gates that could be measured here) -- at most eight files, so the folder
  comes back from a device call whole;
* `data/`: the synthetic sets; `runs/`: the training runs; `eval/`: eval.json and its plots;
* `stages/<stage>.json`: written when a stage finishes, with the settings it ran with. A stage
  whose record holds the same settings is skipped, so running the same command again after an
  interruption goes on where it stopped (a training stage resumes its `last.pt`); a stage
  whose settings changed is done again.

Plans: `gpu` (the sizes of a real run, fitted to `--minutes`), `tiny` (a handful of small
pictures and one epoch each, for the test on a CPU), and `cpu-verifier` (the verifier alone,
sized for a 2-core CPU: the committed detector and reader are copied as candidates unchanged,
the calibration is fitted on synthetic pictures only) with its tiny twin `tiny-verifier`,
and `cpu-detector` (the detector alone on a 2-core CPU, fitted to `--minutes`, on the same
sets; the committed reader and verifier are copied unchanged).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from dominocam.errors import UserInputError
from dominocam.measure import calibrate, plots
from dominocam.measure.evaluate import describe_models, run_eval
from dominocam.measure.gates import gate_table
from dominocam.measure.keep_gates import check_gates
from dominosynth.config import load_config
from dominosynth.generate import generate, parse_size
from dominotrain import crop_data, offline, verifier_data, verifier_train
from dominotrain.export import export
from dominotrain.from_onnx import recover
from dominotrain.offline import PROJECT_ROOT
from dominotrain.train import TrainConfig, checkpoint_state, cpu_optimizer, train

MODELS_DIR = PROJECT_ROOT / "models"
CANDIDATE_FILES = ("detector.onnx", "reader.onnx", "verifier.onnx", "calibration.json")
REPORT = "report.json"
STAGES = (
    "render",
    "base",
    "crops",
    "detector",
    "reader",
    "verifier",
    "export",
    "calibrate",
    "eval",
)
# The eval sets measured on the synthetic hold-out set, and on --realval when given.
SYNTHETIC_SETS = ("synthetic", "synthetic_tiles", "synthetic_halves", "synthetic_print")
REALVAL_SETS = ("realval_scenes", "realval_tiles", "realval_halves")


@dataclass(frozen=True)
class SynthSet:
    """One `dominocam synth` set of the plan."""

    name: str
    count: int
    seed: int
    size: str = "1280x720"
    config: str = "default"
    sets: tuple[int, ...] = (6, 12)
    val_fraction: float = 0.1


@dataclass(frozen=True)
class Plan:
    """The sizes of one run. Seeds differ from every set the committed models saw."""

    name: str
    sets: tuple[SynthSet, ...]
    detector_imgsz: int = 640
    detector_batch: int = 64
    detector_epochs: int = 30
    reader_imgsz: int = 64
    reader_batch: int = 512
    reader_epochs: int = 20
    verifier_epochs: int = 12
    verifier_per_class: int | None = 20000
    # The detector's and the reader's shares of the training time: what --minutes leaves once
    # the stages before have run and `after_minutes` is set aside for the stages after them
    # (the reader, trained second, takes whatever the detector left).
    shares: dict = field(default_factory=lambda: {"detector": 0.65, "reader": 0.35})
    after_minutes: float = 3.0  # verifier, export, calibrate, eval
    timed: bool = True  # fit ultralytics' epochs to the time (its `time` setting)
    # The models fine-tuned; the others are the committed files, copied as candidates.
    trains: tuple[str, ...] = ("detector", "reader", "verifier")


# The training sets: `train` (the detector's and the reader's), `small` and `closeup` (the
# pictures of issue 36's close-ups), `negatives` (the verifier's not-a-tile boxes), `print`
# (printed dominoes beside real tiles: the detector's and the verifier's); the hold-out sets
# are never trained on: `holdout` (calibration on its train half, eval on its val half),
# `holdout_negatives` (calibration) and `holdout_print` (calibration on its train half, the
# eval set `synthetic_print` on its val half).
PLANS = {
    "gpu": Plan(
        "gpu",
        (
            SynthSet("train", 1200, 201),
            SynthSet("small", 400, 203, "320x256", "small"),
            SynthSet("closeup", 400, 207, "640x352", "closeup"),
            SynthSet("negatives", 300, 209, config="negatives"),
            SynthSet("print", 300, 215, config="print"),
            SynthSet("holdout", 300, 211, val_fraction=0.5),
            SynthSet("holdout_negatives", 80, 213, config="negatives", val_fraction=0.5),
            SynthSet("holdout_print", 200, 217, config="print", val_fraction=0.5),
            SynthSet("holdout_small", 120, 219, "320x256", "small", val_fraction=0.5),
            SynthSet("holdout_closeup", 120, 221, "640x352", "closeup", val_fraction=0.5),
        ),
    ),
    "tiny": Plan(
        "tiny",
        (
            SynthSet("train", 8, 201, "320x192", val_fraction=0.25),
            SynthSet("small", 4, 203, "160x128", "small", val_fraction=0.25),
            SynthSet("closeup", 4, 207, "192x128", "closeup", val_fraction=0.25),
            SynthSet("negatives", 4, 209, "320x192", "negatives", val_fraction=0.25),
            SynthSet("print", 4, 215, "320x192", "print", val_fraction=0.25),
            SynthSet("holdout", 6, 211, "320x192", val_fraction=0.5),
            SynthSet("holdout_negatives", 4, 213, "320x192", "negatives", val_fraction=0.5),
            SynthSet("holdout_print", 4, 217, "320x192", "print", val_fraction=0.5),
            SynthSet("holdout_small", 4, 219, "160x128", "small", val_fraction=0.5),
            SynthSet("holdout_closeup", 4, 221, "192x128", "closeup", val_fraction=0.5),
        ),
        detector_imgsz=64,
        detector_batch=4,
        detector_epochs=1,
        reader_imgsz=32,
        reader_batch=16,
        reader_epochs=1,
        verifier_epochs=1,
        verifier_per_class=64,
        after_minutes=0.0,
        timed=False,
    ),
    # The verifier alone on a shared 2-core CPU, 23.5 minutes measured (docs/decisions/
    # 2026-12-03-cpu-verifier.md): its crops from the training, negatives, small, close-up
    # and print sets, cut by the committed detector; the hold-out sets as in `gpu`.
    "cpu-verifier": Plan(
        "cpu-verifier",
        (
            SynthSet("train", 300, 201),
            SynthSet("small", 200, 203, "320x256", "small"),
            SynthSet("closeup", 200, 207, "640x352", "closeup"),
            SynthSet("negatives", 200, 209, config="negatives"),
            SynthSet("print", 500, 215, config="print"),
            SynthSet("holdout", 200, 211, val_fraction=0.5),
            SynthSet("holdout_negatives", 60, 213, config="negatives", val_fraction=0.5),
            SynthSet("holdout_print", 240, 217, config="print", val_fraction=0.5),
            SynthSet("holdout_small", 120, 219, "320x256", "small", val_fraction=0.5),
            SynthSet("holdout_closeup", 120, 221, "640x352", "closeup", val_fraction=0.5),
        ),
        verifier_epochs=16,
        verifier_per_class=20000,
        after_minutes=0.0,
        timed=False,
        trains=("verifier",),
    ),
}
# The detector alone on a 2-core CPU, fitted to --minutes: the sets of `cpu-verifier` (the same
# seeds, so one rendering serves both), the print scenes among the detector's pictures; the
# committed reader and verifier are the candidates, the calibration is fitted again to the
# new detector's boxes. A 640 px epoch of these pictures took about 5 minutes there.
PLANS["cpu-detector"] = replace(
    PLANS["cpu-verifier"],
    name="cpu-detector",
    detector_batch=16,
    shares={"detector": 1.0},
    after_minutes=14.0,  # calibrate and eval on two cores
    timed=True,
    trains=("detector",),
)
# `cpu-detector` with the committed detector's own training pictures beside the new ones
# (seed 13, models/detector.md, rendered again): without them the print scenes were 450 of
# 1,176 pictures and the detector lost ordinary tiles (docs/decisions/2026-12-04-cpu-detector.md).
PLANS["cpu-detector-replay"] = replace(
    PLANS["cpu-detector"],
    name="cpu-detector-replay",
    sets=(*PLANS["cpu-detector"].sets, SynthSet("replay", 1200, 13)),
)
PLANS["tiny-verifier"] = replace(PLANS["tiny"], name="tiny-verifier", trains=("verifier",))


def detector_also(plan: Plan) -> list[str]:
    """The sets the detector learns from beside `train`: those of these the plan renders."""
    named = {spec.name for spec in plan.sets}
    return [name for name in ("replay", "small", "closeup", "print") if name in named]


@dataclass
class Run:
    """The state of one run: where it writes, the plan, the clock."""

    out: Path
    plan: Plan
    device: str  # "cpu" or a CUDA index such as "0"
    workers: int
    minutes: float
    realval: Path | None = None
    started: float = field(default_factory=time.monotonic)

    def folder(self, *parts: str) -> Path:
        return self.out.joinpath(*parts)

    def data(self, *parts: str) -> Path:
        return self.folder("data", *parts)

    @property
    def candidates(self) -> Path:
        return self.folder("candidates")

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def say(self, text: str) -> None:
        clock = _dt.datetime.now().strftime("%H:%M:%S")
        print(f"[{clock} +{self.elapsed():6.0f} s] {text}", flush=True)


# ----------------------------------------------------------------------------- stages


def settings_of(run: Run, stage: str) -> dict:
    """What a stage depends on: a stage whose recorded settings differ is done again."""
    plan = asdict(run.plan)
    common = {"plan": run.plan.name, "device_kind": "cpu" if run.device == "cpu" else "cuda"}
    trains = {"trains": plan["trains"]}
    by_stage = {
        "render": {"sets": plan["sets"]},
        "base": {"sets": plan["sets"], "models": _committed_hashes(), **trains},
        "crops": {"sets": plan["sets"], **trains},
        "detector": {
            **{k: plan[k] for k in ("detector_imgsz", "detector_batch", "detector_epochs")},
            **trains,
        },
        "reader": {
            **{k: plan[k] for k in ("reader_imgsz", "reader_batch", "reader_epochs")},
            **trains,
        },
        "verifier": {k: plan[k] for k in ("verifier_epochs", "verifier_per_class")},
        "export": {**trains, "models": _committed_hashes()},
        "calibrate": {"fits_on": "synthetic"},
        "eval": {"realval": str(run.realval) if run.realval else None},
    }
    return {**common, **by_stage[stage]}


def committed(run: Run, kind: str) -> dict | None:
    """For a model the plan does not train: what the run takes instead (the committed file)."""
    if kind in run.plan.trains:
        return None
    path = MODELS_DIR / f"{kind}.onnx"
    run.say(f"{kind}: not trained in plan {run.plan.name}; the committed {path} is the candidate")
    return {"committed": str(path), "sha256": _sha256(path)}


def stage_record(run: Run, stage: str) -> Path:
    return run.folder("stages", f"{stage}.json")


def stage_done(run: Run, stage: str) -> bool:
    """Whether `stage` finished with the settings it would run with now."""
    record = stage_record(run, stage)
    if not record.is_file():
        return False
    try:
        recorded = json.loads(record.read_text()).get("settings")
    except json.JSONDecodeError:
        return False
    return recorded == json.loads(json.dumps(settings_of(run, stage)))  # tuples as lists


def mark_done(run: Run, stage: str, seconds: float, **extra) -> None:
    record = stage_record(run, stage)
    record.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "settings": settings_of(run, stage),
        "seconds": round(seconds, 1),
        "finished": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        **extra,
    }
    record.write_text(json.dumps(data, indent=1) + "\n")


def stage_outputs(run: Run, stage: str) -> list[Path]:
    """What a stage writes: removed when it is done again from the start."""
    outputs = {
        "render": [run.data(spec.name) for spec in run.plan.sets],
        "base": [run.folder("base")],
        "crops": [run.data("crops")],
        "detector": [run.folder("runs", "detector")],
        "reader": [run.folder("runs", "reader")],
        "verifier": [run.data("verifier-crops"), run.folder("runs", "verifier")],
        "export": [run.candidates / name for name in CANDIDATE_FILES[:3]],
        "calibrate": [run.folder("calibrate"), run.candidates / "calibration.json"],
        "eval": [run.folder("eval"), run.candidates / REPORT],
    }
    return outputs[stage]


def forget(run: Run, stage: str) -> None:
    """Remove a stage's record and what it wrote."""
    stage_record(run, stage).unlink(missing_ok=True)
    for path in stage_outputs(run, stage):
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def stage_render(run: Run) -> dict:
    """Every set of the plan, each rendered with every core (`dominosynth.generate`)."""
    made = {}
    for spec in run.plan.sets:
        folder = run.data(spec.name)
        if (folder / "card.json").is_file() and _same_set(folder, spec):
            run.say(f"render: {spec.name} is there")
            continue
        if folder.exists():
            shutil.rmtree(folder)  # an interrupted set: the same seed draws it again
        start = time.monotonic()
        width, height = parse_size(spec.size)
        command = (
            f"dominocam synth --out {folder} --count {spec.count} --seed {spec.seed} "
            f"--size {spec.size} --kind mixed --set {','.join(map(str, spec.sets))} "
            f"--config {spec.config} --val-fraction {spec.val_fraction} --workers {run.workers}"
        )
        generate(
            folder,
            spec.count,
            spec.seed,
            width,
            height,
            "mixed",
            spec.sets,
            load_config(spec.config),
            workers=run.workers,
            val_fraction=spec.val_fraction,
            command=command,
            progress=False,
        )
        seconds = time.monotonic() - start
        made[spec.name] = round(seconds, 1)
        run.say(f"render: {spec.name}, {spec.count} pictures {spec.size} in {seconds:.0f} s")
    return {"rendered": made}


def _same_set(folder: Path, spec: SynthSet) -> bool:
    card = json.loads((folder / "card.json").read_text())
    return (card.get("count"), card.get("seed"), card.get("config", {}).get("name")) == (
        spec.count,
        spec.seed,
        spec.config,
    )


def stage_base(run: Run) -> dict:
    """The committed detector and reader as trainable checkpoints (`dominotrain.from_onnx`)."""
    base = run.folder("base")
    found = {}
    if not {"detector", "reader"} & set(run.plan.trains):
        run.say("base: neither the detector nor the reader is trained; nothing to rebuild")
        return {"needed": False}
    for kind, yaml_name, images in (
        ("detector", "yolov8n-obb.yaml", run.data("train")),
        (
            "reader",
            str(MODELS_DIR / "dominotrain" / "yolov8-cls-narrow.yaml"),
            run.data("train") / "reader" / "train",
        ),
    ):
        recovered = recover(MODELS_DIR / f"{kind}.onnx", yaml_name, images, base / f"{kind}.pt")
        relative = recovered.max_abs_difference / max(recovered.output_scale, 1e-9)
        run.say(f"base: {kind}.pt rebuilt from models/{kind}.onnx (difference {relative:.1e})")
        if relative > 1e-3:
            raise UserInputError(
                f"models/{kind}.onnx rebuilt with a difference of {relative:.1e} of its range"
            )
        found[kind] = relative
    return {"relative_difference": found}


def stage_crops(run: Run) -> dict:
    """The detector's pictures of one small tile (`dominotrain.crop_data`)."""
    if "detector" not in run.plan.trains:
        run.say("crops: the detector is not trained; no crops")
        return {"needed": False}
    out = run.data("crops")
    if out.exists():
        shutil.rmtree(out)
    card = crop_data.build(run.data("train"), out, seed=1, command="dominotrain.device_run")
    run.say(f"crops: {card['pictures']} single-tile pictures")
    return {"pictures": card["pictures"]}


def training_hours(run: Run, kind: str) -> float | None:
    """The wall time of one ultralytics training: its share of what the clock leaves."""
    if not run.plan.timed:
        return None
    left = run.minutes - run.elapsed() / 60 - run.plan.after_minutes
    shares = run.plan.shares
    # The detector first takes its share; the reader, after it, whatever is left.
    share = shares["detector"] / sum(shares.values()) if kind == "detector" else 1.0
    minutes = max(left * share, 0.5)
    return round(minutes / 60, 4)


def _optimizer(kind: str) -> dict:
    """Fine-tuning: AdamW at ultralytics' own rate for short runs, no warm-up (its `auto`
    would choose MuSGD at a from-scratch rate for long runs)."""
    classes = 2 if kind == "detector" else 14
    return {**cpu_optimizer("cpu", classes), "warmup_epochs": 0}


def train_stage(run: Run, kind: str) -> dict:
    """Fine-tune the detector or the reader from the committed weights (`dominotrain.train`),
    resuming an interrupted run of the same stage."""
    taken = committed(run, kind)
    if taken is not None:
        return taken
    plan = run.plan
    run_dir = run.folder("runs", kind, kind)
    offline.setup(run.folder(".yolo"))
    state = checkpoint_state(run_dir / "weights" / "last.pt")
    if state == "finished" and (run_dir / "weights" / "best.pt").is_file():
        run.say(f"{kind}: the run in {run_dir} is finished")
        return {"run_dir": str(run_dir)}
    if state == "missing" and run_dir.exists():
        shutil.rmtree(run_dir)
    hours = training_hours(run, kind)
    extra = {**_optimizer(kind), "cache": "ram" if kind == "detector" else False}
    if not offline.HAS_POLARS or plan.name == "tiny":
        extra["plots"] = False
    if kind == "detector":
        also = detector_also(plan)
        if any(run.data("crops", "detector", "images", "train").glob("*.jpg")):
            also.append("crops")  # a tiny plan's pictures may give no crop
        config = TrainConfig(
            kind="detector",
            data=str(run.data("train")),
            also=tuple(str(run.data(n)) for n in also),
            epochs=plan.detector_epochs,
            imgsz=plan.detector_imgsz,
            batch=plan.detector_batch,
            device=run.device,
            name=kind,
            weights=str(run.folder("base", "detector.pt")),
            hours=hours,
            runs_dir=str(run.folder("runs")),
            extra={**extra, "mosaic": 0.5},
        )
    else:
        config = TrainConfig(
            kind="reader",
            data=str(run.data("train")),
            also=tuple(str(run.data(n)) for n in ("small", "closeup")),
            model=str(MODELS_DIR / "dominotrain" / "yolov8-cls-narrow.yaml"),
            epochs=plan.reader_epochs,
            imgsz=plan.reader_imgsz,
            batch=plan.reader_batch,
            device=run.device,
            name=kind,
            weights=str(run.folder("base", "reader.pt")),
            hours=hours,
            runs_dir=str(run.folder("runs")),
            extra=extra,
        )
    budget = f"{hours * 60:.1f} min" if hours else f"{config.epochs} epoch(s)"
    run.say(f"{kind}: training on {_device_name(run.device)} for {budget} in {run_dir}")
    train(config, train_argv(config))
    return {"run_dir": str(run_dir), "hours": hours}


def train_argv(config) -> list[str]:
    """The `dominocam train` arguments that run `config` (recorded in the model's card)."""
    argv = ["train", config.kind, "--data", config.data]
    for other in config.also:
        argv += ["--also", other]
    for flag in ("model", "epochs", "hours", "imgsz", "batch", "device", "name", "weights"):
        value = getattr(config, flag)
        if value is not None:
            argv += [f"--{flag}", str(value)]
    argv += ["--runs-dir", config.runs_dir]
    for key, value in config.extra.items():
        argv += ["--arg", f"{key}={value}"]
    return argv


def stage_verifier(run: Run) -> dict:
    """Cut the verifier's crops with every core (the committed detector's boxes,
    `dominotrain.verifier_data`) and fine-tune the committed verifier on them."""
    taken = committed(run, "verifier")
    if taken is not None:
        return taken
    crops = run.data("verifier-crops")
    os.environ["DOMINOCAM_MODELS"] = str(MODELS_DIR)  # the committed detector cuts the boxes
    if not (crops / "counts.json").is_file():
        if crops.exists():
            shutil.rmtree(crops)
        sets = [run.data(n) for n in ("train", "negatives", "small", "closeup", "print")]
        counts = verifier_data.build(sets, crops, threads=1, seed=2, workers=run.workers)
        run.say(f"verifier: crops {counts}")
    out = run.folder("runs", "verifier")
    device = "cpu" if run.device == "cpu" else f"cuda:{run.device}"
    run.say(f"verifier: training on {_device_name(run.device)}, {run.plan.verifier_epochs} epochs")
    record = verifier_train.train(
        crops,
        out,
        run.plan.verifier_epochs,
        threads=min(run.workers, 8),
        seed=1,
        command="python -m dominotrain.device_run (verifier stage)",
        per_class=run.plan.verifier_per_class,
        device=device,
        init=MODELS_DIR / "verifier.onnx",
        lr=1e-3,
    )
    last = record["epochs"][-1] if record["epochs"] else {}
    return {"run_dir": str(out), "last_epoch": last}


def stage_export(run: Run) -> dict:
    """The candidates' ONNX files (`dominotrain.export`, checked with onnxruntime)."""
    run.candidates.mkdir(parents=True, exist_ok=True)
    found = {}
    for kind in ("detector", "reader", "verifier"):
        if kind not in run.plan.trains:  # the committed file, byte for byte
            shutil.copyfile(MODELS_DIR / f"{kind}.onnx", run.candidates / f"{kind}.onnx")
            found[kind] = {"committed": True}
            run.say(f"export: {kind}.onnx copied from models/ (not trained)")
        elif kind == "verifier":  # `verifier_train` writes its ONNX file itself
            trained = run.folder("runs", "verifier", "verifier.onnx")
            shutil.copyfile(trained, run.candidates / "verifier.onnx")
        else:
            weights = run.folder("runs", kind, kind, "weights", "best.pt")
            summary = export(weights, kind, out=run.candidates, card=False, copy_pt=False)
            found[kind] = {"bytes": summary["bytes"], "latency": summary["latency"]}
            run.say(f"export: {summary['path']} ({summary['bytes'] / 1e6:.2f} MB)")
    return found


# The hold-out sets the calibration fits on (their train halves), one of each kind of picture
# the product reads; `dominocam calibrate` weighs each alike.
CALIBRATION_SETS = (
    "holdout",
    "holdout_negatives",
    "holdout_print",
    "holdout_small",
    "holdout_closeup",
)


def calibration_args(run: Run) -> argparse.Namespace:
    """`dominocam calibrate`'s arguments for the candidates: the train halves of
    `CALIBRATION_SETS`, never the real photos: --realval is only measured (its README: never
    train on them, never tune a threshold to them). Parsed by the command's own parser, so
    every option it has keeps its default here; not by `dominocam.cli.build_parser`, whose
    other commands import what the device machine lacks (platformdirs)."""
    parser = argparse.ArgumentParser(prog="dominocam")
    calibrate.register(parser.add_subparsers())
    argv = ["calibrate", "--split", "train", "--refresh", "--quiet"]
    argv += ["--out", str(run.candidates / "calibration.json")]
    argv += ["--cache", str(run.folder("calibrate", "boxes.json"))]
    for name in CALIBRATION_SETS:
        argv += ["--synthetic", str(run.data(name))]
    return parser.parse_args(argv)


def stage_calibrate(run: Run) -> dict:
    """The calibration fitted to the candidates (`calibration_args`)."""
    (run.candidates / "calibration.json").unlink(missing_ok=True)  # read without one
    os.environ["DOMINOCAM_MODELS"] = str(run.candidates)
    args = calibration_args(run)
    try:
        calibrate.run(args)
    except UserInputError as error:
        if not run.plan.name.startswith("tiny"):
            raise
        # One epoch on a few tiny pictures reads too little to fit; the plan only shows that
        # the stages work, so it takes the committed calibration.
        shutil.copyfile(MODELS_DIR / "calibration.json", run.candidates / "calibration.json")
        run.say(f"calibrate: {error}; the tiny plan takes the committed calibration")
        return {"fitted": False, "why": str(error)}
    return {"fitted": True}


def stage_eval(run: Run) -> dict:
    """`dominocam eval` of the candidates on the hold-out set's val split, the print
    scenes' hold-out val split (`synthetic_print`) and --realval when given."""
    sets = SYNTHETIC_SETS + (REALVAL_SETS if run.realval else ())
    results = run_eval(
        run.data("holdout"),
        run.realval,
        detector=str(run.candidates / "detector.onnx"),
        reader=str(run.candidates / "reader.onnx"),
        sets=sets,
        threads=min(run.workers, 8),
        quiet=True,
        calibration=str(run.candidates / "calibration.json"),
        synthetic_print=run.data("holdout_print"),
    )
    models = results.pop("_models")
    out = run.folder("eval")
    out.mkdir(parents=True, exist_ok=True)
    report = {
        "command": f"dominocam eval --synthetic {run.data('holdout')}"
        + f" --synthetic-print {run.data('holdout_print')}"
        + (f" --realval {run.realval}" if run.realval else "")
        + f" --detector {run.candidates / 'detector.onnx'} --reader "
        f"{run.candidates / 'reader.onnx'} --sets {','.join(sets)}",
        "models": describe_models(models),
        "sets": {name: result.to_dict() for name, result in results.items()},
        "gates": gate_table(results),
    }
    (out / "eval.json").write_text(json.dumps(report, indent=1))
    plots.write_plots(results, out)
    for name, result in results.items():
        figures = ", ".join(
            f"{m} {r.k}/{r.n}"
            for m, r in result.metrics().items()
            if m
            in (
                "detection_recall",
                "detection_precision",
                "exact_tile_set",
                "half_accuracy",
                "no_printed_tile",
            )
        )
        run.say(f"eval: {name}: {figures}")
    return {}


STAGE_FUNCTIONS = {
    "render": stage_render,
    "base": stage_base,
    "crops": stage_crops,
    "detector": lambda run: train_stage(run, "detector"),
    "reader": lambda run: train_stage(run, "reader"),
    "verifier": stage_verifier,
    "export": stage_export,
    "calibrate": stage_calibrate,
    "eval": stage_eval,
}


# ----------------------------------------------------------------------------- report


def write_report(run: Run, seconds: dict[str, float]) -> Path:
    """`candidates/report.json`: what was made, how, how long it took and what it measured,
    with the gates of issue 36 that the figures here can decide (`dominocam.measure.keep_gates`)."""
    evaluation = json.loads(run.folder("eval", "eval.json").read_text())
    report = {
        "made_by": "scripts/train-on-device.sh (python -m dominotrain.device_run)",
        "finished": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "plan": asdict(run.plan),
        "minutes_asked": run.minutes,
        "machine": _machine(run),
        "stage_seconds": seconds,
        "total_seconds": round(sum(seconds.values()), 1),
        "files": {
            name: {"sha256": _sha256(run.candidates / name), "bytes": _size(run.candidates / name)}
            for name in CANDIDATE_FILES
        },
        "committed": _committed_hashes(),
        "realval": str(run.realval) if run.realval else None,
        "eval": {k: evaluation[k] for k in ("command", "models", "sets", "gates")},
    }
    report["issue36_gates"] = check_gates(report)
    path = run.candidates / REPORT
    path.write_text(json.dumps(report, indent=1) + "\n")
    return path


def _machine(run: Run) -> dict:
    info = {"cpus": os.cpu_count(), "device": _device_name(run.device), "workers": run.workers}
    try:
        import torch

        info["torch"] = torch.__version__
    except ImportError:  # pragma: no cover - the train extra is needed to get here
        pass
    return info


def _device_name(device: str) -> str:
    if device == "cpu":
        return "the CPU"
    import torch

    return f"cuda:{device} ({torch.cuda.get_device_name(int(device))})"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _size(path: Path) -> int:
    return path.stat().st_size


def _committed_hashes() -> dict[str, str]:
    """The sha256 of the committed files the run starts from."""
    return {
        name: _sha256(MODELS_DIR / name)
        for name in ("detector.onnx", "reader.onnx", "verifier.onnx")
        if (MODELS_DIR / name).is_file()
    }


# ----------------------------------------------------------------------------- main


def choose_device(asked: str) -> str:
    """`auto`: the first CUDA GPU when torch sees one, else the CPU."""
    if asked != "auto":
        return asked.removeprefix("cuda:") if asked.startswith("cuda") else asked
    try:
        import torch
    except ImportError as error:
        raise UserInputError(f"torch is needed to train ({error})") from error
    return "0" if torch.cuda.is_available() else "cpu"


def run_all(run: Run, only: tuple[str, ...] = STAGES) -> Path | None:
    """Every stage not yet done, in order, up to the last of `only`; returns the report's
    path once every stage is done (None before)."""
    offline.setup(run.folder(".yolo"))
    seconds: dict[str, float] = {}
    run.say(
        f"plan {run.plan.name}: {run.workers} worker processes, training on "
        f"{_device_name(run.device)}, {run.minutes} minutes asked, output {run.out}"
    )
    last = max(STAGES.index(stage) for stage in only)
    for number, stage in enumerate(STAGES):
        record = stage_record(run, stage)
        if stage_done(run, stage):
            seconds[stage] = json.loads(record.read_text())["seconds"]
            run.say(f"{stage}: done before ({seconds[stage]:.0f} s), skipped")
            continue
        if number > last:
            run.say(f"stopped before {stage} (--only)")
            return None
        if stage not in only:
            raise UserInputError(f"stage {stage} is not done; run it first (--only)")
        if record.is_file():  # done with other settings: from the start
            forget(run, stage)
        for later in STAGES[number + 1 :]:  # they used what this stage makes
            forget(run, later)
        run.say(f"{stage}: start")
        start = time.monotonic()
        extra = STAGE_FUNCTIONS[stage](run) or {}
        seconds[stage] = round(time.monotonic() - start, 1)
        mark_done(run, stage, seconds[stage], **extra)
        run.say(f"{stage}: done in {seconds[stage]:.0f} s")
    path = write_report(run, seconds)
    run.say(
        f"all stages done in {sum(seconds.values()):.0f} s of stage time; candidates and "
        f"report in {run.candidates}"
    )
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dominotrain.device_run",
        description="Render, fine-tune, export and measure candidate models in stages "
        "(scripts/train-on-device.sh; docs/training.md, 'On a GPU machine').",
    )
    parser.add_argument("--out", required=True, type=Path, help="the run's folder")
    parser.add_argument(
        "--realval", type=Path, help="labelled real photos (read only): eval and calibration"
    )
    parser.add_argument("--plan", choices=sorted(PLANS), default="gpu")
    parser.add_argument(
        "--minutes", type=float, default=11.0, help="wall time the whole run aims at (gpu plan)"
    )
    parser.add_argument("--device", default="auto", help="auto, cpu, or a CUDA index (0)")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (default: every core)"
    )
    parser.add_argument(
        "--only",
        help="comma-separated stages to run now (those before them must be done): e.g. "
        "eval with --realval on this machine after a GPU run",
    )
    args = parser.parse_args(argv)
    if args.realval is not None and not (args.realval / "scenes" / "labels.json").is_file():
        print(f"dominocam: error: --realval {args.realval}: no scenes/labels.json", file=sys.stderr)
        return 2
    only = tuple(s.strip() for s in args.only.split(",")) if args.only else STAGES
    unknown = [s for s in only if s not in STAGES]
    if unknown:
        print(f"dominocam: error: unknown stage(s) {unknown}; stages: {STAGES}", file=sys.stderr)
        return 2
    try:
        run = Run(
            out=args.out.resolve(),
            plan=PLANS[args.plan],
            device=choose_device(args.device),
            workers=max(1, args.workers),
            minutes=args.minutes,
            realval=args.realval.resolve() if args.realval else None,
        )
        os.environ.setdefault("YOLO_CONFIG_DIR", str(run.folder(".yolo")))
        run_all(run, only)
    except UserInputError as error:
        print(f"dominocam: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
