"""`dominocam export reader --int8 DATA`: the reader's convolutions in 8-bit integers.

The reader network is most of what the pipeline spends beyond the detector's forward pass
(`dominocam bench`). onnxruntime's static quantization stores each convolution's weights as
int8 (one scale per output channel) and its input as uint8, with scales calibrated on half
crops of a training set. Only the convolutions are quantized, and not the first one: the
SiLU activations, the pooling and the classifier stay in float, so that no step rounds the
probabilities the joint decoding weighs. Activation ranges are the 0.001..99.999 percentiles
seen in calibration: min-max ranges, stretched by a few extreme activations, lost 2 of 2750
synthetic half crops, percentiles none (docs/vision.md).

Needs `onnx` (the train extra); the quantized file runs on the plain onnxruntime of the
runtime and keeps the exported file's metadata (names, imgsz, data_card), to which it adds
`quantized`.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import cv2
import numpy as np

from dominocam.errors import UserInputError

# Half crops drawn from the training set to calibrate activation ranges, and the batch size
# they are fed in.
CALIBRATION_CROPS = 512
CALIBRATION_BATCH = 32
CALIBRATION_SEED = 0
PERCENTILE = 99.999


def calibration_crops(
    data: Path, side: int, count: int = CALIBRATION_CROPS, seed: int = CALIBRATION_SEED
) -> np.ndarray:
    """`count` half crops (BGR uint8, side x side) drawn at random from `data`'s
    `reader/train/<value>/*.png` (a `dominocam synth` or `import-labels` folder)."""
    folder = Path(data) / "reader" / "train"
    files = sorted(folder.glob("*/*.png"))
    if not files:
        raise UserInputError(
            f"--int8 {data}: no half crops in {folder} (expected reader/train/<value>/*.png)"
        )
    random.Random(seed).shuffle(files)
    crops = []
    for path in files[:count]:
        crop = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if crop is None:
            raise UserInputError(f"--int8: cannot read the half crop {path}")
        crops.append(cv2.resize(crop, (side, side), interpolation=cv2.INTER_AREA))
    return np.stack(crops)


def quantize_reader(source: Path, target: Path, crops: np.ndarray, data: str = "") -> dict:
    """Write the int8 version of the reader `source` to `target`, calibrated on `crops`.

    Args:
        source: the float reader (an ultralytics classify export with a dynamic batch).
        target: where the quantized file goes (may be `source` itself).
        crops: (N, s, s, 3) BGR uint8 half crops (`calibration_crops`).
        data: the calibration set's name, recorded in the metadata.

    Returns:
        What was done, as stored in the `quantized` metadata.
    """
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.reader import _network_input

    model = onnx.load(str(source))
    input_name = model.graph.input[0].name
    convs = [node.name for node in model.graph.node if node.op_type == "Conv"]
    if not convs:
        raise UserInputError(f"{source}: no convolution to quantize")

    # The percentile calibrator stacks what it saw, so every batch must be the same size: the
    # crops past the last full batch are left out.
    batch = min(CALIBRATION_BATCH, len(crops))
    used = crops[: len(crops) - len(crops) % batch]

    class Crops(CalibrationDataReader):
        def __init__(self) -> None:
            starts = range(0, len(used), batch)
            self.batches = iter([{input_name: _network_input(used[i : i + batch])} for i in starts])

        def get_next(self) -> dict | None:
            return next(self.batches, None)

    record = {
        "weights": "int8, one scale per output channel",
        "activations": "uint8",
        "ops": "Conv",
        "float": [convs[0]],
        "calibration": {
            "data": data,
            "crops": len(used),
            "seed": CALIBRATION_SEED,
            "method": f"percentile {PERCENTILE}",
        },
    }
    with tempfile.TemporaryDirectory() as work:
        prepared = Path(work) / "prepared.onnx"
        quantized = Path(work) / "quantized.onnx"
        quant_pre_process(str(source), str(prepared))
        quantize_static(
            str(prepared),
            str(quantized),
            Crops(),
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["Conv"],
            nodes_to_exclude=[convs[0]],
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.Percentile,
            extra_options={"CalibPercentile": PERCENTILE},
        )
        out = onnx.load(str(quantized))
        kept = {p.key: p.value for p in model.metadata_props}
        kept["quantized"] = json.dumps(record, sort_keys=True)
        del out.metadata_props[:]
        for key, value in kept.items():
            out.metadata_props.add(key=key, value=value)
        onnx.save(out, str(target))
    return record
