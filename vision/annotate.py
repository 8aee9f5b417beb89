"""Drawing a Scene over its photo: boxes, values and confidences (OpenCV Hershey fonts only)."""

from __future__ import annotations

import numpy as np

from dominocam.vision.scene import Scene

UP_COLOUR = (60, 200, 60)  # BGR
DOWN_COLOUR = (200, 120, 40)
DOUBT_COLOUR = (40, 40, 230)  # a doubtful tile, or a read whose weaker half is below `doubt`
REJECTED_COLOUR = (150, 150, 150)  # a box judged probably not a tile (dashed)
DASH_PX = 8  # length of a dash (and of the gap after it) of a rejected box, at scale 1


def annotate(image: np.ndarray, scene: Scene, *, doubt: float = 0.8) -> np.ndarray:
    """A copy of `image` (BGR uint8 HxWx3) with every tile of `scene` drawn on it.

    Face-up tiles show "a-b" and their lower half confidence, face-down tiles "down"; the
    divider of each face-up tile is drawn. Doubtful tiles (`SceneTile.doubtful`; for a Scene
    without probabilities, reads whose weaker half is below `doubt`) are drawn in red with
    "?" and their probability. Rejected boxes (probably not tiles) are drawn apart: dashed,
    grey, "not a tile?", so that a person can restore one.
    """
    import cv2

    out = image.copy()
    height, width = out.shape[:2]
    scale = max(0.4, min(width, height) / 1400)
    thick = max(1, round(2 * scale))
    for box in scene.rejected:
        _dashed_polygon(out, box.corners, REJECTED_COLOUR, max(1, thick // 2), scale, cv2)
        read = f" {box.pips[0]}-{box.pips[1]}" if box.pips is not None else ""
        _label(
            out,
            f"not a tile?{read} p={box.probability:.2f}",
            box.corners.mean(axis=0),
            REJECTED_COLOUR,
            scale * 0.8,
            cv2,
        )
    for tile in scene.tiles:
        pts = np.round(tile.corners).astype(np.int32)
        colour = DOWN_COLOUR if tile.face == "down" else UP_COLOUR
        if tile.probability is not None:
            doubtful = tile.doubtful
        else:
            doubtful = tile.pip_confidence is not None and min(tile.pip_confidence) < doubt
        if doubtful:
            colour = DOUBT_COLOUR
        cv2.polylines(out, [pts.reshape(-1, 1, 2)], True, colour, thick, cv2.LINE_AA)
        if tile.face == "up":
            c = tile.corners
            a, b = (c[1] + c[2]) / 2, (c[3] + c[0]) / 2
            cv2.line(out, _pt(a), _pt(b), colour, max(1, thick // 2), cv2.LINE_AA)
            label = "?" if tile.pips is None else f"{tile.pips[0]}-{tile.pips[1]}"
            if tile.pip_confidence is not None:
                label += f" {min(tile.pip_confidence):.2f}"
        else:
            label = f"down {tile.confidence:.2f}"
        if tile.probability is not None:
            label = f"{label.split(' ')[0]} p={tile.probability:.2f}"
        if doubtful:
            label += " ?"
        _label(out, f"#{tile.id} {label}", tile.center, colour, scale, cv2)
    summary = f"{len(scene.tiles)} tiles, {scene.face_down} down, pip total {scene.pip_total}"
    if scene.needs_review:
        summary += " - please check"
    _label(out, summary, np.array([10.0, 10.0]), (255, 255, 255), scale * 1.2, cv2, anchor="tl")
    return out


def _dashed_polygon(
    image: np.ndarray,
    corners: np.ndarray,
    colour: tuple[int, int, int],
    thick: int,
    scale: float,
    cv2: object,
) -> None:
    """The closed polygon `corners` drawn in dashes of DASH_PX * scale pixels."""
    dash = max(3.0, DASH_PX * scale)
    for k in range(len(corners)):
        a, b = corners[k], corners[(k + 1) % len(corners)]
        length = float(np.linalg.norm(b - a))
        steps = max(1, int(length // (2 * dash)))
        for i in range(steps + 1):
            t0, t1 = 2 * i * dash / max(length, 1e-9), (2 * i + 1) * dash / max(length, 1e-9)
            if t0 >= 1:
                break
            p, q = a + (b - a) * t0, a + (b - a) * min(t1, 1.0)
            cv2.line(image, _pt(p), _pt(q), colour, thick, cv2.LINE_AA)  # type: ignore[attr-defined]


def _pt(p: np.ndarray) -> tuple[int, int]:
    return round(float(p[0])), round(float(p[1]))


def _label(
    image: np.ndarray,
    text: str,
    at: np.ndarray,
    colour: tuple[int, int, int],
    scale: float,
    cv2: object,
    anchor: str = "centre",
) -> None:
    """Text on a dark box, centred on `at` (or with its top-left corner there)."""
    font = cv2.FONT_HERSHEY_SIMPLEX  # type: ignore[attr-defined]
    thick = max(1, round(1.5 * scale))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)  # type: ignore[attr-defined]
    x, y = float(at[0]), float(at[1])
    if anchor == "centre":
        x, y = x - tw / 2, y + th / 2
    else:
        y += th
    x = min(max(0.0, x), image.shape[1] - tw - 1.0)
    y = min(max(float(th), y), image.shape[0] - base - 1.0)
    x0, y0 = round(x), round(y)
    cv2.rectangle(  # type: ignore[attr-defined]
        image, (x0 - 2, y0 - th - 2), (x0 + tw + 2, y0 + base), (20, 20, 20), -1
    )
    cv2.putText(image, text, (x0, y0), font, scale, colour, thick, cv2.LINE_AA)  # type: ignore[attr-defined]
