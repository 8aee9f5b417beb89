"""`dominocam import-labels` on tiny hand-made CVAT / Label Studio YOLO-OBB exports."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from train_factories import make_scene

from dominocam.errors import UserInputError
from dominotrain.import_labels import (
    import_labels,
    order_tile_corners,
    parse_class_name,
)


def write_export(root, style="cvat", scenes=3, seed=0, rotate_points=0, bad_name=False):
    """A labelled export: images/ + labels/ (+ data.yaml or classes.txt)."""
    rng = np.random.default_rng(seed)
    names = ["down"]  # class 0
    truth = {}
    sub = "train" if style == "cvat" else ""
    (root / "images" / sub).mkdir(parents=True, exist_ok=True)
    (root / "labels" / sub).mkdir(parents=True, exist_ok=True)
    for n in range(scenes):
        image, tiles = make_scene(rng, count=3)
        h, w = image.shape[:2]
        cv2.imwrite(str(root / "images" / sub / f"photo{n}.jpg"), image)
        lines = []
        for tile in tiles:
            if tile["face"] == "up":
                name = "{}-{}".format(*tile["halves"])  # first value: the end at points 1-2
                if name not in names:
                    names.append(name)
                cls = names.index(name)
            else:
                cls = 0
            pts = np.roll(tile["corners"], -rotate_points, axis=0) / [w, h]
            lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in pts.reshape(-1)))
        (root / "labels" / sub / f"photo{n}.txt").write_text("\n".join(lines) + "\n")
        truth[f"photo{n}"] = tiles
    if bad_name:
        names.append("six and five")
    if style == "cvat":
        (root / "data.yaml").write_text(
            "path: .\ntrain: images/train\nnames:\n"
            + "".join(f"  {i}: '{name}'\n" for i, name in enumerate(names))
        )
    else:
        (root / "classes.txt").write_text("\n".join(names) + "\n")
    return truth


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("5-10", ("up", (5, 10))),
        ("12_0", ("up", (12, 0))),
        (" 3 : 4 ", ("up", (3, 4))),
        ("down", ("down", None)),
        ("tile_down", ("down", None)),
    ],
)
def test_parse_class_name(name, expected):
    assert parse_class_name(name) == expected


@pytest.mark.parametrize("name", ["tile_up", "5", "5-10-2", "five-ten", ""])
def test_parse_class_name_rejects(name):
    with pytest.raises(UserInputError):
        parse_class_name(name)


def test_order_tile_corners_keeps_a_short_first_edge_and_makes_it_clockwise():
    corners = np.array([[0, 0], [10, 0], [10, 20], [0, 20]], float)  # clockwise on screen
    out, trusted = order_tile_corners(corners)
    assert trusted and np.allclose(out, corners)
    out, trusted = order_tile_corners(corners[[1, 0, 3, 2]])  # counter-clockwise, same end
    assert trusted and np.allclose(out, corners)
    out, trusted = order_tile_corners(np.roll(corners, -1, axis=0))  # starts on a long edge
    assert not trusted
    assert np.linalg.norm(out[1] - out[0]) < np.linalg.norm(out[2] - out[1])


@pytest.mark.parametrize("style", ["cvat", "label-studio"])
def test_import_writes_detector_reader_and_truth(tmp_path, style):
    truth = write_export(tmp_path / "export", style)
    out = tmp_path / "out"
    card = import_labels(
        tmp_path / "export",
        out,
        fmt="yolo-obb" if style == "cvat" else "label-studio",
        val_fraction=0.0,
    )
    n_tiles = sum(len(t) for t in truth.values())
    n_up = sum(t["face"] == "up" for tiles in truth.values() for t in tiles)
    assert card["counts"]["tiles_up"] + card["counts"].get("tiles_down", 0) == n_tiles
    assert card["counts"]["halves_train"] == 2 * n_up
    data = (out / "detector" / "data.yaml").read_text()
    assert "tile_up" in data and "tile_down" in data
    labels = sorted((out / "detector" / "labels" / "train").glob("*.txt"))
    assert len(labels) == 3
    lines = [ln.split() for f in labels for ln in f.read_text().splitlines()]
    assert len(lines) == n_tiles and all(len(ln) == 9 for ln in lines)
    # every half crop sits in the folder of its value
    expected: dict[int, int] = {}
    for tiles in truth.values():
        for t in tiles:
            for v in t["halves"] or []:
                expected[v] = expected.get(v, 0) + 1
    for value, count in expected.items():
        assert len(list((out / "reader" / "train" / str(value)).glob("*.png"))) == count
    assert (out / "reader" / "val" / "12").is_dir()
    assert (out / "reader" / "val" / "back").is_dir()
    record = json.loads(next((out / "truth").glob("*.json")).read_text())
    assert {"face", "halves", "pips", "corners"} <= set(record["tiles"][0])
    assert json.loads((out / "card.json").read_text())["format"] in ("yolo-obb", "label-studio")


def test_import_cuts_both_halves_of_face_down_tiles_as_backs(tmp_path):
    truth = write_export(tmp_path / "export", scenes=8, seed=1)
    out = tmp_path / "out"
    card = import_labels(tmp_path / "export", out, val_fraction=0.0)
    n_down = sum(t["face"] == "down" for tiles in truth.values() for t in tiles)
    backs = sorted((out / "reader" / "train" / "back").glob("*.png"))
    assert n_down > 0 and len(backs) == card["counts"]["backs_train"] == 2 * n_down
    # the factory paints a back (120, 90, 60) BGR and a face white: these crops are backs
    assert all(cv2.imread(str(c))[..., 0].mean() < 160 for c in backs)


def test_import_half_crops_match_the_drawn_values(tmp_path):
    write_export(tmp_path / "export", scenes=4, seed=3)
    out = tmp_path / "out"
    import_labels(tmp_path / "export", out, val_fraction=0.0)
    # dark pixels in a crop grow with the number of pips drawn on it
    means = {}
    for value in range(7):
        crops = list((out / "reader" / "train" / str(value)).glob("*.png"))
        if crops:
            dark = [float((cv2.imread(str(c), 0) < 80).mean()) for c in crops]
            means[value] = float(np.mean(dark))
    values = sorted(means)
    assert len(values) >= 3
    assert means[values[0]] < means[values[-1]]


def test_import_skips_halves_whose_end_is_unknown(tmp_path):
    truth = write_export(tmp_path / "export", rotate_points=1)
    card = import_labels(tmp_path / "export", tmp_path / "out", val_fraction=0.0)
    not_double = sum(
        t["face"] == "up" and t["halves"][0] != t["halves"][1]
        for tiles in truth.values()
        for t in tiles
    )
    assert card["counts"].get("halves_unoriented_skipped", 0) == 2 * not_double


def test_import_rejects_bad_input(tmp_path):
    write_export(tmp_path / "export", bad_name=True)
    with pytest.raises(UserInputError, match="six and five"):
        import_labels(tmp_path / "export", tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing written before the check
    with pytest.raises(UserInputError, match="not a folder"):
        import_labels(tmp_path / "missing", tmp_path / "out2")
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "labels").mkdir()
    (tmp_path / "ab" / "classes.txt").write_text("5-5\n")
    (tmp_path / "ab" / "labels" / "x.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    (tmp_path / "ab" / "images").mkdir()
    cv2.imwrite(str(tmp_path / "ab" / "images" / "x.jpg"), np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(UserInputError, match="oriented boxes"):
        import_labels(tmp_path / "ab", tmp_path / "out3", fmt="label-studio")
