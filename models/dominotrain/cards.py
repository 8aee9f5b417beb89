"""Model cards (`models/detector.md`, `models/reader.md`) written by `dominocam export`.

A card says what a person needs to trust or reproduce a model: the data set and the generator
configuration and seed that made it, the exact training command, the size, the measured
accuracy (synthetic and real, each with its Wilson 95% interval and count, from the JSON of
`dominocam eval`) and the latency of the bare forward pass.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from dominocam.measure.metrics import LENGTH_METRICS, Rate

METRIC_LABELS = {
    "detection_recall": "detection recall",
    "detection_precision": "detection precision",
    "face_accuracy": "face up/down right (detected tiles)",
    "back_read_as_back": "half crops of face-down tiles the reader reads as a back",
    "face_read_as_back": "half crops of faces the reader reads as a back",
    "half_accuracy": "per-half accuracy",
    "tile_accuracy": "exact-tile accuracy",
    "tile_accuracy_end_to_end": "exact tiles of all labelled (end to end)",
    "pip_total": "exact pip total per photo",
    "face_down_count": "exact face-down count per photo",
}
SET_LABELS = {
    "synthetic": "synthetic val",
    "synthetic_halves": "synthetic val half crops",
    "synthetic_tiles": "synthetic val tiles cut out",
    "realval_scenes": "real scenes",
    "realval_tiles": "real tiles",
    "realval_halves": "real halves",
}
PURPOSE = {
    "detector": (
        "Finds every domino tile as an oriented box, face up (`tile_up`) or face down "
        "(`tile_down`). Corners come out in the tile convention of `vision/geometry.py` after "
        "`order_corners`; the runtime (`vision/detector.py`) letterboxes, decodes and runs "
        "rotated NMS without torch."
    ),
    "reader": (
        "Reads one half of a face-up tile: a square crop rectified from the full-resolution "
        "photo, divider at the bottom (`dominocam.vision.geometry.rectify_tile` + `split_halves`), "
        "classified into pip counts. Input N x 3 x S x S, RGB scaled to 0..1, no mean or std; "
        "output N x classes softmax. Class index i means `int(names[i])` pips (ultralytics "
        "sorts the class folders as strings: 0, 1, 10, 11, 12, 2, ...); a class `back`, when "
        "there is one, is a half of a face-down tile: a face-up box whose two halves both read "
        "as a back is counted face down (`dominocam.vision.pipeline.backs_face_down`)."
    ),
}


def rate_cell(entry: dict | None) -> str:
    """'0.9950 [0.9890, 0.9978] (995/1000)' from a Rate's JSON form, '-' when absent."""
    if not entry or not entry.get("n"):
        return "-"
    return str(Rate(int(entry["k"]), int(entry["n"])))


def accuracy_table(evaluation: dict) -> str:
    """A markdown table: metric rows, one column per evaluated set."""
    sets = [s for s in SET_LABELS if s in evaluation.get("sets", {})]
    if not sets:
        return "_No evaluation given._\n"
    metrics = [
        m for m in METRIC_LABELS if any(m in evaluation["sets"][s].get("metrics", {}) for s in sets)
    ]
    lines = [
        "| metric | " + " | ".join(SET_LABELS[s] for s in sets) + " |",
        "|---" * (len(sets) + 1) + "|",
    ]
    for m in metrics:
        cells = [rate_cell(evaluation["sets"][s].get("metrics", {}).get(m)) for s in sets]
        lines.append(f"| {METRIC_LABELS[m]} | " + " | ".join(cells) + " |")
    counts = ", ".join(
        f"{SET_LABELS[s]}: {evaluation['sets'][s].get('images', '?')} images" for s in sets
    )
    notes = [
        f"- {SET_LABELS[s]}: {evaluation['sets'][s]['note']}"
        for s in sets
        if evaluation["sets"][s].get("note")
    ]
    return "\n".join([*lines, "", f"Counts: {counts}.", "", *notes, ""])


def length_table(evaluation: dict) -> str:
    """Markdown tables of the figures by tile length, one per set that has them ('' if none)."""
    blocks = []
    for s in SET_LABELS:
        groups = evaluation.get("sets", {}).get(s, {}).get("by_tile_length")
        if not groups:
            continue
        lines = [
            f"{SET_LABELS[s]}, by the tile's long side in the photo (px):",
            "",
            "| tile length | " + " | ".join(METRIC_LABELS[m] for m in LENGTH_METRICS) + " |",
            "|---" * (len(LENGTH_METRICS) + 1) + "|",
        ]
        for group, rates in groups.items():
            cells = [rate_cell(rates.get(m)) for m in LENGTH_METRICS]
            lines.append(f"| {group} | " + " | ".join(cells) + " |")
        blocks.append("\n".join([*lines, ""]))
    return "\n".join(blocks)


# An absolute path into a checkout's runs/ folder: the card names it from runs/ on, so that
# it says which run made the model without naming the machine it ran on.
CHECKOUT_RUNS = re.compile(r"(?<![\w.])/[^\s`\"']*?/(?=runs/)")


def without_checkout(text: str) -> str:
    """`text` with every absolute `/.../runs/...` path cut to `runs/...`."""
    return CHECKOUT_RUNS.sub("", text)


def training_lines(card: dict, args: dict, model: str | None) -> list[str]:
    """How the weights were trained: from the checkpoint's arguments, or, for a checkpoint
    `dominotrain.from_onnx` rebuilt from an earlier export, from that export's card."""
    if card.get("re_exported_from"):
        training = card.get("training") or {}
        return [
            f"- the weights of that training, unchanged: rebuilt from "
            f"`{card['re_exported_from']}` by `dominotrain.from_onnx` and exported again; "
            f"architecture `{training.get('model')}`",
            f"- epochs {training.get('epochs')}, image size {training.get('imgsz')}, batch "
            f"{training.get('batch')}",
        ]
    return [
        f"- architecture `{model}` built from YAML (no pretrained download), "
        f"fine-tuned from `{args.get('pretrained')}`"
        if isinstance(args.get("pretrained"), str)
        else f"- architecture `{model}` from YAML, trained from scratch",
        "- "
        + ", ".join(
            f"{name} {args[key]}{unit}"
            for key, name, unit in (
                ("epochs", "epochs", ""),
                ("imgsz", "image size", ""),
                ("batch", "batch", ""),
                ("seed", "seed", ""),
                ("time", "time limit", " h"),
            )
            if args.get(key) is not None
        ),
    ]


def write_card(path: Path, summary: dict, evaluation: dict | None = None) -> Path:
    """Write the markdown card for one exported model."""
    kind = summary["kind"]
    card = summary.get("data_card") or {}
    args = summary.get("checkpoint_args") or {}
    model = summary.get("architecture") or args.get("model")
    last = summary.get("last_epoch") or {}
    dataset = {k: v for k, v in card.items() if k not in {"training_command", "training"}}
    size_mb = summary["bytes"] / 1e6
    latency_lines = [
        f"- batch {lat['batch']}, input {lat['input']}, {lat['threads']} threads: median "
        f"{lat['median_ms']} ms, p90 {lat['p90_ms']} ms ({lat['runs']} runs)"
        for lat in summary.get("latency", [])
    ]
    validation = ", ".join(f"{k} {v}" for k, v in last.items() if k.startswith("metrics/"))
    text = [
        f"# {kind}.onnx",
        "",
        PURPOSE[kind],
        "",
        "## File",
        "",
        f"- `{Path(summary['path']).name}`: {size_mb:.2f} MB, sha256 `{summary['sha256']}`",
        f"- input size {summary['imgsz']} px"
        + (
            " at most: height and width are dynamic, each photo gets the smallest rectangle "
            "that holds it (`dominocam.vision.geometry.rect_input_shape`)"
            if kind == "detector"
            else ""
        )
        + f"; classes {summary.get('names')}",
        (
            f"- exported by the training below; this card was written again from "
            f"`{summary['weights']}`, rebuilt from this file by `dominotrain.from_onnx`, "
            f"with `dominocam export {kind} --card-only`"
            if summary.get("card_from_recovered")
            else f"- exported from `{summary['weights']}` by `dominocam export {kind}`"
        ),
        "",
        "## Training",
        "",
        "```sh",
        str(card.get("training_command") or "(command not recorded)"),
        "```",
        "",
        *training_lines(card, args, model),
        "- last epoch's ultralytics validation (synthetic val): "
        + (
            validation
            or ("not kept in the ONNX file" if summary.get("card_from_recovered") else "n/a")
        ),
        "",
        "## Data set",
        "",
        "The training set's card (`card.json` written by `dominocam synth`), also stored in",
        "the ONNX metadata as `data_card`:",
        "",
        "```json",
        json.dumps(dataset, indent=2, sort_keys=True) if dataset else "(no card.json found)",
        "```",
        "",
        "## Measured accuracy",
        "",
        "Each figure is value [Wilson 95% interval] (successes/trials). The whole pipeline runs",
        "(`vision`: detector + reader + joint decoding), so detection and reading rows depend on",
        "both models; see docs/training.md for how each figure is defined.",
        "",
    ]
    if evaluation:
        measured = (evaluation.get("models") or {}).get(kind, {}).get("sha256")
        if measured == summary["sha256"]:
            provenance = "Measured on this very file (same sha256) with:"
        else:
            provenance = (
                f"**Measured on another file** (sha256 `{measured}`), so these figures may not "
                "describe this one; measured with:"
            )
        others = {
            k: v.get("sha256") for k, v in (evaluation.get("models") or {}).items() if k != kind
        }
        text += [
            provenance,
            "",
            "```sh",
            str(evaluation.get("command", "dominocam eval ...")),
            "```",
            "",
            *(
                ["together with " + ", ".join(f"{k} sha256 `{v}`" for k, v in others.items()), ""]
                if others
                else []
            ),
            accuracy_table(evaluation),
            length_table(evaluation),
        ]
    else:
        text += ["_Not measured yet: run `dominocam eval --json` and export with `--eval`._", ""]
    text += [
        "## Latency (bare onnxruntime forward pass, CPUExecutionProvider)",
        "",
        "Measured by `dominocam export` on the machine that exported the model, with whatever",
        "else ran there at the time (an upper bound when the CPU was shared); `dominocam bench`",
        "measures the whole pipeline.",
        "",
        *latency_lines,
        "",
    ]
    Path(path).write_text(without_checkout("\n".join(text)))
    return Path(path)
