"""Detector training crops of one tile: cut as `synthetic_tiles` cuts them, shown as the
runtime shows them, labelled where the tile lies, and each split kept to its own split."""

from __future__ import annotations

import json

import cv2
import numpy as np

from dominocam.vision import geometry
from dominocam.vision.detector import MAX_UPSCALE
from dominosynth.tile_crops import TILE_CROP_PX
from dominotrain.crop_data import (
    INPUT_PX,
    build,
    cut_tile_crop,
    main,
    obb_label_line,
    picture_crops,
)
from dominotrain.verifier_data import tile_box

WHITE = (235, 235, 235)


def _picture_with_tiles(centres: list[tuple[float, float]], length: float = 60.0):
    """A dark 480x360 picture with white tile-shaped boxes, and its truth."""
    image = np.full((360, 480, 3), 40, np.uint8)
    tiles = []
    for number, centre in enumerate(centres):
        corners = tile_box(np.array(centre), length, 0.4)
        cv2.fillConvexPoly(image, corners.astype(np.int32), WHITE)
        tiles.append(
            {
                "id": number,
                "corners": corners.tolist(),
                "face": "up",
                "pips": [1, 2],
                "visible_fraction": 1.0,
            }
        )
    return image, {"tiles": tiles, "generator": {"index": 0}}


def test_the_label_lies_on_the_tile_in_the_letterboxed_crop():
    image, truth = _picture_with_tiles([(240.0, 180.0)])
    corners = np.asarray(truth["tiles"][0]["corners"])
    crop = cut_tile_crop(image, corners, (140, 80, 200), quality=95)

    assert crop.picture.shape == (INPUT_PX, INPUT_PX, 3)
    # The 200 px window is shrunk to a 100 px crop, then enlarged as the runtime enlarges it.
    expected_side = TILE_CROP_PX * min(MAX_UPSCALE, INPUT_PX / TILE_CROP_PX)
    assert np.isclose(
        geometry.box_length(crop.corners), geometry.box_length(corners) * expected_side / 200
    )
    inside = np.zeros(crop.picture.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, crop.corners.astype(np.int32), 1)
    shrunk = cv2.erode(inside, np.ones((5, 5), np.uint8))
    assert crop.picture[shrunk == 1].mean() > 200  # the white tile under its label
    outside = cv2.dilate(inside, np.ones((9, 9), np.uint8)) == 0
    assert crop.picture[outside].mean() < 120  # the dark table and the grey letterbox


def test_a_tile_with_a_neighbour_in_reach_gives_no_crop_and_a_lone_one_does():
    image, truth = _picture_with_tiles([(120.0, 180.0), (170.0, 180.0), (380.0, 180.0)])
    rng = np.random.default_rng(0)
    crops = picture_crops(image, truth, rng, most=5)
    assert len(crops) == 1  # only the tile at x=380 has no tile within its square


def test_face_down_and_partly_hidden_tiles_are_not_cut():
    image, truth = _picture_with_tiles([(120.0, 180.0), (380.0, 180.0)])
    truth["tiles"][0]["face"] = "down"
    truth["tiles"][1]["visible_fraction"] = 0.8
    assert picture_crops(image, truth, np.random.default_rng(0)) == []


def test_label_line_is_the_class_and_corners_as_fractions():
    corners = np.array([[64.0, 32.0], [128.0, 32.0], [128.0, 160.0], [64.0, 160.0]])
    line = obb_label_line(corners, 0, 640)
    assert line == "0 0.100000 0.050000 0.200000 0.050000 0.200000 0.250000 0.100000 0.250000"


def test_build_keeps_each_split_to_its_own_and_writes_a_card(tmp_path):
    source = tmp_path / "synth"
    for split, centre in (("train", (240.0, 180.0)), ("val", (300.0, 200.0))):
        (source / "detector" / "images" / split).mkdir(parents=True)
        image, truth = _picture_with_tiles([centre])
        stem = f"0000{1 if split == 'train' else 2}"
        cv2.imwrite(str(source / "detector" / "images" / split / f"{stem}.jpg"), image)
        (source / "truth").mkdir(exist_ok=True)
        (source / "truth" / f"{stem}.json").write_text(json.dumps(truth))
    (source / "detector" / "data.yaml").write_text(
        "path: .\ntrain: images/train\nval: images/val\nnames:\n  0: tile_up\n  1: tile_down\n"
    )
    (source / "card.json").write_text(json.dumps({"generator": "dominosynth", "version": "x"}))

    out = tmp_path / "crops"
    card = build(source, out, seed=3)

    assert card["pictures"] == {"train": 1, "val": 1}
    assert sorted(p.name for p in (out / "detector" / "images" / "train").iterdir()) == [
        "00001_crop0.jpg"
    ]
    assert sorted(p.name for p in (out / "detector" / "labels" / "val").iterdir()) == [
        "00002_crop0.txt"
    ]
    data_yaml = (out / "detector" / "data.yaml").read_text()
    assert "0: tile_up" in data_yaml and "1: tile_down" in data_yaml
    assert json.loads((out / "card.json").read_text())["source"] == str(source)


def test_a_folder_that_is_no_synth_set_is_refused_with_a_message(tmp_path, capsys):
    assert main(["--synth", str(tmp_path), "--out", str(tmp_path / "crops")]) == 2
    assert "not a `dominocam synth` folder" in capsys.readouterr().err
    assert not (tmp_path / "crops").exists()
