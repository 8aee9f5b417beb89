"""What the detector boxes in synthetic pictures that show no tile, and what the verifier
says of those boxes (docs/decisions/2026-12-01-not-a-tile.md, "Face down").

    python -m studies.empty_pictures --synth DIR [--threads 1]

DIR is a `dominocam synth` set whose pictures have no tile (a config with `empty_p: 1`).
Prints the boxes found, how many the detector calls face down, and how many of each the
verifier scores below `VERIFIER_THRESHOLD` and below 0.5. Nothing is tuned here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.empty_pictures")
    parser.add_argument("--synth", required=True)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    root = Path(args.synth)
    pictures = sorted((root / "detector" / "images").glob("*/*.jpg"))
    if not pictures:
        print(f"dominocam: error: no pictures under {root}/detector/images", file=sys.stderr)
        return 2

    from dominocam.vision.image_io import load_image
    from dominocam.vision.pipeline import VERIFIER_THRESHOLD, load_models, read_image

    models = load_models(threads=args.threads)
    if models.verifier is None:
        print("dominocam: error: no verifier.onnx beside the detector", file=sys.stderr)
        return 2
    boxes: list[tuple[str, float]] = []
    for path in pictures:
        truth = json.loads((root / "truth" / f"{path.stem}.json").read_text())
        if truth["tiles"]:
            print(f"dominocam: error: {path.name} shows tiles; use empty_p: 1", file=sys.stderr)
            return 2
        # Without the calibration (not `dominocam.vision.reading.PhotoReader`): every box the
        # detector finds is kept, to count the verifier's raw scores.
        scene = read_image(load_image(path), models.detector, models.reader, truth["set"])
        boxes += [(t.face, float(t.verifier_score)) for t in scene.tiles]
    out = {"pictures": len(pictures)}
    for face in ("any", "down"):
        scores = [s for f, s in boxes if face == "any" or f == face]
        out[face] = {
            "boxes": len(scores),
            f"below_{VERIFIER_THRESHOLD}": sum(s < VERIFIER_THRESHOLD for s in scores),
            "below_0.5": sum(s < 0.5 for s in scores),
        }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
