"""Train the verifier (tile or not) on the crops of `dominotrain.verifier_data` and export it
to ONNX for `dominocam.vision.verifier` (the `train` extra: torch, onnx).

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

`--init models/verifier.onnx` fine-tunes the committed verifier instead of starting from
nothing (`recover_from_onnx`); `--device cuda` trains on a GPU.
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


def recover_from_onnx(path: Path, crops: np.ndarray):
    """The network of `build_model` with the weights of a verifier ONNX file (`export_onnx`
    wrote it in eval mode, so each BatchNorm is folded into the convolution before it).

    As `dominotrain.from_onnx` does for ultralytics' networks: each convolution gets its folded
    weight, and its BatchNorm the per-channel mean `m` and variance `v` of the convolution's
    output on `crops` ((N, 64, 64, 3) uint8 RGB), scale `sqrt(v + eps)` and shift
    `bias + m`, so the network gives the ONNX output in eval mode and about it in train mode.

    Raises:
        ValueError: the file's convolutions do not fit the network.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    proto = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in proto.graph.initializer}
    folded = [
        (weights[node.input[1]], weights[node.input[2]])
        for node in proto.graph.node
        if node.op_type == "Conv"
    ]
    model = build_model()
    pairs = [(block[i], block[i + 1]) for block in model.features for i in (0, 3)]
    if len(folded) != len(pairs) or any(
        tuple(w.shape) != tuple(conv.weight.shape)
        for (w, _), (conv, _) in zip(folded, pairs, strict=False)
    ):
        raise ValueError(f"{path}: its convolutions do not fit the verifier network")
    sums: dict[int, torch.Tensor] = {}
    squares: dict[int, torch.Tensor] = {}
    counts: dict[int, int] = {}
    with torch.no_grad():
        for (conv, bn), (w, b) in zip(pairs, folded, strict=True):
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(np.array(b)))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)  # eval mode: conv(x) + b exactly
        model.head.weight.copy_(torch.from_numpy(np.array(weights["net.head.weight"])))
        model.head.bias.copy_(torch.from_numpy(np.array(weights["net.head.bias"])))

        def hook(number: int):
            def record(_module, _inputs, output):
                values = output.double().transpose(0, 1).reshape(output.shape[1], -1)
                sums[number] = sums.get(number, 0) + values.sum(dim=1)
                squares[number] = squares.get(number, 0) + (values * values).sum(dim=1)
                counts[number] = counts.get(number, 0) + values.shape[1]

            return record

        handles = [conv.register_forward_hook(hook(k)) for k, (conv, _) in enumerate(pairs)]
        model.eval()
        try:
            for start in range(0, len(crops), 256):
                x = crops[start : start + 256].astype(np.float32).transpose(0, 3, 1, 2) / 255.0
                model(torch.from_numpy(x))
        finally:
            for handle in handles:
                handle.remove()
        for k, (_conv, bn) in enumerate(pairs):
            mean = sums[k] / counts[k]
            variance = (squares[k] / counts[k] - mean * mean).clamp(min=0.0)
            folded_bias = bn.bias.detach().double().clone()
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(variance.float())
            bn.weight.copy_(torch.sqrt(variance + bn.eps).float())
            bn.bias.copy_((folded_bias + mean).float())
    return model


def evaluate(model, images: np.ndarray, labels: np.ndarray) -> dict:
    import torch

    device = next(model.parameters()).device
    model.eval()
    probs = []
    with torch.no_grad():
        for start in range(0, len(images), 256):
            x = images[start : start + 256].astype(np.float32).transpose(0, 3, 1, 2) / 255.0
            x = torch.from_numpy(x).to(device)
            probs.append(torch.softmax(model(x), dim=1)[:, 1].cpu().numpy())
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

    model = model.cpu().eval()
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
    device: str = "cpu",
    init: Path | None = None,
    lr: float = 3e-3,
) -> dict:
    """Train (or resume) the verifier into `out`; `init` a verifier ONNX file to start from
    (`recover_from_onnx`), `lr` the one-cycle schedule's peak learning rate."""
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    train_x, train_y = load_split(data / "train", per_class, seed)
    val_x, val_y = load_split(data / "val")
    model = recover_from_onnx(init, train_x[:2048]) if init else build_model()
    model.to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps_per_epoch = (len(train_x) + 127) // 128
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=lr, total_steps=epochs * steps_per_epoch, pct_start=0.15
    )
    # Tiles outnumber the rest; weigh the classes so that neither dominates the loss.
    counts = np.bincount(train_y, minlength=2).astype(np.float32)
    weight = torch.tensor(counts.sum() / (2 * np.maximum(counts, 1)))
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight.to(device))
    out.mkdir(parents=True, exist_ok=True)
    record = {
        "command": command,
        "data": str(data),
        "init": str(init) if init else None,
        "counts": {
            "train": dict(zip(CLASSES, np.bincount(train_y, minlength=2).tolist(), strict=True)),
            "val": dict(zip(CLASSES, np.bincount(val_y, minlength=2).tolist(), strict=True)),
        },
        "epochs": [],
    }
    first = 0
    last = out / "last.pt"
    if last.is_file():
        state = torch.load(last, weights_only=False, map_location=device)
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
            x = torch.from_numpy(augment(train_x[idx], rng)).to(device)
            loss = loss_fn(model(x), torch.from_numpy(train_y[idx]).to(device))
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
    parser.add_argument("--device", default="cpu", help="cpu, or cuda for a GPU")
    parser.add_argument(
        "--init", type=Path, help="a verifier .onnx to fine-tune (e.g. models/verifier.onnx)"
    )
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
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
    train(
        data,
        Path(args.out),
        args.epochs,
        args.threads,
        args.seed,
        command,
        args.per_class,
        device=args.device,
        init=args.init,
        lr=args.lr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
