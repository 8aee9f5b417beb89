"""int8 QDQ quantisation of the detector (onnxruntime's static quantisation, steps below),
calibrated on synthetic pictures only.

    python -m dominotrain.quantize --synth DIR --out runs/quant/detector-int8.onnx

Steps: `quant_pre_process` (shape inference, graph fusions), then `quantize_static` in QDQ
format, per channel, activations QUInt8 and weights QInt8, on `--count` pictures letterboxed
as the runtime letterboxes them. The head's decode nodes (the last block's nodes outside its
box / class / angle convolution branches: DFL, sigmoid, the angle and box arithmetic) stay
float: one scale cannot cover pixels and probabilities, and quantising them collapsed every
score to 0. With `--keep-float head` (the default) the last convolution of each head branch and the
first convolution stay float too: int8 of the decode nodes alone lost synthetic per-half
accuracy and real precision (docs/decisions/2026-12-01-speed.md). The metadata (names,
imgsz, stride) is copied over.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from dominocam.vision.detector import Detector
from dominocam.vision.image_io import load_image

# The convolution branches of an ultralytics OBB head: box (cv2), class (cv3), angle (cv4).
_HEAD_BRANCH = re.compile(r"^/model\.\d+/cv[234]\.")
# The last convolution of each branch at each scale (".../cv2.0/cv2.0.2/Conv"): its output is
# the raw box distribution, class logit or angle, which the decode nodes turn into numbers.
_HEAD_OUTPUT_CONV = re.compile(r"^/model\.\d+/cv[234]\.\d+/cv[234]\.\d+\.2/Conv$")
# What `--keep-float` may keep in float: "decode" the head's decode nodes only (int8 of every
# convolution); "head" those, the branches' last convolutions and the first convolution, which
# sees raw pixels (the layers whose int8 rounding moves boxes and scores the most).
KEEP_FLOAT = ("decode", "head")


def head_decode_nodes(model) -> list[str]:
    """Names of the last block's nodes outside its convolution branches."""
    blocks = [
        int(m.group(1)) for n in model.graph.node if (m := re.match(r"^/model\.(\d+)/", n.name))
    ]
    last = f"/model.{max(blocks)}/"
    return [
        n.name
        for n in model.graph.node
        if n.name.startswith(last) and not _HEAD_BRANCH.match(n.name)
    ]


def float_nodes(model, keep: str) -> list[str]:
    """The nodes `quantize_static` must leave in float for `keep` (one of `KEEP_FLOAT`)."""
    if keep not in KEEP_FLOAT:
        raise ValueError(f"keep must be one of {KEEP_FLOAT}, got {keep!r}")
    names = head_decode_nodes(model)
    if keep == "head":
        convs = [n for n in model.graph.node if n.op_type == "Conv"]
        names += [convs[0].name] + [n.name for n in convs if _HEAD_OUTPUT_CONV.match(n.name)]
    return names


class _Pictures:
    """onnxruntime's CalibrationDataReader over pictures prepared as the runtime prepares
    them (`Detector.preprocess`)."""

    def __init__(self, files: list[Path], detector) -> None:
        self.files, self.detector = list(files), detector

    def get_next(self):
        if not self.files:
            return None
        batch, _ = self.detector.preprocess(load_image(self.files.pop(0)))
        return {self.detector.session.get_inputs()[0].name: batch}


def quantize(
    source: Path, pictures: list[Path], out: Path, keep: str = "head", method: str = "minmax"
) -> Path:
    """Write the int8 QDQ form of the detector `source` to `out`, calibrated on `pictures`
    with the activation ranges of `method` ("minmax", "percentile" or "entropy")."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    detector = Detector(source, threads=1)
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        # The detector's input is static: ONNX's own shape inference is enough, and the
        # symbolic one would need sympy, which only the `train` extra brings.
        quant_pre_process(str(source), str(pre), skip_symbolic_shape=True)
        model = onnx.load(str(pre))
        quantize_static(
            str(pre),
            str(out),
            _Pictures(pictures, detector),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            nodes_to_exclude=float_nodes(model, keep),
            calibrate_method={
                "minmax": CalibrationMethod.MinMax,
                "percentile": CalibrationMethod.Percentile,
                "entropy": CalibrationMethod.Entropy,
            }[method],
        )
    quantized = onnx.load(str(out))
    original = {p.key: p.value for p in onnx.load(str(source)).metadata_props}
    del quantized.metadata_props[:]
    how = f"int8 QDQ (dominotrain.quantize, float: {keep}, ranges: {method})"
    for key, value in {**original, "quantization": how}.items():
        entry = quantized.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(quantized, str(out))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dominotrain.quantize")
    parser.add_argument("--model", default="models/detector.onnx")
    parser.add_argument("--synth", required=True, help="a dominocam synth set (train pictures)")
    parser.add_argument("--count", type=int, default=32)
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--keep-float",
        choices=KEEP_FLOAT,
        default="head",
        help="decode: only the head's decode nodes stay float; head (default): also the "
        "head's last convolutions and the first convolution",
    )
    parser.add_argument(
        "--calibrate-method",
        choices=("minmax", "percentile", "entropy"),
        default="minmax",
        help="how the activation ranges are set from the calibration pictures",
    )
    args = parser.parse_args(argv)
    files = sorted((Path(args.synth) / "detector" / "images" / "train").glob("*.jpg"))
    if not files:
        print(f"dominocam: error: no train pictures under {args.synth}", file=sys.stderr)
        return 2
    step = max(1, len(files) // args.count)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    print(
        quantize(
            Path(args.model),
            files[::step][: args.count],
            Path(args.out),
            args.keep_float,
            args.calibrate_method,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
