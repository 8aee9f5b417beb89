"""Where the time of one read goes, finer than `dominocam bench`'s stages.

    .venv/bin/python -m studies.stage_profile [--size 1280x720] [--runs 20] [--threads 2]

Reads the benchmark table (`dominocam.measure.bench.bench_table`) `--runs` times under cProfile and
prints, per frame, the time spent inside each step of `dominocam.vision.pipeline.read_image` (the
cumulative time of the function that does it), and what is left for the rest. The profiler
adds a little to every Python call, so the Python-heavy steps read somewhat slower than they
run; `dominocam bench` gives the unprofiled totals. It only measures.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

# Step -> (file suffix, function name) whose cumulative time is the step's time, in the
# order `read_image` runs them.
STEPS: tuple[tuple[str, str, str], ...] = (
    ("letterbox + blob", "vision/detector.py", "preprocess"),
    ("detector forward", "vision/detector.py", "forward"),
    ("decode + NMS", "vision/detector.py", "decode_obb_output"),
    ("keep apart (overlaps)", "vision/overlaps.py", "keep_apart"),
    ("close-up pass", "vision/detector.py", "merge_closeups"),
    ("far-tile pass", "vision/detector.py", "detect_far_tiles"),
    ("verifier crops", "vision/verifier.py", "crops"),
    ("verifier network", "vision/verifier.py", "classify"),
    ("reader crops", "vision/reader.py", "crops"),
    ("reader network", "vision/reader.py", "classify_halves"),
    ("reject boxes (calibration)", "vision/confidence.py", "reject_boxes"),
    ("joint decode", "vision/decode.py", "joint_decode"),
    ("adjacency (layout hook)", "vision/layout.py", "safe_adjacency"),
    ("mark doubtful (calibration)", "vision/confidence.py", "mark_doubtful"),
    ("layout", "vision/layout.py", "layout_scene"),
    ("review", "vision/confidence.py", "review_scene"),
)


def profile(
    width: int, height: int, runs: int, threads: int, clock: str = "wall"
) -> tuple[dict[str, float], float]:
    """(milliseconds per frame of each step, milliseconds per frame of the whole read).

    `clock` "wall" counts elapsed time; "cpu" the calling thread's CPU time, which other
    work on a busy machine disturbs less (but a network's worker threads are not counted).
    """
    from dominocam.measure.bench import bench_table
    from dominocam.vision.reading import PhotoReader

    reader = PhotoReader.load(threads=threads)
    image = bench_table(width, height).image

    def read() -> None:
        reader.read(image, "table", 12)

    for _ in range(3):
        read()
    profiler = cProfile.Profile(time.perf_counter if clock == "wall" else time.thread_time)
    profiler.enable()
    for _ in range(runs):
        read()
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    cumulative: dict[tuple[str, str], float] = {}
    total = 0.0
    for (path, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.items():
        for _step, suffix, function in STEPS:
            if path.endswith(suffix) and name == function:
                cumulative[(suffix, function)] = cumulative.get((suffix, function), 0.0) + ct
        if path.endswith("vision/pipeline.py") and name == "read_image":
            total = ct
    # joint_decode also runs inside reject_boxes (one tile at a time): count it there only.
    inner = _inner_time(stats, "vision/decode.py", "joint_decode", "vision/confidence.py")
    cumulative[("vision/decode.py", "joint_decode")] -= inner
    per_frame = {
        step: 1000.0 * cumulative.get((suffix, function), 0.0) / runs
        for step, suffix, function in STEPS
    }
    return per_frame, 1000.0 * total / runs


def _inner_time(stats: dict, suffix: str, name: str, caller_suffix: str) -> float:
    """Cumulative time of `name` spent in calls from functions of `caller_suffix`."""
    for (path, _line, function), (_cc, _nc, _tt, _ct, callers) in stats.items():
        if path.endswith(suffix) and function == name:
            return sum(
                entry[3]
                for (caller, _l, _f), entry in callers.items()
                if caller.endswith(caller_suffix)
            )
    return 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.stage_profile")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    steps, total = profile(width, height, args.runs, args.threads, args.clock)
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(
        f"{args.size}, {args.runs} runs, load average {load}: {args.clock} ms per frame (profiled)"
    )
    for step, ms in steps.items():
        print(f"  {step:30s} {ms:7.1f}")
    print(f"  {'rest (sort, tiles, borders)':30s} {total - sum(steps.values()):7.1f}")
    print(f"  {'total':30s} {total:7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
