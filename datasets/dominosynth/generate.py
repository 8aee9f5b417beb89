"""Making a data set: one image per (seed, index), rendered independently in worker
processes, written as YOLO-OBB, ground-truth JSON, reader crops, a contact sheet and a card.

Output layout (the contract other parts of DominoCam code against) is in datasets/README.md.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from dominocam.errors import UserInputError
from dominocam.vision.geometry import rectify_tile, split_halves
from dominocam.vision.reader import BACK_CLASS
from dominosynth import __version__, render
from dominosynth.backgrounds import list_photos
from dominosynth.config import MIN_VISIBLE_FRACTION, SynthConfig
from dominosynth.printed import sheet_points

CLASS_NAMES = {0: "tile_up", 1: "tile_down"}


@dataclass(frozen=True)
class Job:
    """Everything one worker needs for one image (picklable)."""

    out: str
    index: int
    seed: int
    width: int
    height: int
    kind: str  # table, hand or mixed
    max_pip: int
    split: str
    config: SynthConfig
    photos: tuple[str, ...] = ()


def image_name(index: int) -> str:
    return f"{index:06d}"


def picture_sets(count: int, seed: int, sets: tuple[int, ...]) -> list[int]:
    """The double-n set each picture shows: the given sets in turns, shuffled by the seed,
    so a mixed data set holds each in equal shares (users own double-6 and double-12 sets,
    and a double-6 set shows blanks and low values twice as often)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5E75]))
    return [int(sets[k % len(sets)]) for k in rng.permutation(count)]


def val_indices(count: int, seed: int, fraction: float) -> set[int]:
    """Which images go to the validation split: exactly round(count * fraction) of them."""
    n_val = round(count * fraction)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5A17]))
    return {int(i) for i in rng.permutation(count)[:n_val]}


def make_sample(job: Job):
    """Render one picture; returns (jpeg bytes, decoded image, truth dict, render ids, scene)."""
    cfg = job.config
    rng = np.random.default_rng(np.random.SeedSequence([job.seed, job.index]))
    kind = job.kind
    if kind == "mixed":
        table, hand = cfg.weight_list("kind_weights")
        kind = "table" if rng.random() < table / (table + hand) else "hand"
    scene = render.build_scene(
        rng, cfg, job.width, job.height, kind, job.max_pip, [Path(p) for p in job.photos]
    )
    drawn = render.render(scene, rng, cfg)
    image = render.camera_effects(drawn.image, drawn.ids, rng, cfg)
    quality = int(rng.uniform(*cfg.jpeg_quality))
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    truth = truth_dict(scene, drawn.ids, job, kind)
    return buf.tobytes(), decoded, truth, drawn.ids, scene, rng


def truth_dict(scene, ids: np.ndarray, job: Job, kind: str) -> dict:
    """The ground truth of one picture (see datasets/README.md)."""
    cam = scene.camera
    h, w = ids.shape
    counts = np.bincount(ids.ravel(), minlength=len(scene.tiles) + 1)
    tile_of_box = {b.tile: b for b in scene.boxes if b.tile >= 0}
    tiles = []
    membership: dict[int, list[dict]] = {}
    uid_to_id: dict[int, int] = {}
    for tid, st in enumerate(scene.tiles):
        if st.uid >= 0:
            uid_to_id[st.uid] = tid
    lines = []
    if scene.layout is not None:
        for j, ln in enumerate(scene.layout.lines):
            ids_in_line = [uid_to_id[u] for u in ln.tiles]
            for pos, tid in enumerate(ids_in_line):
                membership.setdefault(tid, []).append({"line": j, "position": pos})
            lines.append({"line": j, "kind": ln.kind, "owner": ln.owner, "tiles": ids_in_line})
    corners_of: dict[int, np.ndarray] = {}
    for tid, st in enumerate(scene.tiles):
        corners = cam.project(tile_of_box[tid].face_corners())
        corners_of[tid] = corners
        area = 0.5 * abs(
            float(
                np.dot(corners[:, 0], np.roll(corners[:, 1], 1))
                - np.dot(corners[:, 1], np.roll(corners[:, 0], 1))
            )
        )
        visible = min(1.0, float(counts[tid + 1]) / max(area, 1e-6))
        cut = bool(
            (corners[:, 0] < -0.5).any()
            or (corners[:, 1] < -0.5).any()
            or (corners[:, 0] > w - 0.5).any()
            or (corners[:, 1] > h - 0.5).any()
        )
        up = st.face == "up"
        tiles.append(
            {
                "id": tid,
                "face": st.face,
                "halves": list(st.halves) if up else None,
                "pips": st.tile.as_list() if up else None,
                "corners": np.round(corners, 2).tolist(),
                "visible_fraction": round(visible, 3),
                "cut_by_border": cut,
                "role": st.role,
                "lines": membership.get(tid, []),
            }
        )
    open_ends = []
    if scene.layout is not None:
        for j, ln in enumerate(scene.layout.lines):
            if ln.open_value is None:
                lines[j]["open_end"] = None
                continue
            last = ln.tiles[-1]
            tid = uid_to_id[last]
            c = corners_of[tid]
            pt = scene.layout.tiles[last]
            centre = c.mean(axis=0)
            if pt.tile.is_double:
                point = centre
            elif last == 0 and scene.layout.variant == "line" and j == 0:
                point = (centre + (c[0] + c[1]) / 2) / 2  # the root's half a
            else:
                point = (centre + (c[2] + c[3]) / 2) / 2  # half b, the free (outer) half
            lines[j]["open_end"] = {
                "tile": tid,
                "value": ln.open_value,
                "point": np.round(point, 2).tolist(),
            }
            open_ends.append(ln.open_value)
    return {
        "image": {"width": w, "height": h, "file": f"{image_name(job.index)}.jpg"},
        "set": job.max_pip,
        "kind": kind,
        "variant": scene.variant,
        "generator": {
            "version": __version__,
            "seed": job.seed,
            "index": job.index,
            "config": job.config.name,
        },
        "camera": {
            "tilt_deg": round(float(scene.extras["tilt"]), 2),
            "tile_px": round(float(scene.extras["tile_px"]), 1),
        },
        "empty": bool(scene.extras.get("empty", False)),
        "tiles": tiles,
        "lines": lines,
        "open_ends": open_ends,
        "distractors": distractor_truth(scene, w, h),
        "printed": printed_truth(scene, w, h),
    }


def distractor_truth(scene, width: int, height: int) -> list[dict]:
    """The objects that are not tiles and lie at least partly in the picture: their kind and
    the image corners of their top face (unlabelled for the detector; the verifier's
    negatives are cut around them)."""
    out = []
    for box in scene.boxes:
        if box.kind is None:
            continue
        corners = scene.camera.project(box.face_corners())
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        if hi[0] < 0 or hi[1] < 0 or lo[0] > width - 1 or lo[1] > height - 1:
            continue
        out.append({"kind": str(box.kind), "corners": np.round(corners, 2).tolist()})
    return out


def printed_truth(scene, width: int, height: int) -> list[dict]:
    """The printed dominoes of a print board or box lid (`dominosynth.printed`) that lie at
    least partly in the picture: the image corners of each (tile order), its values, the
    sheet it is printed on, and whether the border cuts it. Never boxed for the detector."""
    out = []
    for box in scene.boxes:
        for domino in box.printed:
            pts = sheet_points(box.face_corners(), box.sprite.shape, domino.corners)
            corners = scene.camera.project(pts)
            lo, hi = corners.min(axis=0), corners.max(axis=0)
            if hi[0] < 0 or hi[1] < 0 or lo[0] > width - 1 or lo[1] > height - 1:
                continue
            cut = bool((lo < -0.5).any() or hi[0] > width - 0.5 or hi[1] > height - 0.5)
            out.append(
                {
                    "on": str(box.kind),
                    "halves": list(domino.halves) if domino.halves is not None else None,
                    "corners": np.round(corners, 2).tolist(),
                    "cut_by_border": cut,
                }
            )
    return out


def yolo_lines(truth: dict, cfg: SynthConfig) -> list[str]:
    """YOLO-OBB rows `class x1 y1 ... x4 y4` (normalised) for tiles visible enough.

    A tile cut by the border is boxed by the smallest rotated rectangle around its part
    inside the image; tiles less visible than `cfg.min_visible_fraction` get no box.
    """
    w, h = truth["image"]["width"], truth["image"]["height"]
    rows = []
    for t in truth["tiles"]:
        if t["visible_fraction"] < cfg.min_visible_fraction:
            continue
        c = np.asarray(t["corners"], np.float64)
        if t["cut_by_border"]:
            clip = _clip_polygon(c, w, h)
            if len(clip) < 3:
                continue
            c = cv2.boxPoints(cv2.minAreaRect(clip.astype(np.float32))).astype(np.float64)
        c = np.clip(c / [w, h], 0.0, 1.0)
        cls = 0 if t["face"] == "up" else 1
        rows.append(f"{cls} " + " ".join(f"{v:.6f}" for v in c.ravel()))
    return rows


def _clip_polygon(poly: np.ndarray, w: int, h: int) -> np.ndarray:
    """Sutherland-Hodgman clip of a polygon to the image rectangle."""
    pts = [tuple(p) for p in poly]
    for axis, limit, keep_less in (
        (0, 0.0, False),
        (0, w - 1.0, True),
        (1, 0.0, False),
        (1, h - 1.0, True),
    ):
        out = []
        for k in range(len(pts)):
            a, b = pts[k - 1], pts[k]
            ina = (a[axis] <= limit) if keep_less else (a[axis] >= limit)
            inb = (b[axis] <= limit) if keep_less else (b[axis] >= limit)
            if inb:
                if not ina:
                    out.append(_cross(a, b, axis, limit))
                out.append(b)
            elif ina:
                out.append(_cross(a, b, axis, limit))
        pts = out
        if not pts:
            break
    return np.array(pts, np.float64).reshape(-1, 2)


def _cross(a, b, axis: int, limit: float):
    t = (limit - a[axis]) / (b[axis] - a[axis])
    return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))


def reader_crops(image: np.ndarray, truth: dict, cfg: SynthConfig, rng: np.random.Generator):
    """Half crops `(k, label, crop)` cut with vision.geometry from the final image, with
    rectification jitter, of fully visible tiles (k = 2 * tile id + half): face-up tiles
    labelled with their pips, then (`cfg.reader_back_crops`) face-down tiles labelled
    `BACK_CLASS`. The face-up crops come first so that they draw the same jitter as before
    back crops existed."""
    out = []
    for face in ("up", "down") if cfg.reader_back_crops else ("up",):
        for t in truth["tiles"]:
            if (
                t["face"] != face
                or t["cut_by_border"]
                or t["visible_fraction"] < cfg.reader_min_visible
            ):
                continue
            halves = _jittered_halves(image, np.asarray(t["corners"], np.float64), cfg, rng)
            for half, crop in enumerate(halves):
                label = t["halves"][half] if face == "up" else BACK_CLASS
                out.append((2 * t["id"] + half, label, crop))
    return out


def _jittered_halves(
    image: np.ndarray, corners: np.ndarray, cfg: SynthConfig, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The two half crops of one tile, its corners scaled, shifted and jittered at random."""
    centre = corners.mean(axis=0)
    width = np.linalg.norm(corners[1] - corners[0])
    c = centre + (corners - centre) * rng.uniform(*cfg.reader_scale)
    c = c + rng.normal(0, cfg.reader_shift * width, 2) + rng.normal(0, cfg.reader_jitter_px, (4, 2))
    return split_halves(rectify_tile(image, c, cfg.reader_crop_px))


def run_job(job: Job) -> dict:
    """Render and write one image with its labels; returns counts for the data card."""
    jpg, decoded, truth, _ids, _scene, rng = make_sample(job)
    out = Path(job.out)
    name = image_name(job.index)
    (out / "detector" / "images" / job.split / f"{name}.jpg").write_bytes(jpg)
    rows = yolo_lines(truth, job.config)
    (out / "detector" / "labels" / job.split / f"{name}.txt").write_text(
        "".join(r + "\n" for r in rows)
    )
    (out / "truth" / f"{name}.json").write_text(json.dumps(truth, indent=1) + "\n")
    reader: dict[int | str, int] = {}
    for k, value, crop in reader_crops(decoded, truth, job.config, rng):
        folder = out / "reader" / job.split / str(value)
        folder.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / f"{name}_{k}.png"), crop)
        reader[value] = reader.get(value, 0) + 1
    boxes = {0: 0, 1: 0}
    for r in rows:
        boxes[int(r.split()[0])] += 1
    return {
        "split": job.split,
        "kind": truth["kind"],
        "variant": truth["variant"],
        "boxes": boxes,
        "reader": reader,
    }


def generate(
    out: Path,
    count: int,
    seed: int,
    width: int,
    height: int,
    kind: str,
    max_pip: int | tuple[int, ...],
    config: SynthConfig,
    workers: int = 1,
    val_fraction: float = 0.1,
    backgrounds_dir: str | None = None,
    command: str | None = None,
    progress: bool = True,
) -> dict:
    """Write a whole data set under `out` and return its data card (also card.json).

    `max_pip` is the double-n set of every picture, or several sets shared out evenly
    among the pictures (`picture_sets`)."""
    out = Path(out).resolve()
    sets = (max_pip,) if isinstance(max_pip, int) else tuple(max_pip)
    set_of_picture = picture_sets(count, seed, sets)
    val = val_indices(count, seed, val_fraction)

    labels = [str(v) for v in range(max(sets) + 1)]
    labels += [BACK_CLASS] if config.reader_back_crops else []
    for split in ("train", "val"):
        (out / "detector" / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "detector" / "labels" / split).mkdir(parents=True, exist_ok=True)
        for label in labels:
            (out / "reader" / split / label).mkdir(parents=True, exist_ok=True)
    (out / "truth").mkdir(parents=True, exist_ok=True)
    photos = tuple(str(p) for p in list_photos(backgrounds_dir))
    jobs = [
        Job(
            str(out),
            i,
            seed,
            width,
            height,
            kind,
            set_of_picture[i],
            "val" if i in val else "train",
            config,
            photos,
        )
        for i in range(count)
    ]
    results: list[dict] = []
    bar = tqdm(total=count, desc="synth", unit="img", disable=not progress)
    if workers <= 1:
        for job in jobs:
            results.append(run_job(job))
            bar.update()
    else:
        ctx = mp.get_context("spawn")  # fork after OpenCV started its threads can deadlock
        with ctx.Pool(workers, initializer=_quiet_worker) as pool:
            for res in pool.imap(run_job, jobs, chunksize=1):
                results.append(res)
                bar.update()
    bar.close()
    (out / "detector" / "data.yaml").write_text(
        "# written by dominocam synth\n"
        f"path: {out / 'detector'}\n"
        "train: images/train\n"
        "val: images/val\n"
        "names:\n  0: tile_up\n  1: tile_down\n"
    )
    card = _card(
        results,
        out,
        count,
        seed,
        width,
        height,
        kind,
        sets[0] if len(sets) == 1 else list(sets),
        config,
        val_fraction,
        backgrounds_dir,
        command,
    )
    (out / "card.json").write_text(json.dumps(card, indent=1) + "\n")
    contact_sheet(
        out,
        [image_name(i) for i in range(min(count, config.contact_sheet_images))],
        out / "contact_sheet.png",
    )
    return card


def _quiet_worker() -> None:
    cv2.setNumThreads(1)


def _card(
    results, out, count, seed, width, height, kind, max_pip, config, val_fraction, bgs, command
) -> dict:
    splits: dict = {}
    for r in results:
        s = splits.setdefault(
            r["split"],
            {
                "images": 0,
                "kinds": {},
                "variants": {},
                "boxes": {n: 0 for n in CLASS_NAMES.values()},
                "reader": {},
            },
        )
        s["images"] += 1
        s["kinds"][r["kind"]] = s["kinds"].get(r["kind"], 0) + 1
        var = str(r["variant"])
        s["variants"][var] = s["variants"].get(var, 0) + 1
        for c, n in r["boxes"].items():
            s["boxes"][CLASS_NAMES[c]] += n
        for v, n in r["reader"].items():
            s["reader"][str(v)] = s["reader"].get(str(v), 0) + n
    for s in splits.values():
        # Pip values in order, then `back`.
        s["reader"] = dict(
            sorted(s["reader"].items(), key=lambda kv: (not kv[0].isdigit(), kv[0].zfill(3)))
        )
    return {
        "generator": "dominosynth",
        "version": __version__,
        "command": command or " ".join(sys.argv),
        "seed": seed,
        "count": count,
        "size": [width, height],
        "kind": kind,
        "set": max_pip,
        "val_fraction": val_fraction,
        "backgrounds": str(bgs) if bgs else None,
        "config": {"name": config.name, "values": config.to_dict()},
        "splits": dict(sorted(splits.items())),
        "classes": CLASS_NAMES,
    }


def contact_sheet(
    out: Path, names: list[str], path: Path, thumb_w: int = 480, cols: int = 4
) -> None:
    """A grid of images with their labels drawn: green = face up (half values at the half
    centres, a dot on corner 0), red = face down, yellow = open ends."""
    thumbs = []
    for name in names:
        img_path = next(
            (
                out / "detector" / "images" / s / f"{name}.jpg"
                for s in ("train", "val")
                if (out / "detector" / "images" / s / f"{name}.jpg").exists()
            ),
            None,
        )
        if img_path is None:
            continue
        img = cv2.imread(str(img_path))
        truth = json.loads((out / "truth" / f"{name}.json").read_text())
        thumbs.append(draw_truth(img, truth, thumb_w))
    if not thumbs:
        return
    th = max(t.shape[0] for t in thumbs)
    thumbs = [np.pad(t, ((0, th - t.shape[0]), (0, 0), (0, 0))) for t in thumbs]
    while len(thumbs) % cols:
        thumbs.append(np.zeros_like(thumbs[0]))
    rows = [np.hstack(thumbs[i : i + cols]) for i in range(0, len(thumbs), cols)]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.vstack(rows), [cv2.IMWRITE_PNG_COMPRESSION, 9])


def draw_truth(img: np.ndarray, truth: dict, thumb_w: int) -> np.ndarray:
    s = thumb_w / img.shape[1]
    out = cv2.resize(img, (thumb_w, round(img.shape[0] * s)), interpolation=cv2.INTER_AREA)
    for t in truth["tiles"]:
        c = np.asarray(t["corners"]) * s
        colour = (0, 220, 0) if t["face"] == "up" else (0, 0, 230)
        if t["visible_fraction"] < MIN_VISIBLE_FRACTION:  # no box: grey
            colour = (150, 150, 150)
        cv2.polylines(out, [np.round(c * 16).astype(np.int32)], True, colour, 1, cv2.LINE_AA, 4)
        cv2.circle(out, tuple(np.round(c[0]).astype(int)), 2, (255, 0, 255), -1)
        if t["face"] == "up":
            centre = c.mean(axis=0)
            for half, value in enumerate(t["halves"]):
                end = (c[0] + c[1]) / 2 if half == 0 else (c[2] + c[3]) / 2
                p = (centre + end) / 2
                cv2.putText(
                    out,
                    str(value),
                    (int(p[0]) - 4, int(p[1]) + 4),
                    cv2.FONT_HERSHEY_PLAIN,
                    0.8,
                    (0, 255, 255),
                    1,
                    cv2.LINE_AA,
                )
    for p in truth.get("printed", []):  # printed dominoes: cyan, never a tile
        c = np.asarray(p["corners"]) * s
        cv2.polylines(
            out, [np.round(c * 16).astype(np.int32)], True, (255, 255, 0), 1, cv2.LINE_AA, 4
        )
    for ln in truth["lines"]:
        if ln.get("open_end"):
            p = np.asarray(ln["open_end"]["point"]) * s
            cv2.circle(out, tuple(np.round(p).astype(int)), 5, (0, 200, 255), 1, cv2.LINE_AA)
    label = f"{truth['kind']} {truth['variant'] or ''} tilt {truth['camera']['tilt_deg']:.0f}"
    cv2.putText(out, label, (4, 14), cv2.FONT_HERSHEY_PLAIN, 1, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def parse_size(text: str) -> tuple[int, int]:
    """'1280x720' -> (1280, 720); raises UserInputError on anything else."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserInputError(f"--size must look like 1280x720, got {text!r}") from None
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise UserInputError(f"--size {text} is outside 64..8192 pixels per side")
    return w, h


_ = math  # keep import for subclasses of the format
