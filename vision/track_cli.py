"""`dominocam watch`: a live table from a camera, video file or URL.

Cheap to import: OpenCV, onnxruntime and scipy are imported inside the command functions.

The set is `--set`, else the usual set of the game's `--variant`; with neither, it is not
assumed to be double-12: as `dominocam read` does, the tiles are read as the smallest standard
set that holds the highest value the reader has seen so far, which grows as higher values
show (said on standard error; `--json` events carry the `set` they were read as).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dominocam.arguments import add_conf, add_model_files, add_set, add_threads, positive_int
from dominocam.errors import UserInputError
from dominocam.rules.tiles import SUPPORTED_SETS
from dominocam.rules.variants import LAYOUT_KINDS, get_variant
from dominocam.vision.settings import DETECTOR_CONF


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `watch` to the `dominocam` parser."""
    watch = subparsers.add_parser(
        "watch",
        help="follow a live table from a camera, video file or URL",
        description=(
            "Read a video frame by frame, keep a stable picture of the table (a tile is shown "
            "once seen for a few frames, kept while a hand hides it, removed only when gone) "
            "and print each confirmed change: '6-4 played at the top right, open end now 4'. "
            "Each tile is read a few times, not once per frame. The set is --set, else the "
            "usual set of the game's --variant; with neither, the smallest of 6, 9, 12, 15 "
            "that holds the highest value read so far (it grows as higher values show, "
            "said on standard error)."
        ),
    )
    watch.add_argument("source", metavar="SOURCE", help="camera index (0), video file or URL")
    watch.add_argument("--annotate", metavar="OUT.mp4", help="write the annotated video here")
    watch.add_argument(
        "--events", metavar="EVENTS.jsonl", help="append each event as one JSON line here"
    )
    watch.add_argument(
        "--every",
        type=positive_int,
        default=1,
        metavar="N",
        help="process every N-th frame (default 1)",
    )
    add_set(
        watch,
        SUPPORTED_SETS,
        default=None,
        unset=(
            "default: the --variant's usual set, else the smallest of 6, 9, 12, 15 that "
            "holds the highest value read so far"
        ),
    )
    watch.add_argument(
        "--variant",
        metavar="NAME",
        help="the game's rules variant (`dominocam rules`): its layout and its usual set",
    )
    watch.add_argument(
        "--kind",
        default=None,
        choices=LAYOUT_KINDS,
        help="layout kind of the game (default: the --variant's, else line)",
    )
    watch.add_argument(
        "--max-frames",
        type=positive_int,
        default=None,
        metavar="N",
        help="stop after N frames read",
    )
    add_conf(watch, DETECTOR_CONF)
    watch.add_argument("--json", action="store_true", help="print events as JSON lines")
    watch.add_argument("--quiet", action="store_true", help="no frames-per-second status line")
    add_model_files(watch)
    add_threads(watch)
    watch.set_defaults(func=run_watch)


def open_source(source: str) -> tuple[Any, bool]:
    """(capture, is_live) for a camera index, file or URL, its first frame already read
    (`capture.read()` returns it first); UserInputError, in one line, when it is a picture
    or gives no frame. The backends' own messages (FFmpeg's "moov atom not found", OpenCV's
    warnings) are kept off the terminal while it is opened: the error says what is wrong."""
    import cv2

    from dominocam.vision.image_io import IMAGE_SUFFIXES

    text = source.strip()
    is_camera = text.isdigit()
    is_url = "://" in text
    if not is_camera and not is_url:
        if not Path(text).is_file():
            raise UserInputError(f"video source {source!r} is not a camera index, file or URL")
        if Path(text).suffix.lower() in IMAGE_SUFFIXES:
            raise UserInputError(
                f"{source} is a picture, not a video: `dominocam watch` follows a camera, a "
                f"video file or a stream; to read a photo, run `dominocam read {source}`"
            )
    with _backends_quiet():
        capture = cv2.VideoCapture(int(text) if is_camera else text)
        ok, frame = capture.read() if capture.isOpened() else (False, None)
    if not ok or frame is None:
        capture.release()
        if is_camera:
            problem = f"camera {text} gives no picture: is it connected, and not in use?"
        elif is_url:
            problem = f"no video comes from {source}: check the address and the network"
        else:
            problem = (
                f"{source} cannot be played as a video (it is damaged, empty or not a "
                "video): give a video file, a camera index such as 0, or a stream URL"
            )
        raise UserInputError(problem)
    return FirstFrameAgain(capture, frame), is_camera or is_url


class FirstFrameAgain:
    """A capture whose first `read()` returns the frame read when it was opened."""

    def __init__(self, capture: Any, frame: Any) -> None:
        self.capture = capture
        self.first = frame

    def read(self) -> tuple[bool, Any]:
        if self.first is not None:
            frame, self.first = self.first, None
            return True, frame
        return self.capture.read()

    def get(self, prop: int) -> float:
        return self.capture.get(prop)

    def release(self) -> None:
        self.capture.release()


@contextmanager
def _backends_quiet() -> Iterator[None]:
    """Nothing the video backends write reaches standard error meanwhile: OpenCV's log is
    silenced, and FFmpeg (which writes to the file descriptor itself) writes to nothing."""
    import cv2

    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as nothing:
            os.dup2(nothing.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        cv2.utils.logging.setLogLevel(level)


def run_watch(args: argparse.Namespace) -> int:
    """`dominocam watch`."""
    capture, live = open_source(args.source)
    try:
        return _watch(args, capture, live)
    finally:
        capture.release()


def _watch(args: argparse.Namespace, capture: Any, live: bool) -> int:
    import cv2

    from dominocam.vision.annotate import annotate
    from dominocam.vision.cli import highest_value_read, smallest_set
    from dominocam.vision.reading import Game, PhotoReader, tracker_config
    from dominocam.vision.track import TableTracker

    variant = get_variant(args.variant) if args.variant else None
    reader = PhotoReader.load(args.detector, args.reader, threads=args.threads, conf=args.conf)
    # Without --set or --variant, the set grows with the values read (module docstring),
    # from the smallest; never beyond what the reader can read.
    grows = args.set is None and variant is None
    reach = smallest_set(reader.models.reader.num_values - 1)
    set_max = args.set or (variant.set if variant is not None else SUPPORTED_SETS[0])
    layout = args.kind or (variant.name if variant is not None else "line")
    fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0) or 30.0
    events_file = None
    if args.events:
        Path(args.events).parent.mkdir(parents=True, exist_ok=True)
        events_file = open(args.events, "a")  # noqa: SIM115 (closed in finally)
    writer = None
    tracker: TableTracker | None = None
    config = tracker_config(fps / args.every, set_max, Game(layout))
    start = time.monotonic()
    frames = processed = 0
    last_status = 0.0
    try:
        while args.max_frames is None or frames < args.max_frames:
            ok, frame = capture.read()
            if not ok or frame is None:
                break
            frames += 1
            if (frames - 1) % args.every:
                continue
            h, w = frame.shape[:2]
            if tracker is None:
                tracker = reader.tracker(w, h, config)
                if grows:
                    tracker.grow_set(reach)
            stamp = time.monotonic() - start if live else (frames - 1) / fps
            result = reader.track(tracker, frame, stamp)
            processed += 1
            if tracker.config.set_max != set_max:
                set_max = tracker.config.set_max  # grown with a higher value read
                if not args.quiet:
                    print(
                        f"\rset: double-{set_max} (assumed: the highest value read is "
                        f"{highest_value_read(result.scene)}; give --set N or --variant NAME)",
                        file=sys.stderr,
                        flush=True,
                    )
            for event in result.events:
                record = {**event.to_dict(), "set": set_max}
                if events_file is not None:
                    events_file.write(json.dumps(record) + "\n")
                    events_file.flush()
                line = json.dumps(record) if args.json else f"[{event.time_s:8.2f} s] {event.text}"
                print(line, flush=True)
            if args.annotate:
                drawn = draw_tracked(annotate(frame, result.scene), result)
                if writer is None:
                    writer = _writer(args.annotate, fps / args.every, (w, h))
                writer.write(drawn)
            now = time.monotonic()
            if not args.quiet and now - last_status >= 0.5:
                last_status = now
                rate = processed / max(now - start, 1e-6)
                print(
                    f"\rframe {frames}  {rate:5.1f} fps  {len(result.scene.tiles)} tiles  "
                    f"{len(result.hidden)} hidden",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        if events_file is not None:
            events_file.close()
        if writer is not None:
            writer.release()
    if not args.quiet:
        elapsed = max(time.monotonic() - start, 1e-6)
        print(
            f"\r{frames} frames read, {processed} processed, {processed / elapsed:.1f} fps",
            file=sys.stderr,
        )
    return 0


def _writer(path: str, fps: float, size: tuple[int, int]) -> Any:
    import cv2

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(path, cv2.VideoWriter.fourcc(*"mp4v"), max(fps, 1.0), size)
    if not writer.isOpened():
        raise UserInputError(f"cannot write the annotated video {path}")
    return writer


def draw_tracked(image: Any, result: Any) -> Any:
    """Tentative boxes in grey and hidden (held) tiles' outlines in yellow over `image`."""
    import cv2
    import numpy as np

    for corners in result.tentative:
        pts = np.round(corners).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(image, [pts], True, (160, 160, 160), 1, cv2.LINE_AA)
    for sid in result.hidden:
        pts = np.round(result.scene.tiles[sid].corners).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(image, [pts], True, (0, 220, 255), 2, cv2.LINE_AA)
    ends = ", ".join(str(v) for v in result.scene.layout.open_ends) or "-"
    cv2.putText(
        image,
        f"open ends: {ends}",
        (10, image.shape[0] - 12),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.6,
        (255, 255, 255),
        2,
        cv2.LINE_AA,
    )
    return image
