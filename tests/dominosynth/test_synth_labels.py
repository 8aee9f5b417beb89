"""Labels are exact: corners lie on the drawn tile, lines match, open ends are free halves."""

from __future__ import annotations

import dataclasses

import numpy as np

from dominosynth.config import CONFIGS
from dominosynth.generate import reader_crops, yolo_lines
from dominosynth.render import ID_SIDE


def _fully_visible(truth: dict) -> list[dict]:
    return [t for t in truth["tiles"] if t["visible_fraction"] >= 0.99 and not t["cut_by_border"]]


def test_corners_and_edges_lie_on_the_rendered_tile(table_samples, mask_has) -> None:
    checked = 0
    for _jpg, _img, truth, ids, scene, _rng in table_samples:
        for t in _fully_visible(truth):
            c = np.asarray(t["corners"])
            centre = c.mean(axis=0)
            value = t["id"] + 1
            box = next(b for b in scene.boxes if b.tile == t["id"])
            width_px = np.linalg.norm(c[1] - c[0])
            # a rounded corner sits inside its labelled corner by ~0.3 radius along the diagonal
            inset = 1.5 + 0.45 * box.chamfer / box.hw / 2 * width_px
            for k in range(4):
                mid = (c[k] + c[(k + 1) % 4]) / 2
                towards = (centre - mid) / np.linalg.norm(centre - mid)
                assert mask_has(ids, mid + towards * 1.0, value), (t["id"], k, "edge")
                diag = (centre - c[k]) / np.linalg.norm(centre - c[k])
                assert mask_has(ids, c[k] + diag * inset, value, radius=1), (t["id"], k, "corner")
                # and just outside the corner is not this tile's face
                assert not mask_has(ids, c[k] - diag * 2.5, value, radius=0), (t["id"], k, "out")
            e1, e2 = c[1] - c[0], c[3] - c[0]
            area = abs(e1[0] * e2[1] - e1[1] * e2[0])
            drawn = int((ids == value).sum())
            # the id mask may hold the pixels the outline crosses: half a pixel all round
            half_pixel_rim = 0.5 * 2 * (np.linalg.norm(e1) + np.linalg.norm(e2))
            assert 0.9 * area <= drawn <= 1.02 * area + half_pixel_rim
            checked += 1
    assert checked > 30


def test_each_tile_at_most_once_per_scene(table_samples) -> None:
    for _jpg, _img, truth, *_ in table_samples:
        up = [tuple(t["pips"]) for t in truth["tiles"] if t["face"] == "up"]
        assert len(up) == len(set(up))


def test_touching_halves_match_and_touch(table_samples) -> None:
    lines_checked = 0
    variants = set()
    for _jpg, _img, truth, _ids, _scene, _rng in table_samples:
        tiles = {t["id"]: t for t in truth["tiles"]}
        variants.add(truth["variant"])
        for ln in truth["lines"]:
            root = tiles[ln["tiles"][0]]
            if truth["variant"] == "line" and ln["tiles"][0] == truth["lines"][0]["tiles"][0]:
                value = root["halves"][0] if ln["line"] == 0 else root["halves"][1]
            else:
                value = root["halves"][1]
            prev = root
            for tid in ln["tiles"][1:]:
                t = tiles[tid]
                assert t["halves"][0] == value, (truth["variant"], ln, t)
                # the matching half lies next to the previous tile (a gap of a few mm at most)
                c, pc = np.asarray(t["corners"]), np.asarray(prev["corners"])
                inner = (c.mean(axis=0) + (c[0] + c[1]) / 2) / 2
                length = np.linalg.norm(pc[3] - pc[0])
                assert np.min(np.linalg.norm(pc - inner, axis=1)) < 1.0 * length
                value, prev = t["halves"][1], t
            if ln["open_end"] is not None:
                assert ln["open_end"]["value"] == value
                assert ln["open_end"]["tile"] == ln["tiles"][-1]
                lines_checked += 1
        assert sorted(truth["open_ends"]) == sorted(
            ln["open_end"]["value"] for ln in truth["lines"] if ln["open_end"] is not None
        )
    assert lines_checked > 5
    assert len(variants - {None}) >= 3


def test_halves_are_in_corner_order(render_sample) -> None:
    """Counting dark blobs in each exact half crop of a clean picture gives its label."""
    import cv2

    from dominosynth.config import CONFIGS

    cfg = CONFIGS["clean"]
    checked = 0
    for index in range(4):
        _jpg, img, truth, _ids, _scene, rng = render_sample(
            index, seed=3, config="clean", max_pip=9
        )
        exact = type(cfg)(
            **{
                **cfg.__dict__,
                "reader_jitter_px": 0.0,
                "reader_shift": 0.0,
                "reader_scale": (1.0, 1.0),
                "reader_crop_px": 96,
                "reader_back_crops": False,
            }
        )
        for _k, value, crop in reader_crops(img, truth, exact, rng):
            gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
            inner = gray[5:-10, 5:-5]
            dark = (inner < 0.55 * np.median(inner)).astype(np.uint8)
            _n, _lab, stats, _ = cv2.connectedComponentsWithStats(dark)
            blobs = sum(1 for s in stats[1:] if s[cv2.CC_STAT_AREA] >= 6)
            assert blobs == value, (index, _k, value, blobs)
            checked += 1
    assert checked >= 10


def test_visibility_and_sides_are_separate(table_samples) -> None:
    _jpg, _img, truth, ids, *_ = table_samples[0]
    assert ids.max() < 2 * ID_SIDE
    for t in truth["tiles"]:
        assert 0.0 <= t["visible_fraction"] <= 1.0


def test_a_closeup_is_one_tile_filling_the_frame(render_sample) -> None:
    cfg = dataclasses.replace(CONFIGS["closeup"], closeup_p=1.0, empty_p=0.0)
    width, height = 640, 352
    for index in range(8):
        _jpg, _img, truth, _ids, _scene, _rng = render_sample(
            index, seed=3, config=cfg, kind="hand", size=(width, height)
        )
        assert len(truth["tiles"]) == 1
        c = np.asarray(truth["tiles"][0]["corners"])
        edges = [c[(k + 1) % 4] - c[k] for k in range(4)]
        long_edge = max(edges, key=np.linalg.norm)
        side = width if abs(long_edge[0]) > abs(long_edge[1]) else height
        # closeup_fill (0.7, 1.0) of the side it lies along; perspective adds a little
        assert 0.6 * side <= np.linalg.norm(long_edge) <= 1.15 * side, index
        assert len(yolo_lines(truth, cfg)) == 1


def test_grayscale_pictures_have_equal_channels(render_sample) -> None:
    cfg = dataclasses.replace(CONFIGS["default"], grayscale_p=1.0)
    _jpg, img, *_ = render_sample(0, config=cfg, size=(320, 240))
    spread = img.astype(int).max(axis=2) - img.astype(int).min(axis=2)
    assert spread.max() <= 2  # JPEG rounding only
    _jpg, colour, *_ = render_sample(0, size=(320, 240))
    assert (colour.astype(int).max(axis=2) - colour.astype(int).min(axis=2)).max() > 20


def test_back_crops_are_the_face_down_tiles_and_leave_face_crops_as_they_were(
    render_sample,
) -> None:
    """Back crops come after the face crops: the face crops (and their jitter) are the same
    with and without them, and every back crop is a half of a fully visible face-down tile."""
    from dominocam.vision.reader import BACK_CLASS

    cfg = CONFIGS["default"]
    without = dataclasses.replace(cfg, reader_back_crops=False)
    backs_seen = 0
    for index in range(6):
        _jpg, img, truth, _ids, _scene, _rng = render_sample(index, seed=5, config="default")
        faces = reader_crops(img, truth, without, np.random.default_rng(index))
        both = reader_crops(img, truth, cfg, np.random.default_rng(index))
        assert [(k, v) for k, v, _ in both[: len(faces)]] == [(k, v) for k, v, _ in faces]
        assert all(
            np.array_equal(a[2], b[2]) for a, b in zip(faces, both[: len(faces)], strict=True)
        )
        face_of = {t["id"]: t for t in truth["tiles"]}
        for k, label, crop in both[len(faces) :]:
            tile = face_of[k // 2]
            assert label == BACK_CLASS and tile["face"] == "down"
            assert tile["visible_fraction"] >= cfg.reader_min_visible
            assert crop.shape == (cfg.reader_crop_px, cfg.reader_crop_px, 3)
            backs_seen += 1
        down = [
            t
            for t in truth["tiles"]
            if t["face"] == "down"
            and not t["cut_by_border"]
            and t["visible_fraction"] >= cfg.reader_min_visible
        ]
        assert len(both) - len(faces) == 2 * len(down)
    assert backs_seen >= 4
