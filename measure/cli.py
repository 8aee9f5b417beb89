"""`dominocam eval`, `bench`, `layout-eval` and `track-eval`: the measuring commands.

Cheap to import: OpenCV, onnxruntime and dominosynth are imported inside the command
functions.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path

from dominocam.arguments import (
    add_conf,
    add_model_files,
    add_second_looks,
    add_set,
    add_threads,
    fraction,
    image_size,
    number_type,
    positive_int,
)
from dominocam.errors import UserInputError
from dominocam.rules.tiles import SUPPORTED_SETS

EVAL_OUT = Path("runs") / "eval"


def upscale(text: str) -> float:
    """A `--max-upscale` value: a factor of at least 1, or 'none' for no limit (infinity)."""
    if text.strip().lower() == "none":
        return math.inf
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'none', got {text!r}") from None
    if not value >= 1.0:
        raise argparse.ArgumentTypeError(f"must be at least 1 (1 never enlarges), got {value}")
    return value


# A `--border` value: a fraction of the crop's longer side, 0 to 2.
border = number_type(float, lambda value: 0.0 <= value <= 2.0, "must lie between 0 and 2")


def chosen_upscale(given: float | None, default: float | None) -> float | None:
    """The detector's `max_upscale` from the flag: the default when absent, None for 'none'."""
    if given is None:
        return default
    return None if math.isinf(given) else given


def add_calibration(parser: argparse.ArgumentParser) -> None:
    """`--calibration PATH` and `--no-calibration`: which tile probability the reading uses."""
    parser.add_argument(
        "--calibration",
        metavar="PATH",
        help="calibration file of the tile probability (default: the committed "
        "models/calibration.json, as `dominocam read` uses it)",
    )
    parser.add_argument(
        "--no-calibration",
        action="store_true",
        help="read without any: no probability, nothing rejected or doubtful (the figures of "
        "the reading before issue 17)",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the measuring subcommands to the `dominocam` parser."""
    _add_eval(subparsers)
    _add_bench(subparsers)
    _add_layout_eval(subparsers)
    _add_track_eval(subparsers)


def _add_eval(subparsers: argparse._SubParsersAction) -> None:
    evaluate = subparsers.add_parser(
        "eval",
        help="measure the models on synthetic validation data and real photos",
        description=(
            "Run the runtime pipeline (what `dominocam read` runs) on a synthetic val split "
            "and/or a folder of labelled real photos (realval) and report detection recall "
            "and precision, per-half and exact-tile accuracy, exact pip totals and face-down "
            "counts, each with a Wilson 95% interval and count; writes JSON, a confusion "
            "matrix and a failure gallery (PNG, drawn with OpenCV: no torch or matplotlib "
            "needed)."
        ),
    )
    evaluate.add_argument("--synthetic", help="a `dominocam synth` output folder (val split)")
    evaluate.add_argument(
        "--synthetic-print",
        help="a `dominocam synth --config print` output folder (val split): printed dominoes "
        "beside real tiles, for the set synthetic_print",
    )
    evaluate.add_argument("--realval", help="the folder of labelled real photos (realval)")
    add_model_files(evaluate)
    evaluate.add_argument(
        "--sets",
        help="comma-separated subset of synthetic,synthetic_halves,synthetic_tiles,"
        "synthetic_print,realval_scenes,realval_tiles,realval_halves",
    )
    evaluate.add_argument("--limit", type=positive_int, help="at most this many images per set")
    evaluate.add_argument("--out", help=f"folder for eval.json and the PNGs (default {EVAL_OUT})")
    add_threads(evaluate)
    add_conf(evaluate, default=None)
    evaluate.add_argument(
        "--iou", type=fraction, help="detector rotated-NMS IoU threshold (default: `read`'s)"
    )
    evaluate.add_argument(
        "--overlap",
        type=fraction,
        help="two boxes overlap when this share of either lies inside the other; the most "
        "confident set of boxes without overlaps is kept (default: read's)",
    )
    evaluate.add_argument(
        "--keep-overlapping", action="store_true", help="keep every box that NMS keeps"
    )
    evaluate.add_argument(
        "--max-upscale",
        type=upscale,
        help="enlarge a small picture at most this many times to fill the detector's input; "
        "'none' fills it whatever the size (default: read's)",
    )
    evaluate.add_argument(
        "--border",
        type=border,
        default=0.0,
        help="frame every tile crop (synthetic_tiles, realval_tiles) with a grey border this "
        "fraction of its longer side wide, to see how the tile's size in the picture matters "
        "(default 0: none)",
    )
    evaluate.add_argument(
        "--closeup-border",
        type=border,
        default=None,
        help="the close-up pass's grey frame, a fraction of the picture's longer side on each "
        "side, to choose it on pictures of one tile filling the frame (default: read's, "
        "dominocam.vision.detector.CLOSEUP_BORDER)",
    )
    add_second_looks(evaluate)
    add_calibration(evaluate)
    evaluate.add_argument("--json", action="store_true", help="print the JSON instead of a table")
    evaluate.set_defaults(func=run_eval_command)


def _add_bench(subparsers: argparse._SubParsersAction) -> None:
    bench = subparsers.add_parser(
        "bench",
        help="time each stage of reading a photo",
        description=(
            "Time decode image, detect (preprocess / forward / postprocess), read, joint "
            "decode, layout and the total on a synthetic table rendered by dominosynth (fixed "
            "seed), as median and p90 over repeated runs, and the total as a ratio to the "
            "detector's bare ONNX forward pass."
        ),
    )
    bench.add_argument(
        "--sizes",
        type=image_size,
        nargs="+",
        default=[(1280, 720), (1920, 1080)],
        metavar="WxH",
        help="table image sizes (default 1280x720 1920x1080)",
    )
    bench.add_argument(
        "--tiles", type=positive_int, default=36, help="tiles on the table (default 36)"
    )
    bench.add_argument(
        "--runs", type=positive_int, default=20, help="timed runs per size (default 20)"
    )
    bench.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    bench.add_argument(
        "--image", metavar="PATH", help="time this photo instead of a synthetic table"
    )
    add_set(bench, SUPPORTED_SETS)
    bench.add_argument("--json", action="store_true", help="print the results as JSON")
    add_model_files(bench)
    add_threads(bench)
    add_second_looks(bench)
    bench.set_defaults(func=run_bench)


def _add_layout_eval(subparsers: argparse._SubParsersAction) -> None:
    layout = subparsers.add_parser(
        "layout-eval",
        help="measure the layout reconstruction (lines, open ends) against synthetic truth",
        description=(
            "Rebuild the layout from the true face-up tiles of every synthetic table picture "
            "(a `dominocam synth` folder, or truths made in-process with --generate) and "
            "report, per layout kind, exact open ends, exact lines, false links and silent "
            "errors, with Wilson 95% intervals."
        ),
    )
    layout.add_argument("root", type=Path, nargs="?", help="a `dominocam synth` output folder")
    layout.add_argument(
        "--generate",
        type=positive_int,
        default=None,
        metavar="N",
        help="instead of a folder, make N table truths in-process (no images) from --seed",
    )
    layout.add_argument("--seed", type=int, default=101, help="seed of --generate")
    layout.add_argument("--limit", type=positive_int, default=None, help="at most N tables")
    layout.add_argument("--json", type=Path, default=None, help="write the figures as JSON")
    layout.add_argument(
        "--failures", action="store_true", help="list the pictures whose open ends are wrong"
    )
    layout.add_argument(
        "--draw", type=Path, default=None, help="draw the failures as PNGs into this folder"
    )
    layout.set_defaults(func=run_layout_eval)


def _add_track_eval(subparsers: argparse._SubParsersAction) -> None:
    ev = subparsers.add_parser(
        "track-eval",
        help="measure the tracker on synthetic game videos",
        description=(
            "Plan synthetic game videos (dominosynth.video), feed the tracker detections made "
            "from their exact truth through a simulated faulty detector and reader (or, with "
            "--noise models, the real models on the rendered frames), and "
            "report events found (recall), precision, false events, delay in frames and "
            "open-end accuracy, with Wilson 95%% intervals."
        ),
    )
    ev.add_argument("--seeds", default="0-9", help="video seeds, e.g. 0-9 or 1,4,7 (default 0-9)")
    ev.add_argument(
        "--noise",
        default="full",
        choices=["clean", "detector", "full", "models"],
        help="clean: perfect detector and reader; detector: detector faults only; "
        "full: detector and reader faults (default); models: render every frame and run the "
        "bundled detector and reader on it (the whole live path; slower)",
    )
    ev.add_argument("--json", metavar="PATH", help="also write the summary as JSON to PATH")
    ev.add_argument(
        "--events",
        metavar="PATH",
        help="also write every event as JSON lines to PATH: each true move (found, missed or "
        "never visible, with the tracker's frame and open end) and each tracker event (the "
        "move, or why it is false); two such files are compared with --compare",
    )
    ev.add_argument(
        "--compare",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="measure nothing: print the events that differ between two --events files "
        "(- only in BEFORE, + only in AFTER), e.g. two readers on the same seeds",
    )
    ev.set_defaults(func=run_track_eval)


def run_eval_command(args: argparse.Namespace) -> int:
    """`dominocam eval`: write eval.json and the PNGs; print a table (or the JSON)."""
    from dominocam.measure import plots
    from dominocam.measure.evaluate import describe_models, format_table, run_eval
    from dominocam.measure.gates import format_gates, gate_table
    from dominocam.vision.detector import CLOSEUP_BORDER, MAX_UPSCALE
    from dominocam.vision.overlaps import OVERLAP_THRESHOLD

    for flag in ("synthetic", "synthetic_print", "realval"):
        value = getattr(args, flag)
        if value and not Path(value).is_dir():
            raise UserInputError(f"--{flag.replace('_', '-')} {value}: not a folder")
    sets = [s.strip() for s in args.sets.split(",")] if args.sets else None
    results = run_eval(
        Path(args.synthetic) if args.synthetic else None,
        Path(args.realval) if args.realval else None,
        detector=args.detector,
        reader=args.reader,
        sets=sets,
        limit=args.limit,
        threads=args.threads,
        quiet=args.json,
        conf=args.conf,
        iou=args.iou,
        overlap=None if args.keep_overlapping else (args.overlap or OVERLAP_THRESHOLD),
        max_upscale=chosen_upscale(args.max_upscale, MAX_UPSCALE),
        border=args.border,
        closeup_border=CLOSEUP_BORDER if args.closeup_border is None else args.closeup_border,
        closeups=not args.no_closeups,
        far_tiles=not args.no_far_tiles,
        calibrated=not args.no_calibration,
        calibration=args.calibration,
        synthetic_print=Path(args.synthetic_print) if args.synthetic_print else None,
    )
    models = results.pop("_models")
    out = Path(args.out) if args.out else EVAL_OUT
    out.mkdir(parents=True, exist_ok=True)
    gates = gate_table(results)
    report = {
        "command": "dominocam " + " ".join(sys.argv[1:]),
        "models": describe_models(models),
        "sets": {name: result.to_dict() for name, result in results.items()},
        "gates": gates,
    }
    (out / "eval.json").write_text(json.dumps(report, indent=1))
    written = plots.write_plots(results, out)
    if args.json:
        print(json.dumps(report))
    else:
        print(format_table(results))
        print(format_gates(gates))
        print(f"wrote {out / 'eval.json'} and {len(written)} PNGs in {out}")
    return 0


def run_bench(args: argparse.Namespace) -> int:
    """`dominocam bench`."""
    from dominocam.measure.bench import bench_size, format_table
    from dominocam.vision.image_io import load_image
    from dominocam.vision.reading import PhotoReader

    if args.warmup < 0:
        raise UserInputError("--warmup must be at least 0")
    reader = PhotoReader.load(args.detector, args.reader, threads=args.threads)
    results = []
    if args.image:
        image = load_image(args.image)
        h, w = image.shape[:2]
        results.append(
            bench_size(
                reader, w, h, runs=args.runs, warmup=args.warmup, set_max=args.set, image=image
            )
        )
    else:
        for w, h in args.sizes:
            results.append(
                bench_size(
                    reader,
                    w,
                    h,
                    n_tiles=args.tiles,
                    runs=args.runs,
                    warmup=args.warmup,
                    set_max=args.set,
                )
            )
    report = {
        "detector": reader.models.detector.describe(),
        "reader": str(reader.models.reader.path),
        "threads": args.threads,
        "results": results,
    }
    if args.json:
        print(json.dumps(report))
    else:
        det = reader.models.detector
        rdr = reader.models.reader
        inputs = ", ".join(
            f"{w}x{h}"
            for w, h in dict.fromkeys(
                det.input_shape((height, width))[::-1] for width, height in args.sizes
            )
        )
        fit = ""
        if det.rect_input:
            fit = f": the smallest that holds the frame, at most {det.imgsz[1]}x{det.imgsz[0]}"
        print(
            f"detector {det.path.name} (input {inputs}{fit}), "
            f"reader {rdr.path.name} (input {rdr.side}x{rdr.side})"
        )
        print(format_table(results))
    return 0


def run_layout_eval(args: argparse.Namespace) -> int:
    """`dominocam layout-eval`."""
    from dominocam.measure.layout_eval import (
        draw_failures,
        evaluate,
        format_results,
        generated_truths,
    )

    if (args.root is None) == (args.generate is None):
        raise UserInputError("give a synth folder or --generate N")
    if args.draw is not None and args.root is None:
        raise UserInputError("--draw needs a synth folder (it draws on its images)")
    truths = generated_truths(args.generate, args.seed) if args.generate else None
    try:
        results = evaluate(args.root, args.limit, truths=truths)
    except FileNotFoundError as error:
        raise UserInputError(str(error)) from None
    print(format_results(results))
    if args.failures:
        for kind, r in results.items():
            if r.failures:
                print(f"{kind}: {' '.join(r.failures)}")
    if args.draw is not None:
        names = [n for r in results.values() for n in r.failures]
        for path in draw_failures(args.root, names, args.draw):
            print(f"drew {path}")
    if args.json is not None:
        data = {
            kind: {
                "tables": r.tables,
                **{k: v.to_dict() for k, v in r.rates().items()},
                "failures": r.failures,
            }
            for kind, r in results.items()
        }
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    return 0


def _bar(seeds: list[int]):
    from tqdm import tqdm

    return tqdm(seeds, desc="videos", unit="video")


def run_track_eval(args: argparse.Namespace) -> int:
    """`dominocam track-eval`."""
    from dominocam.measure.track_eval import (
        NO_NOISE,
        DetectorNoise,
        compare_rows,
        format_comparison,
        format_table,
        parse_seeds,
        read_rows,
        run,
        write_rows,
    )

    if args.compare:
        before, after = (read_rows(path) for path in args.compare)
        print(format_comparison(*compare_rows(before, after)))
        return 0

    noise = {
        "clean": NO_NOISE,
        "detector": dataclasses.replace(DetectorNoise(), misread_p=0.0),
        "full": DetectorNoise(),
        "models": NO_NOISE,
    }[args.noise]
    models = None
    if args.noise == "models":
        from dominocam.vision.pipeline import load_models

        models = load_models()
    summary, results = run(parse_seeds(args.seeds), noise=noise, models=models, progress=_bar)
    summary["noise_name"] = args.noise
    print(format_table(summary, results))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    if args.events:
        write_rows(results, args.events)
    return 0
