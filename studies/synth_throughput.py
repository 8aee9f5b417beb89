"""Images per second of `dominocam synth` at 1280x720 (default: 40 images, 2 workers).

Run: python -m studies.synth_throughput [--count 40] [--workers 2] [--size 1280x720]
Counts the whole run (rendering, JPEG, labels, reader crops, writing), worker start included.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from dominosynth.config import load_config
from dominosynth.generate import generate, parse_size


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--count", type=int, default=40)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--size", default="1280x720")
    p.add_argument("--config", default="default")
    p.add_argument("--kind", default="mixed")
    args = p.parse_args()
    w, h = parse_size(args.size)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        generate(
            Path(tmp) / "bench",
            args.count,
            0,
            w,
            h,
            args.kind,
            12,
            load_config(args.config),
            workers=args.workers,
            command="benchmark",
            progress=False,
        )
        elapsed = time.perf_counter() - start
    rate = args.count / elapsed
    print(
        f"{args.count} images {w}x{h}, {args.workers} workers: {elapsed:.1f} s, "
        f"{rate:.2f} img/s, 10,000 images in {10000 / rate / 60:.0f} min"
    )


if __name__ == "__main__":
    main()
