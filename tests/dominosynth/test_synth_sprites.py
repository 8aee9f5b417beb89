"""Pip patterns: every value of every pattern style draws that many distinct pips inside
the half, so a reader trained on them learns counts, not one set's look."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dominosynth.config import SynthConfig
from dominosynth.sprites import pip_positions, random_style

STYLES = ("A", "B", "C", "R")


@pytest.mark.parametrize("dense_style", STYLES)
@pytest.mark.parametrize("value", range(16))
def test_each_value_draws_that_many_distinct_pips_inside_the_half(
    dense_style: str, value: int
) -> None:
    style = dataclasses.replace(
        random_style(np.random.default_rng(0), SynthConfig()), dense_style=dense_style
    )
    points, _scale = pip_positions(value, style)
    assert len(points) == value
    assert len(set(points)) == value
    assert all(0.0 < x < 1.0 and 0.0 < y < 1.0 for x, y in points)


def test_the_ring_ten_is_the_rim_of_a_three_by_four_grid() -> None:
    style = dataclasses.replace(
        random_style(np.random.default_rng(0), SynthConfig()), dense_style="R"
    )
    points, _ = pip_positions(10, style)
    centre = np.mean(points, axis=0)
    assert np.allclose(centre, 0.5)
    # no pip in the middle band: the rim leaves the centre of the half empty
    assert not any(abs(x - 0.5) < 0.1 and 0.3 < y < 0.7 for x, y in points)
