"""Keep candidate models only when every gate of issue 36 holds: `scripts/keep-candidate-models.sh`.

    python -m dominotrain.keep --candidates DIR --realval ../shared/realval [--dry-run]

`DIR` is the `candidates/` folder of `dominotrain.device_run` (`scripts/train-on-device.sh`):
`detector.onnx`, `reader.onnx`, `verifier.onnx`, `calibration.json` and `report.json`. Here:

1. the files must be the ones the report measured (their sha256);
2. the real figures the report lacks are measured on this machine, read-only: the candidates
   on `--realval` (its scenes and single-tile crops), and the committed models on the same
   crops (the "no worse than today" baseline);
3. `dominocam bench` times the candidates at 1280x720 on 2 threads here (the speed gate is
   about this kind of machine, not the GPU machine);
4. `dominocam.measure.keep_gates` checks every gate. Only when all hold (and not `--dry-run`) are
   the four files copied into `models/`, with `detector.md` and `reader.md` written again from their
   metadata and the figures, and a note at the top of `verifier.md` and `calibration.md`. Otherwise
   `models/` is left as it is and the exit status is 1.

Everything measured is written to `--work` (default `runs/keep/`): `keep.json` (the report
with the figures added and the gates checked) and the eval plots.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from dominocam.errors import UserInputError
from dominocam.measure import plots
from dominocam.measure.bench import bench_size
from dominocam.measure.evaluate import describe_models, run_eval
from dominocam.measure.keep_gates import BENCH_SIZE, BENCH_THREADS, check_gates, format_gates
from dominocam.vision.reading import PhotoReader
from dominotrain import cards
from dominotrain.device_run import CANDIDATE_FILES, REALVAL_SETS, REPORT, _sha256
from dominotrain.export import measure_latency, read_metadata
from dominotrain.offline import PROJECT_ROOT

MODELS_DIR = PROJECT_ROOT / "models"
NOTE_BEGIN = "<!-- kept from a candidate run: begin -->"
NOTE_END = "<!-- kept from a candidate run: end -->"


def load_report(candidates: Path) -> dict[str, Any]:
    """The candidates' report, after checking that every file is the one it measured.

    Raises:
        UserInputError: a file or the report is missing, or a file changed since.
    """
    path = candidates / REPORT
    if not path.is_file():
        raise UserInputError(f"{candidates}: no {REPORT} (the output of train-on-device.sh?)")
    report = json.loads(path.read_text())
    for name in CANDIDATE_FILES:
        file = candidates / name
        if not file.is_file():
            raise UserInputError(f"{candidates}: {name} is missing")
        recorded = (report.get("files") or {}).get(name, {}).get("sha256")
        if recorded != _sha256(file):
            raise UserInputError(f"{file} is not the file the report measured (sha256 differs)")
    return report


def measure_realval(report: dict, candidates: Path, realval: Path, work: Path, threads: int):
    """Add the candidates' real figures (the sets the report lacks) and the committed models'
    single-tile figures (the baseline) to `report`."""
    sets = report.setdefault("eval", {}).setdefault("sets", {})
    missing = [name for name in REALVAL_SETS if name not in sets]
    if missing:
        results = run_eval(
            None,
            realval,
            detector=str(candidates / "detector.onnx"),
            reader=str(candidates / "reader.onnx"),
            sets=missing,
            threads=threads,
            quiet=True,
            calibration=str(candidates / "calibration.json"),
        )
        models = results.pop("_models")
        for name, result in results.items():
            sets[name] = result.to_dict()
        report["eval"].setdefault("models", describe_models(models))
        report["eval"]["realval_command"] = (
            f"dominocam eval --realval {realval} --detector {candidates / 'detector.onnx'} "
            f"--reader {candidates / 'reader.onnx'} --calibration "
            f"{candidates / 'calibration.json'} --sets {','.join(missing)}"
        )
        plots.write_plots(results, work / "eval")
    keep = report.setdefault("keep", {})
    if "baseline" not in keep:
        baseline = run_eval(
            None,
            realval,
            detector=str(MODELS_DIR / "detector.onnx"),
            reader=str(MODELS_DIR / "reader.onnx"),
            sets=["realval_tiles"],
            threads=threads,
            quiet=True,
        )
        models = baseline.pop("_models")
        keep["baseline"] = {
            "models": describe_models(models),
            "sets": {name: result.to_dict() for name, result in baseline.items()},
        }


def measure_bench(report: dict, candidates: Path, runs: int) -> None:
    """`dominocam bench` of the candidates at 1280x720 on 2 threads, into `report`."""
    reader = PhotoReader.load(
        candidates / "detector.onnx", candidates / "reader.onnx", threads=BENCH_THREADS
    )
    found = bench_size(reader, *BENCH_SIZE, runs=runs)
    report.setdefault("keep", {})["bench"] = {
        "total_median_ms": found["stages"]["total"]["median_ms"],
        "size": list(BENCH_SIZE),
        "threads": BENCH_THREADS,
        "runs": runs,
        "cpus": os.cpu_count(),
        "stages": found["stages"],
    }


def keep(report: dict, candidates: Path, models: Path) -> list[Path]:
    """Copy the candidates into `models` and write their cards; returns what was written."""
    written = []
    for name in CANDIDATE_FILES:
        shutil.copyfile(candidates / name, models / name)
        written.append(models / name)
    evaluation = {
        "command": report["eval"].get("command"),
        "models": report["eval"].get("models") or {},
        "sets": report["eval"]["sets"],
    }
    for kind in ("detector", "reader"):
        written.append(write_model_card(models / f"{kind}.onnx", kind, evaluation))
    for name, what in (("verifier.md", "verifier.onnx"), ("calibration.md", "calibration.json")):
        written.append(write_note(models / name, what, report))
    return written


def write_model_card(path: Path, kind: str, evaluation: dict) -> Path:
    """`models/<kind>.md` from the ONNX file's own metadata (its training record) and the
    figures measured on it (`dominotrain.cards`)."""
    metadata = read_metadata(path)
    data_card = metadata.get("data_card") or {}
    training = dict(data_card.get("training") or {}) if isinstance(data_card, dict) else {}
    imgsz = metadata.get("imgsz") or [0]
    latency = [measure_latency(path, batch=1)]
    if kind == "reader":
        latency.append(measure_latency(path, batch=80, runs=10))
    summary = {
        "kind": kind,
        "path": str(path),
        "bytes": path.stat().st_size,
        "sha256": _sha256(path),
        "weights": "the best.pt of scripts/train-on-device.sh",
        "imgsz": imgsz[0] if isinstance(imgsz, list | tuple) else imgsz,
        "names": metadata.get("names"),
        "latency": latency,
        "last_epoch": {},
        "data_card": data_card,
        "checkpoint_args": training,
        "architecture": training.get("model"),
    }
    return cards.write_card(path.with_suffix(".md"), summary, evaluation)


def write_note(card: Path, what: str, report: dict) -> Path:
    """Put (or replace) a note under the title of a hand-written card: the file now in
    `models/` comes from a candidate run, and the prose below described the one before."""
    sha = report["files"][what]["sha256"]
    note = "\n".join(
        [
            NOTE_BEGIN,
            "",
            f"> **`{what}` (sha256 `{sha[:16]}...`) was made by `scripts/train-on-device.sh`** "
            f"(plan `{report['plan']['name']}`, on {report['machine'].get('device')}, "
            f"{report.get('finished')}) and kept by `scripts/keep-candidate-models.sh` with "
            "every gate of issue 36 holding (docs/training.md, 'On a GPU machine'). The "
            "sections below describe the file it replaced until they are written again.",
            "",
            NOTE_END,
        ]
    )
    text = card.read_text() if card.is_file() else f"# {what}\n"
    if NOTE_BEGIN in text and NOTE_END in text:
        head, rest = text.split(NOTE_BEGIN, 1)
        text = head + note + rest.split(NOTE_END, 1)[1]
    else:
        title, sep, body = text.partition("\n")
        text = f"{title}\n\n{note}\n{sep}{body}"
    card.write_text(text)
    return card


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dominotrain.keep",
        description="Check the gates of issue 36 on candidate models and copy them into "
        "models/ only when every gate holds.",
    )
    parser.add_argument("--candidates", type=Path, required=True, help="DIR/candidates of a run")
    parser.add_argument("--realval", type=Path, help="../shared/realval (read only)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="default: models/")
    parser.add_argument("--work", type=Path, default=PROJECT_ROOT / "runs" / "keep")
    parser.add_argument("--threads", type=int, default=2, help="eval threads (default 2)")
    parser.add_argument("--bench-runs", type=int, default=20)
    parser.add_argument(
        "--no-bench",
        action="store_true",
        help="time nothing here: the speed gate takes the report's figure, if it has one",
    )
    parser.add_argument("--dry-run", action="store_true", help="check, never copy")
    args = parser.parse_args(argv)
    try:
        report = load_report(args.candidates)
        args.work.mkdir(parents=True, exist_ok=True)
        if args.realval is not None:
            if not (args.realval / "scenes" / "labels.json").is_file():
                raise UserInputError(f"--realval {args.realval}: no scenes/labels.json")
            measure_realval(report, args.candidates, args.realval, args.work, args.threads)
        if not args.no_bench:
            measure_bench(report, args.candidates, args.bench_runs)
        checked = check_gates(report)
        report["issue36_gates"] = checked
        report.setdefault("keep", {})["checked"] = (
            _dt.datetime.now().astimezone().isoformat(timespec="seconds")
        )
        (args.work / "keep.json").write_text(json.dumps(report, indent=1) + "\n")
        print(format_gates(checked))
        print(f"wrote {args.work / 'keep.json'}")
        if not checked["all_hold"]:
            print(f"models in {args.models} left as they are")
            return 1
        if args.dry_run:
            print("--dry-run: nothing copied")
            return 0
        for path in keep(report, args.candidates, args.models):
            print(f"wrote {path}")
        return 0
    except UserInputError as error:
        print(f"dominocam: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
