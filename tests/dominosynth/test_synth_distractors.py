"""What is not a tile: empty pictures, distractor objects and their truth, named weights."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominosynth import distractors
from dominosynth.config import CONFIGS, WEIGHT_CHOICES, SynthConfig
from dominosynth.distractors import Distractor


def test_every_distractor_kind_is_a_weight_name_and_draws_a_sprite():
    assert set(WEIGHT_CHOICES["distractor_weights"]) == {k.value for k in Distractor}
    rng = np.random.default_rng(0)

    def face(halves):
        return np.full((256, 128, 3), 200, np.float32), np.ones((256, 128), np.float32)

    for kind in Distractor:
        obj = distractors.make_object(kind, rng, 48.0, face, 12)
        assert obj.sprite.shape[:2] == obj.alpha.shape, kind
        assert obj.half_length > 0 and obj.half_width > 0 and obj.thickness > 0, kind


def test_an_empty_picture_has_no_tile_but_objects_in_its_truth(render_sample):
    cfg = dataclasses.replace(CONFIGS["negatives"], empty_p=1.0)
    for index in range(3):
        _jpg, _img, truth, _ids, _scene, _rng = render_sample(index, seed=5, config=cfg)
        assert truth["empty"] is True
        assert truth["tiles"] == []
        assert truth["distractors"], "objects lie in the picture"
        for d in truth["distractors"]:
            assert d["kind"] in WEIGHT_CHOICES["distractor_weights"]
            assert np.asarray(d["corners"]).shape == (4, 2)


def test_a_picture_with_tiles_lists_its_distractors_apart(render_sample):
    cfg = dataclasses.replace(CONFIGS["negatives"], empty_p=0.0, distractors=(4, 4))
    _jpg, _img, truth, _ids, _scene, _rng = render_sample(1, seed=5, config=cfg, kind="table")
    assert truth["empty"] is False and truth["tiles"]
    assert truth["distractors"]


def test_weights_are_named_and_a_name_left_out_weighs_nothing():
    cfg = SynthConfig(variant_weights={"spinner": 1.0})
    assert cfg.weight_list("variant_weights") == [0.0, 1.0, 0.0, 0.0, 0.0]
    with pytest.raises(UserInputError, match="unknown names"):
        SynthConfig(variant_weights={"spiral": 1.0})
    with pytest.raises(UserInputError, match="must map names"):
        SynthConfig(variant_weights=(1.0, 0.0, 0.0, 0.0, 0.0))
    with pytest.raises(UserInputError, match="not all 0"):
        SynthConfig(body_weights={"ivory": 0.0})


def test_weights_survive_a_yaml_round_trip():
    cfg = CONFIGS["negatives"]
    assert SynthConfig.from_yaml(cfg.to_yaml()) == cfg


def test_clean_draws_no_marks_and_no_empty_pictures():
    clean = CONFIGS["clean"]
    assert clean.empty_p == clean.watermark_p == clean.border_patch_p == 0.0
    assert clean.sample_photo_p == 0.0
