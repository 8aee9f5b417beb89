"""PNG plots of `dominocam eval`, drawn with OpenCV (no matplotlib, so eval runs in the runtime
environment): a confusion matrix of half values, a gallery of the worst failures, and the
figures of a boxed set by tile length, and the reliability diagram of the tile probability."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from dominocam.measure.metrics import LENGTH_METRICS, confusion_matrix
from dominocam.vision.geometry import rectify_tile
from dominocam.vision.image_io import load_image

FONT = cv2.FONT_HERSHEY_SIMPLEX
GREEN = (60, 200, 60)
RED = (40, 40, 230)
ORANGE = (0, 150, 255)


def _text(
    canvas: np.ndarray, text: str, origin: tuple[int, int], scale: float, colour=(0, 0, 0)
) -> None:
    """Antialiased text of thickness 1 at `origin` (its baseline's left end)."""
    cv2.putText(canvas, text, origin, FONT, scale, colour, 1, cv2.LINE_AA)


def draw_confusion(matrix: np.ndarray, title: str, cell: int = 44) -> np.ndarray:
    """A BGR picture of a confusion matrix: rows labelled values, columns read values.

    Cells are shaded by the row-normalised fraction (dark blue = all of the row), the count
    is written in each non-empty cell, and off-diagonal cells with counts are outlined red.
    """
    matrix = np.asarray(matrix, dtype=np.int64)
    size = matrix.shape[0]
    margin_left, margin_top = 70, 80
    width = margin_left + cell * size + 20
    height = margin_top + cell * size + 30
    canvas = np.full((height, width, 3), 255, np.uint8)
    cv2.putText(canvas, title, (10, 25), FONT, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(canvas, "read value ->", (margin_left, 55), FONT, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(canvas, "label", (5, margin_top - 8), FONT, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    rows = matrix.sum(axis=1, keepdims=True).clip(min=1)
    fraction = matrix / rows
    for r in range(size):
        y = margin_top + r * cell
        cv2.putText(canvas, str(r), (40, y + cell // 2 + 5), FONT, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
        for c in range(size):
            x = margin_left + c * cell
            if r == 0:
                cv2.putText(
                    canvas,
                    str(c),
                    (x + cell // 3, margin_top - 8),
                    FONT,
                    0.45,
                    (0, 0, 0),
                    1,
                    cv2.LINE_AA,
                )
            shade = int(255 - 200 * fraction[r, c])
            cv2.rectangle(canvas, (x, y), (x + cell, y + cell), (255, shade, shade), -1)
            cv2.rectangle(canvas, (x, y), (x + cell, y + cell), (200, 200, 200), 1)
            if matrix[r, c]:
                colour = (255, 255, 255) if fraction[r, c] > 0.6 else (0, 0, 0)
                text = str(int(matrix[r, c]))
                (tw, _), _ = cv2.getTextSize(text, FONT, 0.4, 1)
                cv2.putText(
                    canvas,
                    text,
                    (x + (cell - tw) // 2, y + cell // 2 + 5),
                    FONT,
                    0.4,
                    colour,
                    1,
                    cv2.LINE_AA,
                )
                if r != c:
                    cv2.rectangle(canvas, (x + 1, y + 1), (x + cell - 1, y + cell - 1), RED, 2)
    total = int(matrix.sum())
    right = int(np.trace(matrix))
    _text(canvas, f"{right}/{total} halves on the diagonal", (margin_left, height - 8), 0.45)
    return canvas


# Legend and bar colour (BGR) of each by-length figure (`metrics.LENGTH_METRICS`).
LENGTH_BARS = {
    "detection_recall": ("recall", (200, 120, 40)),
    "detection_precision": ("precision", ORANGE),
    "half_accuracy": ("per-half", GREEN),
}


def draw_by_length(
    rates: dict[str, dict], title: str, floor: float = 0.5, group_px: int = 150, plot_px: int = 320
) -> np.ndarray:
    """A BGR bar chart: for each tile length group (x), recall, precision and per-half
    accuracy (bars) with their Wilson 95% intervals (whiskers), y from `floor` to 1.

    Args:
        rates: group name -> metric -> `metrics.Rate`, shortest tiles first.
        floor: the value at the bottom of the axis; a bar below it is drawn to the bottom
            and its value written in red.
    """
    margin_left, margin_top, margin_bottom = 50, 70, 60
    width = margin_left + group_px * max(1, len(rates)) + 20
    height = margin_top + plot_px + margin_bottom
    canvas = np.full((height, width, 3), 255, np.uint8)
    black = (0, 0, 0)
    _text(canvas, title, (10, 25), 0.6)

    def y_of(value: float) -> int:
        share = (max(value, floor) - floor) / (1.0 - floor)
        return round(margin_top + plot_px * (1.0 - share))

    for step in np.arange(floor, 1.0001, 0.1):
        y = y_of(step)
        cv2.line(canvas, (margin_left, y), (width - 20, y), (220, 220, 220), 1)
        _text(canvas, f"{step:.1f}", (8, y + 5), 0.4)
    legend_x = margin_left
    for metric in LENGTH_METRICS:
        label, colour = LENGTH_BARS[metric]
        cv2.rectangle(canvas, (legend_x, 40), (legend_x + 14, 54), colour, -1)
        _text(canvas, label, (legend_x + 20, 52), 0.45)
        legend_x += 130
    bar = (group_px - 30) // len(LENGTH_BARS)
    for g, (group, metrics) in enumerate(rates.items()):
        x0 = margin_left + g * group_px + 15
        for b, metric in enumerate(LENGTH_METRICS):
            colour = LENGTH_BARS[metric][1]
            rate = metrics.get(metric)
            if rate is None or not rate.n:
                continue
            x = x0 + b * bar
            cv2.rectangle(canvas, (x, y_of(rate.value)), (x + bar - 4, y_of(floor)), colour, -1)
            low, high = rate.interval
            mid = x + (bar - 4) // 2
            cv2.line(canvas, (mid, y_of(low)), (mid, y_of(high)), black, 1)
            if rate.value < floor:
                _text(canvas, f"{rate.value:.2f}", (x, y_of(floor) - 4), 0.35, RED)
        tiles = metrics.get("detection_recall")
        _text(canvas, f"{group} px", (x0, height - 38), 0.45)
        _text(canvas, f"{tiles.n if tiles else 0} tiles", (x0, height - 18), 0.4, (90, 90, 90))
    return canvas


def draw_reliability(calibration: dict, title: str, plot_px: int = 360) -> np.ndarray:
    """A BGR reliability diagram: for each probability bin (x: mean probability), the fraction
    of its boxes read right (y), a dot sized by the count, against the diagonal of perfect
    calibration; `calibration` is `SetResult.calibration()`."""
    margin_left, margin_top, margin_bottom, margin_right = 60, 60, 50, 30
    width = margin_left + plot_px + margin_right
    height = margin_top + plot_px + margin_bottom
    canvas = np.full((height, width, 3), 255, np.uint8)
    _text(canvas, title, (10, 22), 0.5)
    _text(
        canvas,
        f"ECE {calibration['ece']:.3f} over {calibration['boxes']} boxes",
        (10, 44),
        0.45,
        (90, 90, 90),
    )

    def at(p: float, q: float) -> tuple[int, int]:
        return round(margin_left + plot_px * p), round(margin_top + plot_px * (1.0 - q))

    for step in np.arange(0.0, 1.0001, 0.2):
        cv2.line(canvas, at(step, 0), at(step, 1), (225, 225, 225), 1)
        cv2.line(canvas, at(0, step), at(1, step), (225, 225, 225), 1)
        _text(canvas, f"{step:.1f}", (at(step, 0)[0] - 10, height - 30), 0.4)
        _text(canvas, f"{step:.1f}", (18, at(0, step)[1] + 5), 0.4)
    cv2.line(canvas, at(0, 0), at(1, 1), (150, 150, 150), 1, cv2.LINE_AA)
    _text(canvas, "probability", (margin_left + plot_px // 2 - 40, height - 8), 0.45)
    _text(canvas, "right", (4, margin_top - 8), 0.45)
    total = max(1, calibration["boxes"])
    for b in calibration["bins"]:
        radius = max(3, round(18 * (b["n"] / total) ** 0.5))
        colour = GREEN if b["gap"] <= 0.05 else ORANGE
        cv2.circle(canvas, at(b["mean_p"], b["right"]), radius, colour, -1, cv2.LINE_AA)
        x, y = at(b["mean_p"], b["right"])
        _text(canvas, str(b["n"]), (x + radius + 2, y + 4), 0.35, (60, 60, 60))
    return canvas


def _fit(image: np.ndarray, width: int, height: int) -> tuple[np.ndarray, float]:
    scale = min(width / image.shape[1], height / image.shape[0])
    resized = cv2.resize(
        image,
        (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale))),
        interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
    )
    canvas = np.full((height, width, 3), 40, np.uint8)
    canvas[: resized.shape[0], : resized.shape[1]] = resized
    return canvas, scale


def draw_failure(failure, width: int = 560, height: int = 400) -> np.ndarray:
    """One gallery panel: the photo with read boxes (green up, orange down) and labelled boxes
    that were missed (red), values written on the boxes, the problems listed below."""
    try:
        image = load_image(failure.path)
    except Exception:  # a gallery must not fail on one unreadable file
        image = np.zeros((height, width, 3), np.uint8)
    panel, scale = _fit(image, width, height)
    thickness = 1
    for p in failure.predictions:
        pts = np.round(np.asarray(p.corners) * scale).astype(np.int32)
        colour = GREEN if p.face == "up" else ORANGE
        cv2.polylines(panel, [pts], True, colour, thickness, cv2.LINE_AA)
        cv2.circle(panel, tuple(pts[0]), 2, colour, -1)
        text = f"{p.pips[0]}-{p.pips[1]}" if p.pips is not None else p.face
        org = tuple(int(v) for v in pts.mean(axis=0))
        cv2.putText(panel, text, org, FONT, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(panel, text, org, FONT, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
    for box in failure.missed:
        pts = np.round(np.asarray(box) * scale).astype(np.int32)
        cv2.polylines(panel, [pts], True, RED, 2, cv2.LINE_AA)
    lines = [Path(failure.path).name[:58], *failure.lines[:5]]
    text_height = 16 * len(lines) + 6
    caption = np.full((text_height, width, 3), 255, np.uint8)
    for i, line in enumerate(lines):
        cv2.putText(
            caption,
            line[:64],
            (4, 14 + 16 * i),
            FONT,
            0.4,
            (0, 0, 0) if i else (120, 0, 0),
            1,
            cv2.LINE_AA,
        )
    full = np.vstack([panel, caption])
    out = np.full((height + 6 * 16 + 6, width, 3), 255, np.uint8)
    out[: full.shape[0]] = full
    return out


def draw_gallery(failures, title: str, count: int = 24, columns: int = 3) -> np.ndarray | None:
    """The `count` worst failures (highest severity first) as one grid picture."""
    worst = sorted(failures, key=lambda f: -f.severity)[:count]
    if not worst:
        return None
    panels = [draw_failure(f) for f in worst]
    h, w = panels[0].shape[:2]
    rows = (len(panels) + columns - 1) // columns
    grid = np.full((40 + rows * (h + 6), columns * (w + 6), 3), 255, np.uint8)
    cv2.putText(grid, title, (8, 28), FONT, 0.7, (0, 0, 0), 2, cv2.LINE_AA)
    for i, panel in enumerate(panels):
        r, c = divmod(i, columns)
        y, x = 40 + r * (h + 6), c * (w + 6)
        grid[y : y + h, x : x + w] = panel
    return grid


def draw_misreads(misreads, title: str, count: int = 48, columns: int = 12) -> np.ndarray | None:
    """Rectified crops of wrongly read tiles (as the reader saw them: half 0 on top), each
    captioned 'label read as read'."""
    if not misreads:
        return None
    cache: dict[str, np.ndarray] = {}
    cells = []
    for path, corners, text in misreads[:count]:
        if path not in cache:
            try:
                cache[path] = load_image(path)
            except Exception:  # a gallery must not fail on one unreadable file
                cache[path] = np.zeros((64, 64, 3), np.uint8)
        crop = rectify_tile(cache[path], np.asarray(corners, dtype=np.float32), 48)
        crop = cv2.resize(crop, (96, 192), interpolation=cv2.INTER_NEAREST)
        cell = np.full((192 + 44, 120, 3), 255, np.uint8)
        cell[:192, 12:108] = crop
        words = text.split(" read as ")
        for i, line in enumerate([words[0], "-> " + words[-1]] if len(words) == 2 else [text]):
            cv2.putText(cell, line[:16], (4, 208 + 16 * i), FONT, 0.42, (0, 0, 0), 1, cv2.LINE_AA)
        cells.append(cell)
    h, w = cells[0].shape[:2]
    rows = (len(cells) + columns - 1) // columns
    grid = np.full((40 + rows * h, columns * w, 3), 255, np.uint8)
    cv2.putText(grid, title, (8, 28), FONT, 0.7, (0, 0, 0), 2, cv2.LINE_AA)
    for i, cell in enumerate(cells):
        r, c = divmod(i, columns)
        grid[40 + r * h : 40 + (r + 1) * h, c * w : (c + 1) * w] = cell
    return grid


def write_plots(results: dict, out: Path, gallery_count: int = 24) -> list[Path]:
    """Write confusion_<set>.png, failures_<set>.png, misreads_<set>.png and (boxed sets)
    by_length_<set>.png for each set; return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, result in results.items():
        if result.halves:
            path = out / f"confusion_{name}.png"
            matrix = confusion_matrix(result.halves)
            cv2.imwrite(str(path), draw_confusion(matrix, f"{name}: half values"))
            written.append(path)
        gallery = draw_gallery(
            result.failures, f"{name}: {len(result.failures)} failures, worst first", gallery_count
        )
        if gallery is not None:
            path = out / f"failures_{name}.png"
            cv2.imwrite(str(path), gallery)
            written.append(path)
        if result.by_length:
            path = out / f"by_length_{name}.png"
            title = f"{name}: by tile length (long side in the photo), 95% intervals"
            cv2.imwrite(str(path), draw_by_length(result.length_metrics(), title))
            written.append(path)
        if result.calibration_points:
            path = out / f"reliability_{name}.png"
            title = f"{name}: tile probability against tiles read right"
            cv2.imwrite(str(path), draw_reliability(result.calibration(), title))
            written.append(path)
        misread = draw_misreads(
            result.misreads, f"{name}: {len(result.misreads)} tiles read wrong (first 48)"
        )
        if misread is not None:
            path = out / f"misreads_{name}.png"
            cv2.imwrite(str(path), misread)
            written.append(path)
    return written
