"""A trainable ultralytics checkpoint recovered from a committed ONNX model.

The repository ships ONNX files only (`models/*.onnx`); the `.pt` checkpoints a run writes
stay in the git-ignored `runs/`. So that a later run can fine-tune the committed model rather
than start again from nothing, this module rebuilds the checkpoint from the ONNX file:

* the network is built again from its ultralytics YAML (`yolov8n-obb.yaml` for the detector),
  with the class names of the ONNX metadata;
* ultralytics' export folds each BatchNorm into the convolution before it, so every ONNX
  convolution carries a weight and a bias while the network has a bias-free convolution and a
  BatchNorm. The folded weight goes back into the convolution, and the BatchNorm is given the
  per-channel mean `m` and variance `v` that the convolution's output has on training pictures,
  with scale `sqrt(v + eps)` and shift `bias + m`: it then passes the folded output through
  unchanged, exactly in eval mode and up to batch noise in train mode. (Mean 0 and variance 1
  would reproduce the model in eval mode too, but the first training step normalises with the
  batch's statistics and would throw the learnt scales away.)
* every weight of the ONNX file must find its place and every parameter of the network must be
  set, or it stops with an error; `recover` returns the largest difference between the ONNX
  output and the rebuilt network's on a picture, which the caller checks.

    python -m dominotrain.from_onnx --onnx models/detector.onnx \\
        --images runs/data/synth-s51-n1000 --out runs/detector/from-onnx/detector.pt

The result is what `dominocam train detector --weights` takes. The reader likewise:

    python -m dominotrain.from_onnx --onnx models/reader.onnx \\
        --yaml models/dominotrain/yolov8-cls-narrow.yaml \\
        --images runs/data/synth-s51-n1000/reader/train --out models/reader.pt
"""

from __future__ import annotations

import argparse
import ast
import datetime as _dt
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from dominocam.errors import UserInputError
from dominotrain.offline import setup

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
# The export keeps the network's parameter names ("model.0.conv.weight"); the other
# initialisers are constants of the graph (shapes of Split and Reshape nodes, anchors).
WEIGHT_PREFIX = "model."
# Per folded convolution: the ONNX weights it takes (conv.*) and the parameters it sets.
FOLDED_PARTS = ("conv.weight", "conv.bias", "bn.weight", "bn.bias")


@dataclass(frozen=True)
class Recovered:
    """What `recover` made and how closely it matches the ONNX model."""

    checkpoint: Path
    max_abs_difference: float  # ONNX output against the rebuilt network's, on one picture
    output_scale: float  # the largest absolute ONNX output, to judge the difference by
    statistics_pictures: int


def onnx_weights(path: Path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The initialisers (name -> array) and the metadata of an ONNX file."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {
        init.name: np.array(numpy_helper.to_array(init))
        for init in model.graph.initializer
        if init.name.startswith(WEIGHT_PREFIX)
    }
    metadata = {prop.key: prop.value for prop in model.metadata_props}
    return weights, metadata


def build_network(yaml: str, metadata: dict[str, str]):
    """The untrained ultralytics network of `yaml` with the ONNX file's classes."""
    from ultralytics.nn.tasks import ClassificationModel, OBBModel

    names = ast.literal_eval(metadata["names"])
    task = metadata.get("task", "obb")
    if task == "obb":
        network = OBBModel(yaml, nc=len(names), verbose=False)
    elif task == "classify":
        network = ClassificationModel(yaml, nc=len(names), verbose=False)
    else:
        raise UserInputError(f"task {task!r} of the ONNX file: only obb and classify are known")
    network.names = names
    return network, task


def _folded_convolutions(network) -> dict[str, object]:
    """Module name -> ultralytics `Conv` (a convolution followed by a BatchNorm)."""
    import torch

    return {
        name: module
        for name, module in network.named_modules()
        if isinstance(getattr(module, "conv", None), torch.nn.Conv2d)
        and isinstance(getattr(module, "bn", None), torch.nn.BatchNorm2d)
    }


def load_folded_weights(network, weights: dict[str, np.ndarray]) -> None:
    """Put the ONNX weights into `network`, BatchNorms at mean 0 and variance 1 for now."""
    import torch

    used: set[str] = set()
    with torch.no_grad():
        for name, block in _folded_convolutions(network).items():
            weight, bias = weights.get(f"{name}.conv.weight"), weights.get(f"{name}.conv.bias")
            if weight is None or bias is None or tuple(block.conv.weight.shape) != weight.shape:
                raise UserInputError(
                    f"ONNX weight {name}.conv.weight has no place in the network: "
                    "is --yaml the architecture the model was trained with?"
                )
            block.conv.weight.copy_(torch.from_numpy(weight))
            bn = block.bn
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0)
            bn.weight.fill_(float(np.sqrt(1.0 + bn.eps)))
            bn.bias.copy_(torch.from_numpy(bias))
            # the folded bias lives on in the BatchNorm's shift: its parameters are set too
            used |= {f"{name}.{part}" for part in FOLDED_PARTS}
        state = network.state_dict()
        for key, value in weights.items():
            if key in used:
                continue
            if key not in state or tuple(state[key].shape) != value.shape:
                raise UserInputError(
                    f"ONNX weight {key} {value.shape} has no place in the network: "
                    "is --yaml the architecture the model was trained with?"
                )
            state[key].copy_(torch.from_numpy(value))
            used.add(key)
    # DFL's fixed 0..15 convolution is a parameter without gradient that the export keeps
    # as a constant; it is rebuilt from the YAML as it was.
    missing = [
        key for key, _ in network.named_parameters() if key not in used and ".dfl." not in key
    ]
    if missing:
        raise UserInputError(f"network parameters not in the ONNX file: {missing[:5]}")


def training_pictures(folder: Path, count: int) -> list[Path]:
    """Up to `count` pictures, spread evenly, of a dominosynth set's detector train split, or
    of any folder and the folders in it."""
    splits = (folder / "detector" / "images" / "train", folder / "images" / "train", folder)
    for candidate in splits:
        # rglob: a reader's split holds one folder per class
        pictures = sorted(p for p in candidate.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
        if pictures:
            step = max(1, len(pictures) // count)
            return pictures[::step][:count]
    raise UserInputError(f"--images {folder}: no pictures found")


def network_input(picture: Path, size: int) -> np.ndarray:
    """One picture as the trainer feeds it: letterboxed to size x size, RGB, 0..1, CHW."""
    image = cv2.imread(str(picture), cv2.IMREAD_COLOR)
    if image is None:
        raise UserInputError(f"{picture}: not a readable picture")
    height, width = image.shape[:2]
    scale = min(size / height, size / width)
    resized = cv2.resize(image, (round(width * scale), round(height * scale)))
    canvas = np.full((size, size, 3), 114, np.uint8)
    top = (size - resized.shape[0]) // 2
    left = (size - resized.shape[1]) // 2
    canvas[top : top + resized.shape[0], left : left + resized.shape[1]] = resized
    return canvas[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0


def set_batchnorm_statistics(network, batches: list[np.ndarray]) -> None:
    """Give each BatchNorm the statistics of its convolution's output on `batches`.

    Measured in eval mode, where the network is the ONNX model exactly, so each layer sees the
    inputs the trained model gives it.
    """
    import torch

    blocks = _folded_convolutions(network)
    sums: dict[str, torch.Tensor] = {}
    squares: dict[str, torch.Tensor] = {}
    counts: dict[str, int] = {}

    def hook(name: str):
        def record(_module, _inputs, output):
            values = output.detach().double().transpose(0, 1).reshape(output.shape[1], -1)
            sums[name] = sums.get(name, 0) + values.sum(dim=1)
            squares[name] = squares.get(name, 0) + (values * values).sum(dim=1)
            counts[name] = counts.get(name, 0) + values.shape[1]

        return record

    handles = [block.conv.register_forward_hook(hook(name)) for name, block in blocks.items()]
    network.eval()
    try:
        with torch.no_grad():
            for batch in batches:
                network(torch.from_numpy(batch))
    finally:
        for handle in handles:
            handle.remove()
    with torch.no_grad():
        for name, block in blocks.items():
            mean = sums[name] / counts[name]
            variance = (squares[name] / counts[name] - mean * mean).clamp(min=0.0)
            bn = block.bn
            folded_bias = bn.bias.detach().double().clone()  # set by load_folded_weights
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(variance.float())
            bn.weight.copy_(torch.sqrt(variance + bn.eps).float())
            bn.bias.copy_((folded_bias + mean).float())


def onnx_output(path: Path, batch: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: batch})[0]


def network_output(network, batch: np.ndarray) -> np.ndarray:
    import torch

    network.eval()
    with torch.no_grad():
        output = network(torch.from_numpy(batch))
    if isinstance(output, (tuple, list)):
        output = output[0]
    return output.numpy()


def recover(
    onnx_path: Path, yaml: str, images: Path, out: Path, pictures: int = 48, batch_size: int = 8
) -> Recovered:
    """Rebuild `onnx_path` as an ultralytics checkpoint at `out` (see the module's doc)."""
    import torch
    import ultralytics

    weights, metadata = onnx_weights(onnx_path)
    network, task = build_network(yaml, metadata)
    load_folded_weights(network, weights)
    size = ast.literal_eval(metadata.get("imgsz", "[640, 640]"))[0]
    inputs = [network_input(p, size) for p in training_pictures(images, pictures)]
    batches = [np.stack(inputs[i : i + batch_size]) for i in range(0, len(inputs), batch_size)]
    set_batchnorm_statistics(network, batches)

    probe = batches[0][:1]
    expected = onnx_output(onnx_path, probe)
    difference = float(np.abs(network_output(network, probe) - expected).max())

    out.parent.mkdir(parents=True, exist_ok=True)
    checkpoint = {
        "model": network,
        "train_args": {"task": task, "imgsz": size, "model": yaml},
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "version": ultralytics.__version__,
        "recovered_from": {"onnx": str(onnx_path), "data_card": metadata.get("data_card")},
        "epoch": -1,
    }
    torch.save(checkpoint, out)
    return Recovered(out, difference, float(np.abs(expected).max()), len(inputs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dominotrain.from_onnx",
        description="Rebuild a trainable ultralytics checkpoint from a committed ONNX model, "
        "so that training can fine-tune it (dominocam train ... --weights OUT).",
    )
    parser.add_argument("--onnx", type=Path, default=Path("models/detector.onnx"))
    parser.add_argument(
        "--yaml", default="yolov8n-obb.yaml", help="the architecture it was trained with"
    )
    parser.add_argument(
        "--images",
        type=Path,
        required=True,
        help="a dominosynth set (or a folder of pictures) for the BatchNorm statistics",
    )
    parser.add_argument("--out", type=Path, required=True, help="the .pt file to write")
    parser.add_argument("--pictures", type=int, default=48)
    args = parser.parse_args(argv)

    setup()
    try:
        result = recover(args.onnx, args.yaml, args.images, args.out, args.pictures)
    except UserInputError as error:
        print(f"dominotrain.from_onnx: error: {error}", file=sys.stderr)
        return 2
    print(
        f"wrote {result.checkpoint}: BatchNorm statistics from {result.statistics_pictures} "
        f"pictures; largest difference from the ONNX output {result.max_abs_difference:.2e} "
        f"(outputs up to {result.output_scale:.1f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
