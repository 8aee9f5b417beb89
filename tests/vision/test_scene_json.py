"""The Scene dataclasses: validation, derived counts and the JSON contract of docs/design.md."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.vision.scene import (
    LayoutLine,
    RejectedBox,
    Scene,
    SceneLayout,
    SceneOpenEnd,
    SceneTile,
)

CORNERS = [[10.0, 10.0], [30.0, 10.0], [30.0, 50.0], [10.0, 50.0]]


def make_scene() -> Scene:
    return Scene(
        width=1280,
        height=720,
        tiles=[
            SceneTile(0, "up", CORNERS, 0.98, (5, 10), (0.99, 0.97), np.ones((2, 13)) / 13),
            SceneTile(1, "down", np.array(CORNERS) + 100, 0.95),
            SceneTile(2, "up", np.array(CORNERS) + 200, 0.9, (12, 12), (0.8, 0.85)),
        ],
        layout=SceneLayout(
            lines=[
                LayoutLine(tiles=[0, 2], open_end=SceneOpenEnd(tile=2, value=12, point=(1.5, 2.5)))
            ],
            open_ends=[12],
        ),
        warnings=["tile 9 is cut by the image border"],
    )


def test_contract_fields_exactly():
    data = make_scene().to_dict()
    assert list(data) == [
        "image",
        "tiles",
        "face_down",
        "pip_total",
        "layout",
        "warnings",
        "notes",
        "needs_review",
        "rejected",
    ]
    assert data["image"] == {"width": 1280, "height": 720}
    assert data["face_down"] == 1
    assert data["pip_total"] == 15 + 24
    up, down = data["tiles"][0], data["tiles"][1]
    assert set(up) == {"id", "face", "pips", "corners", "confidence", "pip_confidence", "doubtful"}
    assert set(down) == {"id", "face", "pips", "corners", "confidence", "doubtful"}
    assert data["needs_review"] is False and data["rejected"] == []
    assert up["pips"] == [5, 10] and down["pips"] is None
    assert up["corners"] == CORNERS and up["pip_confidence"] == [0.99, 0.97]
    assert data["layout"] == {
        "lines": [{"tiles": [0, 2], "open_end": {"tile": 2, "value": 12, "point": [1.5, 2.5]}}],
        "open_ends": [12],
    }
    json.dumps(data)  # plain values only


def test_json_round_trip():
    scene = make_scene()
    text = scene.to_json()
    back = Scene.from_json(text)
    assert back.to_json() == text
    assert back.tiles[0].half_probs is None  # not serialised
    # A `path` key (several images on the command line) is accepted and ignored.
    assert Scene.from_dict({"path": "a.jpg", **json.loads(text)}).to_json() == text


def test_empty_scene_is_valid():
    scene = Scene(width=640, height=480)
    assert scene.to_dict()["tiles"] == [] and scene.pip_total == 0 and scene.face_down == 0
    assert scene.to_dict()["layout"] == {"lines": [], "open_ends": []}
    assert Scene.from_json(scene.to_json()).to_dict() == scene.to_dict()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"face": "sideways"}, "face"),
        ({"corners": [[0, 0], [1, 1]]}, "corners"),
        ({"confidence": 1.5}, "confidence"),
        ({"pips": (7, 3)}, "sorted"),
        ({"pips": (-1, 3)}, "pips"),
        ({"face": "down", "pips": (1, 2)}, "face-down"),
        ({"pip_confidence": (0.5, 0.5)}, "pip_confidence"),
    ],
)
def test_tile_validation(kwargs, match):
    base = {"id": 0, "face": "up", "corners": CORNERS, "confidence": 0.5}
    with pytest.raises(UserInputError, match=match):
        SceneTile(**{**base, **kwargs})


def test_half_probs_shape_is_checked():
    with pytest.raises(ValueError, match="half_probs"):
        SceneTile(0, "up", CORNERS, 0.5, half_probs=np.zeros(13))


def test_scene_validation():
    with pytest.raises(UserInputError, match="ids"):
        Scene(100, 100, tiles=[SceneTile(3, "down", CORNERS, 0.5)])
    with pytest.raises(UserInputError, match="width"):
        Scene(0, 100)
    with pytest.raises(UserInputError, match="image"):
        Scene.from_dict({"tiles": []})
    with pytest.raises(UserInputError, match="pip_total"):
        Scene.from_dict({**make_scene().to_dict(), "pip_total": 3})
    with pytest.raises(UserInputError, match="not valid Scene JSON"):
        Scene.from_json("{nope")


def test_with_tiles_renumbers():
    scene = make_scene()
    smaller = scene.with_tiles([scene.tiles[2], scene.tiles[1]])
    assert [t.id for t in smaller.tiles] == [0, 1] and smaller.pip_total == 24


def assessed_scene() -> Scene:
    scene = make_scene()
    tiles = [
        SceneTile(0, "up", CORNERS, 0.98, (5, 10), (0.99, 0.97), probability=0.97),
        SceneTile(
            1,
            "up",
            np.array(CORNERS) + 100,
            0.7,
            (5, 6),
            (0.6, 0.9),
            probability=0.4,
            doubtful=True,
        ),
    ]
    return Scene(
        width=scene.width,
        height=scene.height,
        tiles=tiles,
        warnings=["Tile 5-6 (#1) may be misread (it could be 5-5): please check it"],
        needs_review=True,
        rejected=[RejectedBox(np.array(CORNERS) + 300, 0.02, "up", (3, 1))],
    )


def test_assessed_scene_round_trips_with_the_new_keys():
    scene = assessed_scene()
    data = scene.to_dict()
    assert data["tiles"][0]["probability"] == 0.97 and data["tiles"][0]["doubtful"] is False
    assert data["tiles"][1]["doubtful"] is True
    assert data["needs_review"] is True
    assert data["rejected"] == [
        {
            "corners": (np.array(CORNERS) + 300).tolist(),
            "probability": 0.02,
            "face": "up",
            "pips": [1, 3],
        }
    ]
    back = Scene.from_json(scene.to_json())
    assert back.to_json() == scene.to_json()
    assert [t.id for t in back.doubtful] == [1]
    assert back.pip_total == 15 + 11  # a doubtful tile still counts; a rejected box never


def test_old_scene_without_the_new_keys_reads_as_unassessed():
    data = make_scene().to_dict()
    for key in ("needs_review", "rejected"):
        del data[key]
    for tile in data["tiles"]:
        del tile["doubtful"]
    scene = Scene.from_dict(data)
    assert scene.needs_review is False and scene.rejected == []
    assert all(t.probability is None and not t.doubtful for t in scene.tiles)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d.update(needs_review="yes"), "needs_review"),
        (lambda d: d.update(rejected={}), "rejected"),
        (lambda d: d.update(rejected=[{"corners": CORNERS}]), "rejected box"),
        (lambda d: d["tiles"][0].update(probability=1.5), "probability"),
        (lambda d: d["tiles"][0].update(doubtful=1), "doubtful"),
    ],
)
def test_bad_new_keys_are_a_clear_error(change, match):
    data = assessed_scene().to_dict()
    change(data)
    with pytest.raises(UserInputError, match=match):
        Scene.from_dict(data)


def test_an_assessed_tile_is_the_tile_with_its_probability_and_doubt():
    tile = SceneTile(
        3,
        "up",
        np.array([[0, 0], [10, 0], [10, 20], [0, 20]], float),
        0.8,
        pips=(1, 2),
        pip_confidence=(0.9, 0.7),
    )
    assessed = tile.assessed(0.6, True)
    assert assessed.to_dict() == replace(tile, probability=0.6, doubtful=True).to_dict()
    assert tile.probability is None and not tile.doubtful
    with pytest.raises(UserInputError, match="probability"):
        tile.assessed(1.5, False)
