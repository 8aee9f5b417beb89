"""`studies.misread_doubts`: read tiles paired with their labels, and the misreads and doubts
counted (issue 32)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dominocam.vision.scene import Scene, SceneTile
from studies.misread_doubts import (
    ReadTile,
    Tally,
    figures,
    format_report,
    main,
    measure,
    real_crop_tiles,
    real_scene_tiles,
)


def box(x: float) -> np.ndarray:
    return np.array([[x, 10], [x + 20, 10], [x + 20, 50], [x, 50]], float)


def up(i: int, pips: tuple[int, int], doubtful: bool = False, confidence: float = 0.9):
    return SceneTile(i, "up", box(30 * i), confidence, pips=pips, doubtful=doubtful)


class SceneOf:
    """Reads every picture as the Scene given for its size (a stand-in for the models)."""

    def __init__(self, scenes: list[Scene]) -> None:
        self.scenes = list(scenes)
        self.kinds: list[str] = []

    def read(self, image, kind: str, set_max: int) -> Scene:
        self.kinds.append(kind)
        return self.scenes.pop(0)


def picture(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.full((60, 200, 3), 128, np.uint8))


def test_a_misread_counts_with_its_doubts_and_a_read_right_with_its_own() -> None:
    t = Tally()
    t.add_photo(
        [
            ReadTile("a.jpg", (2, 3), (2, 3), False, True),
            ReadTile("a.jpg", (2, 3), (3, 3), True, True),
            ReadTile("a.jpg", (1, 1), (1, 1), True, True),
            ReadTile("a.jpg", None, (4, 4), False, True),
        ],
        True,
    )
    t.add_photo([ReadTile("b.jpg", (5, 6), (5, 5), False, False)], False)
    row = figures(t)
    assert (row["misread_asks"]["k"], row["misread_asks"]["n"]) == (1, 2)
    assert (row["misread_doubtful"]["k"], row["misread_doubtful"]["n"]) == (1, 2)
    assert (row["right_doubtful"]["k"], row["right_doubtful"]["n"]) == (1, 2)
    assert (row["misread_rate"]["k"], row["misread_rate"]["n"]) == (2, 4)
    assert (row["unlabelled_asks"]["k"], row["unlabelled_asks"]["n"]) == (1, 1)
    assert row["silent_misreads"] == ["b.jpg: 5-6 read as 5-5"]
    assert 0.0 < row["misread_asks"]["low"] < 0.5 < row["misread_asks"]["high"] < 1.0
    text = format_report({"real scenes": row, "all real": figures(t.merged(Tally()))})
    assert "1/2 50.0%" in text and "b.jpg: 5-6 read as 5-5" in text
    assert text.count("b.jpg") == 1  # the pooled row does not list them again


def test_real_scenes_are_paired_by_identity_and_read_as_hands_where_labelled(
    tmp_path: Path,
) -> None:
    labels = [
        {"image": "t.png", "set": "double-6", "face_up": [[2, 3], [4, 6]], "face_down": 0},
        {"image": "h.png", "set": "double-6", "face_up": [[0, 1]], "hand": True},
    ]
    for label in labels:
        picture(tmp_path / "scenes" / label["image"])
    (tmp_path / "scenes" / "labels.json").write_text(json.dumps(labels))
    table = Scene(200, 60, [up(0, (2, 3)), up(1, (4, 5), doubtful=True), up(2, (0, 0))])
    hand = Scene(200, 60, [up(0, (0, 1))], needs_review=True)
    reader = SceneOf([table, hand])
    photos = list(real_scene_tiles(tmp_path, reader))
    assert reader.kinds == ["table", "hand"]
    (tiles, asks), (hand_tiles, hand_asks) = photos
    assert asks and hand_asks  # a doubtful tile; needs_review
    assert [(t.truth, t.read, t.doubtful) for t in tiles] == [
        ((2, 3), (2, 3), False),
        ((4, 6), (4, 5), True),
        (None, (0, 0), False),
    ]
    assert [(t.truth, t.wrong) for t in hand_tiles] == [((0, 1), False)]


def test_a_crop_is_read_by_its_most_confident_face_up_tile(tmp_path: Path) -> None:
    picture(tmp_path / "tiles" / "c.png")
    (tmp_path / "tiles" / "labels.json").write_text(
        json.dumps([{"image": "c.png", "pips": [5, 3]}])
    )
    scene = Scene(200, 60, [up(0, (3, 4), confidence=0.4), up(1, (3, 5), confidence=0.8)])
    [(tiles, asks)] = list(real_crop_tiles(tmp_path, SceneOf([scene])))
    assert not asks and [(t.truth, t.read) for t in tiles] == [((3, 5), (3, 5))]


def test_measure_pools_the_real_sets(tmp_path: Path) -> None:
    picture(tmp_path / "scenes" / "t.png")
    (tmp_path / "scenes" / "labels.json").write_text(
        json.dumps([{"image": "t.png", "set": "double-6", "face_up": [[2, 3]], "face_down": 0}])
    )
    picture(tmp_path / "tiles" / "c.png")
    (tmp_path / "tiles" / "labels.json").write_text(
        json.dumps([{"image": "c.png", "pips": [1, 2]}])
    )
    reader = SceneOf([Scene(200, 60, [up(0, (2, 4))]), Scene(200, 60, [up(0, (1, 2))])])
    sets = measure([], tmp_path, reader, quiet=True)
    assert list(sets) == ["real scenes", "real tile crops", "all real"]
    assert sets["all real"]["misread_rate"]["k"] == 1 and sets["all real"]["photos"] == 2
    assert sets["all real"]["silent_misreads"] == ["t.png: 2-3 read as 2-4"]


def test_the_command_line(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert "doubt" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main([])
    assert done.value.code == 2
    with pytest.raises(SystemExit) as done:
        main(["--realval", str(tmp_path)])
    assert done.value.code == 2
    assert "no scenes/labels.json" in capsys.readouterr().err
