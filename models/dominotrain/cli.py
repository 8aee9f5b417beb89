"""Subcommands `train`, `export` and `import-labels` of the `dominocam` console script.

Cheap to import: ultralytics and torch are imported inside the command functions (through
`dominotrain.offline.setup`, which says which extra to install when they are missing).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dominocam.arguments import positive_int
from dominocam.errors import UserInputError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the training-side subcommands."""
    _add_train(subparsers)
    _add_export(subparsers)
    _add_import_labels(subparsers)


def _add_train(subparsers: argparse._SubParsersAction) -> None:
    train = subparsers.add_parser(
        "train",
        help="train the tile detector or the pip reader (needs the train extra)",
        description=(
            "Train with ultralytics, offline, under runs/<kind>/<name>/ (train.log, "
            "weights/last.pt every epoch, weights/best.pt). Starting a run whose last.pt is "
            "unfinished resumes it. Needs: pip install -e '.[train]'."
        ),
    )
    train.add_argument("kind", choices=("detector", "reader"))
    train.add_argument(
        "--data",
        required=True,
        help="a `dominocam synth` or `dominocam import-labels` output folder (or its "
        "detector/ data.yaml / reader/ folder)",
    )
    train.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="DIR",
        help="another data set whose train split is added (repeatable): a second synthetic "
        "set, or your labelled photos next to synthetic data; validation stays on --data",
    )
    train.add_argument(
        "--model", help="architecture YAML (default yolov8n-obb.yaml / yolov8n-cls.yaml)"
    )
    train.add_argument("--epochs", type=positive_int, help="default 30")
    train.add_argument(
        "--hours", type=float, help="train for this wall time instead (ultralytics `time`)"
    )
    train.add_argument("--imgsz", type=positive_int, help="input size, default 640 / 64")
    train.add_argument("--batch", type=positive_int, help="default 16 / 64")
    train.add_argument("--device", default="cpu", help="cpu, or a CUDA index such as 0")
    train.add_argument("--name", help="run name under runs/<kind>/ (default: the kind)")
    train.add_argument("--weights", help="a .pt to fine-tune from (e.g. models/detector.pt)")
    train.add_argument("--patience", type=positive_int, default=100, help="early-stop patience")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--resume", action="store_true", help="insist on resuming the run --name")
    train.add_argument("--fraction", type=float, help="train on this share of the training set")
    train.add_argument("--runs-dir", help="where runs go (default runs/ in the project)")
    train.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other ultralytics training setting, e.g. --arg warmup_epochs=1 (repeatable)",
    )
    train.add_argument(
        "--background",
        action="store_true",
        help="detach from the terminal; output goes to the run's train.log",
    )
    train.set_defaults(func=cmd_train)


def _add_export(subparsers: argparse._SubParsersAction) -> None:
    export = subparsers.add_parser(
        "export",
        help="export a trained checkpoint to ONNX with metadata and a model card",
        description=(
            "Write models/<kind>.onnx (ultralytics ONNX export, simplified; the reader with a "
            "dynamic batch), add the training set's card to its metadata, check it with "
            "onnxruntime, copy the checkpoint to models/<kind>.pt for fine-tuning, and write "
            "models/<kind>.md. Needs the train extra."
        ),
    )
    export.add_argument("kind", choices=("detector", "reader"))
    export.add_argument("--weights", required=True, help="runs/<kind>/<name>/weights/best.pt")
    export.add_argument("--imgsz", type=positive_int, help="default: the training size")
    export.add_argument("--out", default=None, help="output folder (default models/)")
    export.add_argument("--eval", dest="eval_json", help="JSON of `dominocam eval` for the card")
    export.add_argument("--no-pt", action="store_true", help="do not copy the .pt beside the ONNX")
    export.add_argument(
        "--card-only",
        action="store_true",
        help="keep the ONNX already in --out and only rewrite its card (e.g. with --eval)",
    )
    export.set_defaults(func=cmd_export)


def _add_import_labels(subparsers: argparse._SubParsersAction) -> None:
    importer = subparsers.add_parser(
        "import-labels",
        help="convert labelled photos (YOLO-OBB from CVAT / Label Studio) for fine-tuning",
        description=(
            "Turn a YOLO oriented-box export whose classes are tile values like '5-10' and "
            "'down' into a detector data set and reader half crops (docs/training.md)."
        ),
    )
    importer.add_argument("source", help="the export folder (images/, labels/, names)")
    importer.add_argument("--out", required=True, help="new output folder")
    importer.add_argument("--format", choices=("yolo-obb", "label-studio"), default="yolo-obb")
    importer.add_argument(
        "--orient",
        choices=("corners", "reader"),
        default="corners",
        help="which end is which: the point order (default) or a reader model's choice",
    )
    importer.add_argument("--reader", help="reader .onnx for --orient reader")
    importer.add_argument("--val-fraction", type=float, default=0.2)
    importer.add_argument("--crop", type=positive_int, default=64, help="half crop side, px")
    importer.set_defaults(func=cmd_import_labels)


def cmd_train(args: argparse.Namespace) -> int:
    from dominotrain.train import TrainConfig, command_line, launch_background, train

    config = TrainConfig(
        kind=args.kind,
        data=args.data,
        also=tuple(args.also),
        model=args.model,
        epochs=args.epochs,
        imgsz=args.imgsz,
        batch=args.batch,
        device=str(args.device),
        name=args.name,
        resume=args.resume,
        weights=args.weights,
        hours=args.hours,
        patience=args.patience,
        seed=args.seed,
        fraction=args.fraction,
        extra=_parse_overrides(args.arg),
        **({"runs_dir": str(Path(args.runs_dir).resolve())} if args.runs_dir else {}),
    )
    argv = _rebuild_argv(args)
    if args.background:
        child = argv
        log = config.run_dir / "train.log"
        pid = launch_background(child, log)
        print(f"training in the background: pid {pid}, log {log}")
        print(f"resume after an interruption: {command_line(child)}")
        return 0
    run_dir = train(config, argv)
    print(f"done: {run_dir} (best weights: {run_dir / 'weights' / 'best.pt'})")
    return 0


def _parse_overrides(items: list[str]) -> dict:
    """`KEY=VALUE` strings to a dict, values read as YAML scalars (1, 0.5, true, text)."""
    import yaml

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UserInputError(f"--arg {item!r}: expected KEY=VALUE, e.g. warmup_epochs=1")
        if key.strip() in {"data", "project", "name", "resume", "model", "pretrained"}:
            raise UserInputError(f"--arg {key}: set it with its own option")
        out[key.strip()] = yaml.safe_load(value)
    return out


def _rebuild_argv(args: argparse.Namespace) -> list[str]:
    """The train command's arguments, every option spelt out (recorded in the model card)."""
    argv = ["train", args.kind, "--data", str(args.data)]
    for other in args.also:
        argv += ["--also", str(other)]
    for flag in (
        "model",
        "epochs",
        "hours",
        "imgsz",
        "batch",
        "device",
        "name",
        "weights",
        "fraction",
        "runs_dir",
    ):
        value = getattr(args, flag)
        if value is not None:
            argv += [f"--{flag.replace('_', '-')}", str(value)]
    argv += ["--patience", str(args.patience), "--seed", str(args.seed)]
    for item in args.arg:
        argv += ["--arg", item]
    if args.resume:
        argv.append("--resume")
    return argv


def cmd_export(args: argparse.Namespace) -> int:
    from dominotrain.export import MODELS_DIR, export

    out = Path(args.out) if args.out else MODELS_DIR
    summary = export(
        Path(args.weights),
        args.kind,
        args.imgsz,
        out,
        args.eval_json,
        copy_pt=not args.no_pt,
        card_only=args.card_only,
    )
    lat = summary["latency"]
    print(
        f"wrote {summary['path']} ({summary['bytes'] / 1e6:.2f} MB), card {summary.get('card')}; "
        + "; ".join(f"batch {x['batch']}: median {x['median_ms']} ms" for x in lat)
    )
    return 0


def cmd_import_labels(args: argparse.Namespace) -> int:
    from dominotrain.import_labels import import_labels

    card = import_labels(
        Path(args.source),
        Path(args.out),
        fmt=args.format,
        orient=args.orient,
        reader_path=Path(args.reader) if args.reader else None,
        val_fraction=args.val_fraction,
        crop=args.crop,
    )
    counts = card["counts"]
    print(
        f"wrote {args.out}: {counts.get('images_train', 0)} train / {counts.get('images_val', 0)} "
        f"val images, {counts.get('tiles_up', 0)} face-up and {counts.get('tiles_down', 0)} "
        f"face-down tiles, {counts.get('halves_train', 0) + counts.get('halves_val', 0)} half "
        f"crops ({counts.get('halves_unoriented_skipped', 0)} skipped: end unknown)"
    )
    return 0
