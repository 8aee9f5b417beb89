"""Tiles, double-n sets and pip values (docs/rules.md: the blocked game's "Scoring", and
"set sizes" in what varies).

A tile is an unordered pair of half values; it is stored sorted (`low <= high`) so that
5-10 and 10-5 are the same tile, as on the table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dominocam.errors import Refused, UserInputError, plain_value
from dominocam.i18n import _

# Double-n sets that the product supports: double-6, -9 and -12 are common, double-15 exists.
SUPPORTED_SETS: tuple[int, ...] = (6, 9, 12, 15)


@dataclass(frozen=True, order=True)
class Tile:
    """One domino: two half values, `low <= high`, each 0..n for a double-n set.

    Build it with `Tile.of(a, b)` when the halves may come in either order.
    """

    low: int
    high: int

    def __post_init__(self) -> None:
        for half in (self.low, self.high):
            if not isinstance(half, int) or isinstance(half, bool) or half < 0:
                raise UserInputError(
                    "a tile's halves must be whole numbers of pips >= 0, "
                    f"got {self.low}-{self.high}"
                )
        if self.low > self.high:
            raise UserInputError(f"Tile({self.low}, {self.high}) must be sorted; use Tile.of()")

    @classmethod
    def of(cls, a: int, b: int) -> Tile:
        """The tile with halves `a` and `b`, in either order."""
        return cls(min(a, b), max(a, b)) if _is_int(a) and _is_int(b) else cls(a, b)

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    @property
    def pips(self) -> int:
        """The face value: the sum of both halves (5-10 counts 15, 12-12 counts 24)."""
        return self.low + self.high

    def has(self, value: int) -> bool:
        """True when either half shows `value`."""
        return value in (self.low, self.high)

    def other_half(self, value: int) -> int:
        """The half left exposed when the tile is matched against `value`."""
        if not self.has(value):
            raise ValueError(f"tile {self} has no half {value}")
        return self.high if self.low == value else self.low

    def points(self, double_blank_value: int = 0) -> int:
        """Pips this tile counts in a hand; the double-blank may be valued by house rule."""
        if self.low == 0 and self.high == 0:
            return double_blank_value
        return self.pips

    def as_list(self) -> list[int]:
        """The JSON form, `[low, high]`."""
        return [self.low, self.high]

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def set_size(max_pip: int) -> int:
    """Number of tiles in a double-n set: (n+1)(n+2)/2, so 28, 55, 91, 136 for 6, 9, 12, 15."""
    return (max_pip + 1) * (max_pip + 2) // 2


def full_set(max_pip: int) -> list[Tile]:
    """Every tile of a double-`max_pip` set, sorted."""
    if max_pip not in SUPPORTED_SETS:
        valid = ", ".join(str(n) for n in SUPPORTED_SETS)
        raise Refused(
            _("unknown set double-{set}; valid sets: {valid}").format(set=max_pip, valid=valid),
            "unknown_set",
            set=plain_value(max_pip),
            valid=list(SUPPORTED_SETS),
        )
    return [Tile(a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1)]


def parse_tile(raw: object, max_pip: int | None = None) -> Tile:
    """A tile from its JSON form `[a, b]` (or the text "a-b"), checked against the set.

    Raises:
        UserInputError: the value is not a pair of whole numbers, or a half exceeds `max_pip`.
    """
    if isinstance(raw, str) and "-" in raw:
        parts: list[object] = [*raw.split("-", 1)]
        try:
            parts = [int(str(p).strip()) for p in parts]
        except ValueError:
            raise Refused(
                _("cannot read tile {tile!r}; write it as [a, b]").format(tile=raw),
                "unreadable_tile",
                tile=plain_value(raw),
            ) from None
    elif isinstance(raw, list | tuple) and len(raw) == 2:
        parts = list(raw)
    else:
        raise Refused(
            _("cannot read tile {tile!r}; write it as [a, b]").format(tile=raw),
            "unreadable_tile",
            tile=plain_value(raw),
        )
    if not all(_is_int(p) and p >= 0 for p in parts):  # type: ignore[operator]
        raise Refused(
            _("cannot read tile {tile!r}; halves must be whole numbers >= 0").format(tile=raw),
            "unreadable_tile",
            tile=plain_value(raw),
        )
    tile = Tile.of(parts[0], parts[1])  # type: ignore[arg-type]
    if max_pip is not None and tile.high > max_pip:
        raise Refused(
            _("tile {tile} has a half above {top}, the highest of a double-{top} set").format(
                tile=tile, top=max_pip
            ),
            "tile_above_set",
            tile=tile.as_list(),
            set=max_pip,
        )
    return tile


def hand_points(tiles: Iterable[Tile], double_blank_value: int = 0) -> int:
    """The remaining pip count of a hand: the sum of its tiles' points."""
    return sum(tile.points(double_blank_value) for tile in tiles)
