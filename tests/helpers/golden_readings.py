"""What the committed models read in a fixed set of pictures, at full precision, so that a
change meant only to make the pipeline faster can be shown to read exactly as before.

    .venv/bin/python tests/helpers/golden_readings.py --write   # after a change of models

`tests/vision/test_golden_readings.py` reads the same pictures and compares them with
`tests/assets/golden/readings.json` as a player would see them (`reading_differences`): the
same tiles in the same places with the same faces, values, doubts and review, the same kinds
of warning, open ends and lines, numbers within `TOLERANCE`. Not compared: tile ids, the
order of tiles, lines and warnings, which tile of a line's chain it was grown from, and the
ids and numbers inside a warning's text. Those follow near-ties in float arithmetic, which
another CPU's vector kernels (SSE, AVX2, AVX-512; Intel or AMD) may break the other way
(issue 31). The file keeps the full description (`describe`); both sides are made canonical
when compared. It records the SHA-256 of the models it was read with; with other models the
comparison means nothing, so the test is skipped and says to run the command above.

The pictures are built from committed ones only, each chosen to run one path of
`dominocam.vision.pipeline.read_image`: the bundled tables as they are (detection, verifier, reader,
joint decoding, layout), the benchmark table of `dominocam bench` (rendered by dominosynth
from a fixed seed), one tile cut out and enlarged (the close-up pass) and a 4 x 4 mosaic of
the tables (its tiles are small at the network input: the far-tile pass).
"""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dominocam.vision.notes import notes_json

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "tests" / "assets"
GOLDEN = ASSETS / "golden" / "readings.json"
# Floats may move this far; nothing else may. A vectorised sum adds in another order, and
# OpenCV's resampling differs between its releases: 5.0.0.93 -> 5.1.0.95 moved probabilities
# and scores by up to 4e-4 and corners by up to 6e-3 px, with every face, pip, doubt,
# warning and line unchanged. A change of crop or of input size moves them far more.
TOLERANCE = 2e-3  # probabilities, scores and confidences (0..1)
PIXEL_TOLERANCE = 0.05  # corners and points, in pixels of the picture
PIXEL_KEYS = (".corners", ".point")
TABLES = (
    "bundled/clean-s21-002.jpg",
    "bundled/default-s22-003.jpg",
    "bundled/default-s22-006.jpg",
    "layouts/spinner-t-s31-000.jpg",
)


@dataclass(frozen=True)
class Picture:
    """One picture to read, and how: `set_max` and whether it is a table (with a layout)."""

    name: str
    image: np.ndarray
    set_max: int = 6
    with_layout: bool = True


def _load(relative: str) -> np.ndarray:
    from dominocam.vision.image_io import load_image

    return load_image(ASSETS / relative)


def _closeup() -> np.ndarray:
    """The first tile of clean-s21-002 cut out with a little table around it and enlarged to
    about 700 px: a tile longer than the network input can box."""
    truth = json.loads((ASSETS / "bundled" / "clean-s21-002.json").read_text())
    corners = np.array(truth["tiles"][0]["corners"], dtype=np.float64)
    image = _load("bundled/clean-s21-002.jpg")
    (x0, y0), (x1, y1) = corners.min(axis=0) - 12, corners.max(axis=0) + 12
    x0, y0 = max(0, int(x0)), max(0, int(y0))
    crop = image[y0 : int(y1), x0 : int(x1)]
    scale = 700 / max(crop.shape[:2])
    return cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)


def _mosaic() -> np.ndarray:
    """The four tables side by side, 4 x 4 (3200 x 2400): 90 px tiles shrink to about 19 px
    at the network input, below `dominocam.vision.detector.SLICE_BELOW_INPUT_PX`."""
    tables = [_load(name) for name in TABLES]
    rows = [np.hstack([tables[(r + c) % 4] for c in range(4)]) for r in range(4)]
    return np.vstack(rows)


def _bench() -> np.ndarray:
    from dominocam.measure.bench import bench_table

    return bench_table(1280, 720, 36).image


@functools.cache
def pictures() -> tuple[Picture, ...]:
    """The pictures, in a fixed order (made once: the benchmark table takes a while)."""
    makers: list[tuple[str, Callable[[], np.ndarray], int, bool]] = [
        *((Path(name).stem, lambda name=name: _load(name), 6, True) for name in TABLES),
        ("empty-s23-000", lambda: _load("not-tiles/empty-s23-000.jpg"), 6, True),
        ("bench-1280x720", _bench, 12, True),
        ("closeup-hand", _closeup, 6, False),
        ("mosaic-far-tiles", _mosaic, 6, True),
    ]
    return tuple(Picture(name, make(), set_max, layout) for name, make, set_max, layout in makers)


def _floats(values: Any) -> Any:
    return None if values is None else np.asarray(values, dtype=np.float64).tolist()


def describe(scene: Any) -> dict[str, Any]:
    """A Scene at full precision, half probabilities included (its JSON form rounds)."""
    return {
        "tiles": [
            {
                "id": t.id,
                "face": t.face,
                "pips": list(t.pips) if t.pips is not None else None,
                "corners": _floats(t.corners),
                "confidence": t.confidence,
                "pip_confidence": _floats(t.pip_confidence),
                "half_probs": _floats(t.half_probs),
                "probability": t.probability,
                "doubtful": t.doubtful,
                "verifier_score": t.verifier_score,
            }
            for t in scene.tiles
        ],
        "rejected": [
            {
                "corners": _floats(r.corners),
                "probability": r.probability,
                "face": r.face,
                "pips": list(r.pips) if r.pips is not None else None,
            }
            for r in scene.rejected
        ],
        "warnings": [str(w) for w in scene.warnings],
        "notes": notes_json(scene.notes),
        "needs_review": scene.needs_review,
        "layout": scene.to_dict()["layout"],
    }


def read_all(reader: Any) -> dict[str, dict[str, Any]]:
    """Every picture of `pictures` read by the product's reader, described."""
    return read_all_of(reader, pictures())


def read_all_of(reader: Any, chosen: Sequence[Picture]) -> dict[str, dict[str, Any]]:
    """The pictures `chosen` read by the product's reader (`dominocam.vision.reading.PhotoReader`,
    as `dominocam read` and the dashboard read: a table photo of no known game, or a hand
    photo), described."""
    return {
        p.name: describe(reader.read(p.image, "table" if p.with_layout else "hand", p.set_max))
        for p in chosen
    }


def model_hashes(models: Any) -> dict[str, str]:
    """SHA-256 of the detector, verifier and reader files, and of the calibration."""
    from dominocam.vision.onnx_model import file_sha256

    files = {"detector": models.detector.path, "reader": models.reader.path}
    if models.verifier is not None:
        files["verifier"] = models.verifier.path
    calibration = Path(models.detector.path).parent / "calibration.json"
    if calibration.is_file():
        files["calibration"] = calibration
    return {kind: file_sha256(Path(path)) for kind, path in sorted(files.items())}


def differences(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Where `actual` differs from `expected`: floats beyond `TOLERANCE` (`PIXEL_TOLERANCE`
    for coordinates), anything else at all; empty when they agree."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        if set(expected) != set(actual):
            return [f"{where}: keys {sorted(expected)} != {sorted(actual)}"]
        return [d for k in expected for d in differences(expected[k], actual[k], f"{where}.{k}")]
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{where}: {len(expected)} items != {len(actual)}"]
        return [
            d
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for d in differences(e, a, f"{where}[{i}]")
        ]
    both_numbers = all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in (expected, actual)
    )
    if both_numbers and (isinstance(expected, float) or isinstance(actual, float)):
        tolerance = PIXEL_TOLERANCE if any(k in where for k in PIXEL_KEYS) else TOLERANCE
        if abs(float(expected) - float(actual)) > tolerance:
            return [f"{where}: {expected!r} != {actual!r}"]
        return []
    return [] if expected == actual else [f"{where}: {expected!r} != {actual!r}"]


def _centre(item: dict[str, Any]) -> np.ndarray:
    return np.asarray(item["corners"], dtype=np.float64).reshape(4, 2).mean(axis=0)


def matched_by_place(
    expected: Sequence[dict[str, Any]], found: Sequence[dict[str, Any]]
) -> list[tuple[int, int]]:
    """(expected index, found index) of the boxes that lie in the same place: the pairs of
    nearest centres first, each box in one pair at most (ids and order are not compared)."""
    if not expected or not found:
        return []
    a = np.array([_centre(e) for e in expected])
    b = np.array([_centre(f) for f in found])
    distance = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=-1)
    pairs: list[tuple[int, int]] = []
    used_expected: set[int] = set()
    used_found: set[int] = set()
    for flat in np.argsort(distance, axis=None, kind="stable"):
        i, j = (int(k) for k in np.unravel_index(flat, distance.shape))
        if i not in used_expected and j not in used_found:
            pairs.append((i, j))
            used_expected.add(i)
            used_found.add(j)
    return sorted(pairs)


# A box's fields that belong to its halves: its corners turned by two (the same box, half 1
# first) show them the other way round.
HALF_KEYS = ("pips", "pip_confidence", "half_probs")


def _turned_like(expected: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    """`found` with its halves in `expected`'s order: corners turned by two and its per-half
    fields reversed when that lies nearer `expected`'s corners (the same box, read from its
    other end: a near-square angle may regularise either way)."""
    mine = np.asarray(expected["corners"], dtype=np.float64).reshape(4, 2)
    theirs = np.asarray(found["corners"], dtype=np.float64).reshape(4, 2)
    turned = np.roll(theirs, 2, axis=0)
    if np.abs(turned - mine).max() >= np.abs(theirs - mine).max():
        return found
    out = dict(found, corners=turned.tolist())
    for key in HALF_KEYS:
        if out.get(key) is not None:
            out[key] = list(reversed(out[key]))
    return out


def _box_differences(
    expected: Sequence[dict[str, Any]], found: Sequence[dict[str, Any]], where: str
) -> list[str]:
    """Boxes (tiles or rejected ones) compared in their places, ids left out."""
    pairs = matched_by_place(expected, found)
    out = [
        d
        for i, j in pairs
        for d in differences(
            {k: v for k, v in expected[i].items() if k != "id"},
            {k: v for k, v in _turned_like(expected[i], found[j]).items() if k != "id"},
            f"{where}[{i}]",
        )
    ]
    lost = sorted(set(range(len(expected))) - {i for i, _ in pairs})
    new = sorted(set(range(len(found))) - {j for _, j in pairs})
    out += [f"{where}[{i}]: not found, at {_centre(expected[i]).round(1).tolist()}" for i in lost]
    out += [f"{where}: a new box at {_centre(found[j]).round(1).tolist()}" for j in new]
    return out


def warning_kind(entry: dict[str, Any]) -> str:
    """The code of a warning (an entry of the Scene JSON's `notes`), with the code of a
    warning nested in it (`read_changed_together(must_match_tile)`); its text where it has no
    code. Its tile ids, numbers and place are left out."""
    if entry.get("code") is None:
        return str(entry.get("text"))
    nested = [
        warning_kind(v)
        for _k, v in sorted((entry.get("params") or {}).items())
        if isinstance(v, dict) and "code" in v
    ]
    return f"{entry['code']}({', '.join(nested)})" if nested else str(entry["code"])


def _kinds(texts: Sequence[str], notes: Any) -> list[str]:
    """The kinds of a list of warnings beside its `notes` (texts as they are without)."""
    if not isinstance(notes, list) or len(notes) != len(texts):
        notes = [{"code": None, "text": t} for t in texts]
    return sorted(warning_kind(n) for n in notes)


def _tile_value(tile: dict[str, Any]) -> tuple[int, ...]:
    return tuple(sorted(tile["pips"])) if tile.get("pips") is not None else ()


def _value_text(value: tuple[int, ...]) -> str:
    return "-".join(map(str, value)) if value else "?"


def canonical_lines(layout: dict[str, Any], tiles: Sequence[dict[str, Any]]) -> list[str]:
    """Each line as the values of its tiles, read from the end that gives the smaller
    sequence ("0-2 2-5 5-5"), sorted: what a player sees, without ids or line order.

    Lines run from each played group's root, so a root that is not a junction (one or two
    lines grow from it: a tile of a chain, or a double in a line) splits one chain in two at
    a tile a near-tie may choose (two tiles are equally far from their middle); those two
    are joined back into the chain. A junction (a spinner, a cross, a T) keeps its lines
    apart: there the picture decides, not a tie. A root is a tile that starts lines and
    lies nowhere else in one (a junction further on also ends the line that reaches it)."""
    values = {t["id"]: _tile_value(t) for t in tiles}
    lines = [list(line["tiles"]) for line in layout.get("lines", []) if line["tiles"]]
    inner = {t for line in lines for t in line[1:]}
    for root in sorted({line[0] for line in lines} - inner):
        grown = [line for line in lines if line[0] == root]
        if len(grown) <= 2:
            first, *second = grown
            chain = first[::-1] + (second[0][1:] if second else [])
            lines = [line for line in lines if line[0] != root] + [chain]
    out = []
    for line in lines:
        seen = tuple(values.get(t, ()) for t in line)
        out.append(" ".join(_value_text(v) for v in min(seen, seen[::-1])))
    return sorted(out)


def canonical(reading: dict[str, Any]) -> dict[str, Any]:
    """What a player sees in a reading besides its boxes (`describe`), ids and order gone:
    kinds of warning and doubt, lines (`canonical_lines`) and open ends as multisets, each
    open end with the value of the tile that shows it."""
    layout = reading.get("layout") or {}
    tiles = reading.get("tiles", [])
    values = {t["id"]: _tile_value(t) for t in tiles}
    ends = [line["open_end"] for line in layout.get("lines", []) if line.get("open_end")]
    return {
        "warnings": _kinds(reading.get("warnings", []), reading.get("notes")),
        "needs_review": reading.get("needs_review"),
        "layout": {
            "kind": layout.get("kind"),
            "lines": canonical_lines(layout, tiles),
            "open_ends": sorted(layout.get("open_ends", [])),
            "open_end_tiles": sorted(
                f"{e['value']} on {_value_text(values.get(e['tile'], ()))}" for e in ends
            ),
            "doubts": _kinds(layout.get("doubts", []), layout.get("notes")),
            "confidence": layout.get("confidence"),
        },
    }


def reading_differences(expected: dict[str, Any], found: dict[str, Any]) -> list[str]:
    """Where the reading `found` differs from `expected` (both as `describe` writes them) as a
    player would see it: tiles and rejected boxes matched by place (`matched_by_place`) and
    compared field by field but for their ids, the rest made `canonical`; floats within
    `TOLERANCE` (`PIXEL_TOLERANCE` for coordinates). Empty when they agree."""
    return [
        *_box_differences(expected.get("tiles", []), found.get("tiles", []), ".tiles"),
        *_box_differences(expected.get("rejected", []), found.get("rejected", []), ".rejected"),
        *differences(canonical(expected), canonical(found)),
    ]


def golden_differences(golden: dict[str, Any], found: dict[str, Any]) -> list[str]:
    """Where `found` ({"models", "readings"}) differs from the golden file's content: the
    models exactly, each picture by `reading_differences`."""
    out = differences(golden["models"], found["models"], ".models")
    if set(golden["readings"]) != set(found["readings"]):
        return [*out, f".readings: {sorted(golden['readings'])} != {sorted(found['readings'])}"]
    for name, expected in golden["readings"].items():
        out += [f"{name}{d}" for d in reading_differences(expected, found["readings"][name])]
    return out


def rounded(value: Any) -> Any:
    """`value` with every float rounded to 1e-10, far below `TOLERANCE` (a smaller file)."""
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return round(value, 10) if isinstance(value, float) else value


def as_text(golden: dict[str, Any]) -> str:
    """The golden file's text: the models, then one line per picture."""
    lines = [f' "models": {json.dumps(golden["models"])}']
    pictures = [
        f"  {json.dumps(k)}: {json.dumps(rounded(v))}" for k, v in golden["readings"].items()
    ]
    lines.append(' "readings": {\n' + ",\n".join(pictures) + "\n }")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {GOLDEN.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    from dominocam.vision.reading import PhotoReader

    reader = PhotoReader.load(threads=2)
    found = {"models": model_hashes(reader.models), "readings": read_all(reader)}
    if args.write:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(as_text(found))
        print(f"wrote {GOLDEN.relative_to(ROOT)}")
        return 0
    golden = json.loads(GOLDEN.read_text())
    diffs = golden_differences(golden, found)
    print("\n".join(diffs) or "same readings")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
