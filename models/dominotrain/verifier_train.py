"""Train the verifier (tile or not) on the crops of `dominotrain.verifier_data` and export it
to ONNX for `vision.verifier` (the `train` extra: torch, onnx).

    python -m dominotrain.verifier_train --data runs/data/verifier-crops --out runs/verifier/v1

A small convolutional network (four stride-2 convolutions 16-32-64-128 with batch norm,
global average pooling, a linear layer; 0.29 M weights) rather than ultralytics' yolov8n-cls:
the task is two classes on a 64 px crop, and the narrow yolov8-cls took 810 s an epoch on
this crop set on a loaded 2-core CPU and was at 0.71 val accuracy after one (the decision
note, docs/decisions/2026-12-01-not-a-tile.md). Augmentation keeps the label true: flips both
ways and turns by 180 degrees (a tile has no up), brightness and contrast, the colour
channels shuffled or grey (colour must never be the signal), a shift of a few pixels (the
detector's boxes are a little off).

Writes `OUT/verifier.onnx` (input [N, 3, 64, 64] RGB 0..1, output [N, 2] probabilities,
metadata names {0: not_tile, 1: tile}, imgsz, task classify, the training record) and
`OUT/train.json` (the command, data counts, loss and val accuracy per epoch). Checkpoints
`OUT/last.pt` after every epoch; a second run with the same OUT resumes from it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

CLASSES = ("not_tile", "tile")  # output columns
SIDE = 64


def load_split(
    folder: Path, per_class: int | None = None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(N, 64, 64, 3) uint8 RGB crops and (N,) labels (index into CLASSES); with
    `per_class`, at most that many crops of each class, drawn at random with `seed`."""
    images, labels = [], []
    rng = np.random.default_rng(seed)
    for label, name in enumerate(CLASSES):
        paths = sorted((folder / name).glob("*.png"))
        if per_class is not None and len(paths) > per_class:
            paths = [paths[i] for i in sorted(rng.choice(len(paths), per_class, replace=False))]
        for path in paths:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None or image.shape[:2] != (SIDE, SIDE):
                image = cv2.resize(image, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
            images.append(image[:, :, ::-1])
            labels.append(label)
    return np.stack(images), np.array(labels, np.int64)


def build_model():
    import torch
    from torch import nn

    def block(cin: int, cout: int) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                block(3, 16), block(16, 32), block(32, 64), block(64, 128)
            )
            self.head = nn.Linear(128, len(CLASSES))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.features(x).mean(dim=(2, 3)))

    return Net()


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B, 64, 64, 3) uint8 -> (B, 3, 64, 64) float32 0..1, each crop changed at random."""
    out = batch.astype(np.float32) / 255.0
    for i in range(len(out)):
        x = out[i]
        if rng.random() < 0.5:
            x = x[:, ::-1]
        if rng.random() < 0.5:
            x = x[::-1, ::-1]  # a turn by 180 degrees
        if rng.random() < 0.5:
            x = x[::-1]
        dy, dx = rng.integers(-3, 4, 2)
        x = np.roll(x, (int(dy), int(dx)), axis=(0, 1))
        if rng.random() < 0.2:
            x = np.repeat(x.mean(axis=2, keepdims=True), 3, axis=2)
        else:
            x = x[:, :, rng.permutation(3)]
        x = (x - 0.5) * rng.uniform(0.7, 1.3) + 0.5 + rng.uniform(-0.15, 0.15)
        out[i] = np.clip(x, 0, 1)
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2))


def evaluate(model, images: np.ndarray, labels: np.ndarray) -> dict:
    import torch

    model.eval()
    probs = []
    with torch.no_grad():
        for start in range(0, len(images), 256):
            x = images[start : start + 256].astype(np.float32).transpose(0, 3, 1, 2) / 255.0
            probs.append(torch.softmax(model(torch.from_numpy(x)), dim=1)[:, 1].numpy())
    p = np.concatenate(probs)
    tile = labels == 1
    return {
        "accuracy": float(((p >= 0.5) == tile).mean()),
        "tiles_kept": [int((p[tile] >= 0.5).sum()), int(tile.sum())],
        "not_tiles_left_out": [int((p[~tile] < 0.5).sum()), int((~tile).sum())],
    }


def export_onnx(model, path: Path, record: dict) -> Path:
    import onnx
    import torch

    class WithSoftmax(torch.nn.Module):
        def __init__(self, net) -> None:
            super().__init__()
            self.net = net

        def forward(self, x):
            return torch.softmax(self.net(x), dim=1)

    model.eval()
    torch.onnx.export(
        WithSoftmax(model),
        torch.zeros(1, 3, SIDE, SIDE),
        str(path),
        input_names=["images"],
        output_names=["output0"],
        dynamic_axes={"images": {0: "N"}, "output0": {0: "N"}},
        opset_version=17,
        dynamo=False,
    )
    proto = onnx.load(str(path))
    meta = {
        "names": repr(dict(enumerate(CLASSES))),
        "imgsz": repr([SIDE, SIDE]),
        "task": "classify",
        "description": "DominoCam verifier: is this detected box a real tile (models/verifier.md)",
        "training": json.dumps(record, sort_keys=True),
    }
    for key, value in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(proto, str(path))
    return path


def train(
    data: Path,
    out: Path,
    epochs: int,
    threads: int,
    seed: int,
    command: str,
    per_class: int | None = None,
) -> dict:
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    train_x, train_y = load_split(data / "train", per_class, seed)
    val_x, val_y = load_split(data / "val")
    model = build_model()
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps_per_epoch = (len(train_x) + 127) // 128
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=3e-3, total_steps=epochs * steps_per_epoch, pct_start=0.15
    )
    # Tiles outnumber the rest; weigh the classes so that neither dominates the loss.
    counts = np.bincount(train_y, minlength=2).astype(np.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=torch.tensor(counts.sum() / (2 * counts)))
    out.mkdir(parents=True, exist_ok=True)
    record = {
        "command": command,
        "data": str(data),
        "counts": {
            "train": dict(zip(CLASSES, np.bincount(train_y, minlength=2).tolist(), strict=True)),
            "val": dict(zip(CLASSES, np.bincount(val_y, minlength=2).tolist(), strict=True)),
        },
        "epochs": [],
    }
    first = 0
    last = out / "last.pt"
    if last.is_file():
        state = torch.load(last, weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        record = state["record"]
        first = len(record["epochs"])
        print(f"resuming after epoch {first}", flush=True)
    for epoch in range(first, epochs):
        model.train()
        start, total = time.perf_counter(), 0.0
        order = rng.permutation(len(train_x))
        for k in range(steps_per_epoch):
            idx = order[k * 128 : (k + 1) * 128]
            x = torch.from_numpy(augment(train_x[idx], rng))
            loss = loss_fn(model(x), torch.from_numpy(train_y[idx]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(idx)
        figures = evaluate(model, val_x, val_y)
        figures.update(
            epoch=epoch + 1,
            loss=round(total / len(train_x), 4),
            seconds=round(time.perf_counter() - start, 1),
        )
        record["epochs"].append(figures)
        print(json.dumps(figures), flush=True)
        torch.save(
            {
                "model": model.state_dict(),
                "optimiser": optimiser.state_dict(),
                "schedule": schedule.state_dict(),
                "record": record,
            },
            last,
        )
    export_onnx(model, out / "verifier.onnx", record)
    (out / "train.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dominotrain.verifier_train")
    parser.add_argument("--data", required=True, help="dominotrain.verifier_data output")
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--per-class",
        type=int,
        help="train on at most this many crops of each class (drawn once, at random): an "
        "epoch's time follows the crops, and tiles are easy to have too many of",
    )
    args = parser.parse_args(argv)
    data = Path(args.data)
    if not (data / "train").is_dir() or not (data / "val").is_dir():
        print(f"dominocam: error: {data} needs train/ and val/ crop folders", file=sys.stderr)
        return 2
    command = "python -m dominotrain.verifier_train " + " ".join(argv or sys.argv[1:])
    train(data, Path(args.out), args.epochs, args.threads, args.seed, command, args.per_class)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
