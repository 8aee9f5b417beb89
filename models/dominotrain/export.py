"""`dominocam export detector|reader`: a trained checkpoint to ONNX with metadata and a card.

The ONNX files are what the runtime (`vision/`) loads; their contract:

* `models/detector.onnx`: ultralytics' OBB export (`simplify=True`, default opset) with a
  dynamic input 1x3xHxW, H and W multiples of the stride up to the metadata's `imgsz`: the
  runtime letterboxes a photo into the smallest such rectangle (`dominocam.vision.geometry.
  rect_input_shape`), so a 16:9 frame costs 640x384, not the whole square. A static
  1x3xSxS detector (an earlier export) still loads and gets the square. Raw output
  `[1, 4 + classes + 1, anchors]` (cx, cy, w, h, class scores, angle in radians last).
* `models/reader.onnx`: ultralytics' classification export with a dynamic batch axis; input
  Nx3xSxS RGB scaled to 0..1 (no mean/std), output N x classes softmax probabilities. Class
  index i means `int(names[i])` pips: ultralytics sorts the class folders as strings, so the
  order is 0, 1, 10, 11, 12, 2, ... and never index == value.
* Metadata keeps ultralytics' keys (`names`, `imgsz`, `stride`, `task`, ... as Python
  literals) and adds `data_card`: a JSON string of the training set's `card.json` with
  `training_command` and `training` (model, epochs, image size, fine-tuned from) added.
"""

from __future__ import annotations

import ast
import csv
import json
import shutil
import statistics
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

from dominocam.errors import UserInputError
from dominocam.vision.onnx_model import file_sha256
from dominotrain import cards, offline
from dominotrain.offline import PROJECT_ROOT

MODELS_DIR = PROJECT_ROOT / "models"
TASK_KIND = {"obb": "detector", "classify": "reader"}


def run_record(weights: Path) -> dict:
    """The `dominotrain.json` of the run that wrote `weights` (empty if there is none)."""
    for folder in list(Path(weights).resolve().parents)[:3]:
        record = folder / "dominotrain.json"
        if record.is_file():
            return {**json.loads(record.read_text()), "run_dir": str(folder)}
    return {}


def last_results(run_dir: str | Path | None) -> dict:
    """The last row of ultralytics' results.csv of a run (validation metrics per epoch)."""
    if not run_dir:
        return {}
    path = Path(run_dir) / "results.csv"
    if not path.is_file():
        return {}
    with open(path, newline="") as handle:
        rows = [{k.strip(): v.strip() for k, v in row.items()} for row in csv.DictReader(handle)]
    return rows[-1] if rows else {}


def architecture(record: dict, checkpoint_args: dict) -> str | None:
    """The architecture the run was started with.

    A resumed run's checkpoint names its own `last.pt` as the model, so the YAML asked for,
    which the run's record keeps, comes first.
    """
    return (record.get("config") or {}).get("model") or checkpoint_args.get("model")


def build_data_card(record: dict, checkpoint_args: dict, recovered: dict | None = None) -> dict:
    """The `data_card` metadata: the set's card.json plus how the model was trained.

    A checkpoint that `dominotrain.from_onnx` rebuilt (`recovered`: its `recovered_from`)
    and was not trained since keeps the card of the ONNX file it came from, with where it
    came from: exporting it again changes the file, not what the model learnt.
    """
    if recovered and recovered.get("data_card") and not record:
        card = dict(json.loads(recovered["data_card"]))
        card["re_exported_from"] = recovered.get("onnx")
        return card
    card = dict(record.get("data_card") or {})
    card["training_command"] = record.get("command")
    if record.get("also"):  # train splits added to this set's (`dominocam train --also`)
        card["also_trained_on"] = [
            {"data": other.get("data"), "command": (other.get("data_card") or {}).get("command")}
            for other in record["also"]
        ]
    card["training"] = {
        "model": architecture(record, checkpoint_args),
        "data": record.get("data") or checkpoint_args.get("data"),
        "epochs": checkpoint_args.get("epochs"),
        "imgsz": checkpoint_args.get("imgsz"),
        "batch": checkpoint_args.get("batch"),
        "pretrained": checkpoint_args.get("pretrained"),
        "resumed": record.get("resumed", []),
    }
    return card


def add_metadata(path: Path, extra: dict[str, str]) -> None:
    """Add (or replace) string metadata entries of an ONNX file in place."""
    import onnx

    model = onnx.load(str(path))
    keep = [(p.key, p.value) for p in model.metadata_props if p.key not in extra]
    del model.metadata_props[:]
    for key, value in [*keep, *extra.items()]:
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(model, str(path))


def read_metadata(path: Path) -> dict[str, object]:
    """An ONNX file's metadata through onnxruntime, literals parsed (names, imgsz, ...)."""
    meta = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    raw = meta.get_modelmeta().custom_metadata_map
    parsed: dict[str, object] = {}
    for key, value in raw.items():
        if key == "data_card":
            parsed[key] = json.loads(value)
            continue
        try:
            parsed[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parsed[key] = value
    return parsed


def measure_latency(
    path: Path, batch: int = 1, runs: int = 30, threads: int = 2
) -> dict[str, float | int]:
    """Median and p90 of the bare onnxruntime forward pass (ms), random input, `threads`."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    spec = session.get_inputs()[0]
    imgsz = read_metadata(path).get("imgsz", [64, 64])
    shape = [batch if not isinstance(d, int) else d for d in spec.shape]
    shape[0] = batch
    shape[2:] = [
        d if isinstance(d, int) else int(s) for d, s in zip(spec.shape[2:], imgsz, strict=True)
    ]
    x = np.random.default_rng(0).random(shape, dtype=np.float32)
    for _ in range(3):
        session.run(None, {spec.name: x})
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, {spec.name: x})
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "batch": batch,
        "threads": threads,
        "runs": runs,
        "median_ms": round(statistics.median(times), 2),
        "p90_ms": round(times[int(0.9 * (len(times) - 1))], 2),
        "input": shape,
    }


def export(
    weights: Path,
    kind: str | None = None,
    imgsz: int | None = None,
    out: Path = MODELS_DIR,
    eval_json: Path | None = None,
    card: bool = True,
    copy_pt: bool = True,
    card_only: bool = False,
) -> dict:
    """Export `weights` to `out/<kind>.onnx`, verify it with onnxruntime, write its card.

    With `card_only`, the ONNX file already in `out` is kept as it is (its bytes, hash and
    metadata) and only the card is written again, e.g. with the accuracy `dominocam eval`
    measured on that very file.

    Returns:
        A summary: path, size, metadata, latency, the verification's output shapes.
    """
    weights = Path(weights)
    if not weights.is_file():
        raise UserInputError(f"--weights {weights}: no such file")
    evaluation = None
    if eval_json:
        try:
            evaluation = json.loads(Path(eval_json).read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise UserInputError(f"--eval {eval_json}: cannot read it ({error})") from error
    ultralytics = offline.setup()
    model = ultralytics.YOLO(str(weights))
    found = TASK_KIND.get(model.task)
    if found is None:
        raise UserInputError(f"{weights} is a {model.task!r} model; expected obb or classify")
    if kind and kind != found:
        raise UserInputError(f"{weights} is a {found} ({model.task}) model, not a {kind}")
    kind = found
    checkpoint_args = dict((model.ckpt or {}).get("train_args") or {})
    imgsz = int(imgsz or checkpoint_args.get("imgsz") or (640 if kind == "detector" else 64))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{kind}.onnx"
    record = run_record(weights)
    recovered = (model.ckpt or {}).get("recovered_from")
    if card_only:
        if not target.is_file():
            raise UserInputError(f"--card-only: {target} does not exist; export it first")
        data_card = read_metadata(target).get("data_card") or {}
        if recovered:
            # Weights rebuilt from this very file carry no training arguments of their own:
            # the card tells the training its data card recorded.
            checkpoint_args = {**checkpoint_args, **(data_card.get("training") or {})}
    else:
        exported = Path(
            model.export(
                format="onnx",
                imgsz=imgsz,
                simplify=True,
                dynamic=True,  # the reader's batch; the detector's height and width
                batch=1,
                device="cpu",
            )
        )
        shutil.copyfile(exported, target)
        data_card = build_data_card(record, checkpoint_args, recovered)
        add_metadata(target, {"data_card": json.dumps(data_card, sort_keys=True)})

    metadata = read_metadata(target)
    latency = [measure_latency(target, batch=1)]
    if kind == "reader":
        latency.append(measure_latency(target, batch=80, runs=10))
    summary = {
        "kind": kind,
        "path": str(target),
        "bytes": target.stat().st_size,
        "sha256": file_sha256(target),
        "weights": str(weights),
        "imgsz": imgsz,
        "names": metadata.get("names"),
        "latency": latency,
        "last_epoch": last_results(record.get("run_dir")),
        "data_card": data_card,
        "checkpoint_args": {k: checkpoint_args.get(k) for k in sorted(checkpoint_args)},
        "architecture": architecture(record, checkpoint_args),
        "card_from_recovered": bool(card_only and recovered),
    }
    if copy_pt and not card_only:
        shutil.copyfile(weights, out / f"{kind}.pt")
        summary["pt"] = str(out / f"{kind}.pt")
    if card:
        cards.write_card(out / f"{kind}.md", summary, evaluation)
        summary["card"] = str(out / f"{kind}.md")
    return summary
