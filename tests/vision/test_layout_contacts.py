"""Which contact an end keeps when several tiles qualify (`find_contacts` scores every pair of
tiles at once; these pin down the choices a per-pair loop made one by one)."""

from __future__ import annotations

import pytest
from test_layout import tile_at

from dominocam.vision.layout import LayoutConfig, find_contacts

# Tile 0 lies along x with its half-0 end at x = 140; tile 1 continues it 12 px (0.3 widths)
# further; the double 2 lies diagonally near that end, 0.09 widths from its edge.
LINE_START = tile_at(0, 100, 300, 0, (1, 2))
IN_LINE = tile_at(1, 192, 300, 0, (3, 1))
DIAGONAL_DOUBLE = tile_at(2, 150, 250, 60, (5, 5))


def contacts_of_end(tiles, kind: str = "line", tile: int = 0, half: int = 0):
    return [
        c for c in find_contacts(tiles, LayoutConfig(kind=kind)) if (c.tile, c.half) == (tile, half)
    ]


@pytest.mark.parametrize("first", [1, 2])
def test_of_two_equally_near_boxes_the_earlier_one_is_kept(first: int) -> None:
    # The same tile found twice (duplicate detections): equal gaps, the first in the list wins.
    twice = {k: tile_at(k, 192, 300, 0, (3, 1)) for k in (1, 2)}
    tiles = [LINE_START, twice[first], twice[3 - first]]
    (contact,) = contacts_of_end(tiles)
    assert contact.other == first and contact.kind == "end"


@pytest.mark.parametrize("kind", ["chicken", "mexican", "line", "spinner"])
def test_an_end_or_side_contact_beats_a_nearer_radial_one(kind: str) -> None:
    (contact,) = contacts_of_end([LINE_START, IN_LINE, DIAGONAL_DOUBLE], kind)
    assert (contact.other, contact.kind) == (1, "end")
    assert contact.gap == pytest.approx(0.3)


@pytest.mark.parametrize(("kind", "radial"), [("chicken", True), ("line", False)])
def test_radial_contacts_exist_only_for_kinds_with_toes_or_trains(kind, radial) -> None:
    found = contacts_of_end([LINE_START, DIAGONAL_DOUBLE], kind)
    if radial:
        (contact,) = found
        assert (contact.other, contact.kind) == (2, "radial")
        assert 0 < contact.gap < 0.2
    else:
        assert found == []


def test_contacts_come_tile_by_tile_half_0_first() -> None:
    contacts = find_contacts([LINE_START, IN_LINE, DIAGONAL_DOUBLE], LayoutConfig(kind="chicken"))
    keys = [(c.tile, c.half) for c in contacts]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_no_tiles_no_contacts() -> None:
    assert find_contacts([]) == []
