"""The Scene: what one photo of a table (or a hand) shows, and its JSON form (docs/design.md).

Coordinates are pixels of the input image, x to the right, y down. A tile's `corners` follow the
convention of `dominocam.vision.geometry`: corners[0] -> corners[1] is the short edge at the end of
half 0. For a read face-up tile the corners are turned so that half 0 shows `pips[0]` (the smaller
value), so the JSON keeps which value lies at which end even though `pips` is sorted.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from dominocam.errors import UserInputError
from dominocam.vision.notes import Note, notes_json, placed, with_notes

FACES: tuple[str, ...] = ("up", "down")


def _as_corners(value: Any, what: str) -> np.ndarray:
    try:
        corners = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise UserInputError(f"{what}: corners must be four [x, y] pairs") from error
    if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
        raise UserInputError(f"{what}: corners must be four finite [x, y] pairs, got {value!r}")
    return corners


def _probability(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise UserInputError(f"{what} must be a number in [0, 1], got {value!r}")
    value = float(value)
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise UserInputError(f"{what} must be a number in [0, 1], got {value!r}")
    return value


def _pip(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise UserInputError(f"{what} must be a whole number of pips >= 0, got {value!r}")
    return int(value)


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise UserInputError(f'"{what}" must be true or false, got {value!r}')
    return value


def _list(value: Any, what: str) -> list:
    if not isinstance(value, list):
        raise UserInputError(f'"{what}" must be a list')
    return value


@dataclass
class SceneTile:
    """One tile found in the image.

    Attributes:
        id: index of the tile in its Scene (0..n-1), referenced by the layout.
        face: "up" or "down".
        corners: (4, 2) float64 corners in image pixels (module docstring for the order).
        confidence: the detector's score for the box, 0..1.
        pips: `(a, b)` with a <= b for a read face-up tile; None when face down or unread.
        pip_confidence: the reader's probability of each value in `pips`, same order.
        half_probs: (2, V) float64 probabilities of pip values 0..V-1 for half 0 and half 1 in
            corner order, as the reader gave them; kept for joint decoding and the layout,
            not written to JSON. None when face down or unread.
        probability: calibrated probability that this is a real tile read right (detection
            and both halves together, `dominocam.vision.confidence`); None when not assessed (no
            calibration, or an old Scene JSON without the key).
        doubtful: probably a tile, probably misread: a person should look before a ruling
            uses it (below the calibration's `doubtful_below`, a read another tile also
            has, or a tile the reader turned face down on a weak back read,
            `dominocam.vision.reader.BACK_SURE`).
        verifier_score: the verifier's probability that the box holds a real tile
            (`dominocam.vision.verifier`); None when no verifier looked at it. A feature of the
            probability (`dominocam.vision.confidence`).
    """

    id: int
    face: str
    corners: np.ndarray
    confidence: float
    pips: tuple[int, int] | None = None
    pip_confidence: tuple[float, float] | None = None
    half_probs: np.ndarray | None = field(default=None, repr=False)
    probability: float | None = None
    doubtful: bool = False
    verifier_score: float | None = None

    def __post_init__(self) -> None:
        what = f"tile {self.id}"
        if isinstance(self.id, bool) or not isinstance(self.id, (int, np.integer)) or self.id < 0:
            raise UserInputError(f"a tile id must be a whole number >= 0, got {self.id!r}")
        self.id = int(self.id)
        if self.face not in FACES:
            raise UserInputError(f"{what}: face must be one of {list(FACES)}, got {self.face!r}")
        self.corners = _as_corners(self.corners, what)
        self.confidence = _probability(self.confidence, f"{what}: confidence")
        if self.verifier_score is not None:
            self.verifier_score = _probability(self.verifier_score, f"{what}: verifier_score")
        if self.face == "down" and (self.pips is not None or self.pip_confidence is not None):
            raise UserInputError(f"{what}: a face-down tile has no pips")
        if self.pips is not None:
            if len(self.pips) != 2:
                raise UserInputError(f"{what}: pips must be two values [a, b]")
            a, b = (_pip(v, f"{what}: pips") for v in self.pips)
            if a > b:
                raise UserInputError(f"{what}: pips must be sorted [a, b] with a <= b")
            self.pips = (a, b)
        if self.pip_confidence is not None:
            if self.pips is None or len(self.pip_confidence) != 2:
                raise UserInputError(f"{what}: pip_confidence needs pips and two values")
            self.pip_confidence = tuple(  # type: ignore[assignment]
                _probability(v, f"{what}: pip_confidence") for v in self.pip_confidence
            )
        if self.half_probs is not None:
            probs = np.asarray(self.half_probs, dtype=np.float64)
            if probs.ndim != 2 or probs.shape[0] != 2 or probs.shape[1] < 1:
                raise ValueError(f"{what}: half_probs must have shape (2, V), got {probs.shape}")
            self.half_probs = probs
        if self.probability is not None:
            self.probability = _probability(self.probability, f"{what}: probability")
        if not isinstance(self.doubtful, (bool, np.bool_)):
            raise UserInputError(f"{what}: doubtful must be true or false, got {self.doubtful!r}")
        self.doubtful = bool(self.doubtful)

    @property
    def center(self) -> np.ndarray:
        """(2,) centre of the box in image pixels."""
        return self.corners.mean(axis=0)

    def assessed(self, probability: float, doubtful: bool) -> SceneTile:
        """A copy with `probability` and `doubtful` set. Only those two are checked: the
        other fields were checked when this tile was made, and `replace` would check them
        all again (this runs for every tile of every frame)."""
        out = copy.copy(self)
        out.probability = _probability(probability, f"tile {self.id}: probability")
        out.doubtful = bool(doubtful)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of docs/design.md (corners rounded to 0.01 px, scores to 1e-4)."""
        out: dict[str, Any] = {
            "id": self.id,
            "face": self.face,
            "pips": list(self.pips) if self.pips is not None else None,
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners],
            "confidence": round(self.confidence, 4),
        }
        if self.face == "up":
            out["pip_confidence"] = (
                [round(c, 4) for c in self.pip_confidence]
                if self.pip_confidence is not None
                else None
            )
        if self.probability is not None:
            out["probability"] = round(self.probability, 4)
        out["doubtful"] = self.doubtful
        if self.verifier_score is not None:
            out["verifier_score"] = round(self.verifier_score, 4)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SceneTile:
        """Parse the JSON form; raises UserInputError on a malformed tile."""
        if not isinstance(data, Mapping):
            raise UserInputError(f"a tile must be a JSON object, got {data!r}")
        missing = [k for k in ("id", "face", "corners", "confidence") if k not in data]
        if missing:
            raise UserInputError(f"a tile lacks {', '.join(missing)}: {dict(data)!r}")
        pips = data.get("pips")
        conf = data.get("pip_confidence")
        return cls(
            id=data["id"],
            face=data["face"],
            corners=data["corners"],
            confidence=data["confidence"],
            pips=tuple(pips) if pips is not None else None,
            pip_confidence=tuple(conf) if conf is not None else None,
            probability=data.get("probability"),
            doubtful=data.get("doubtful", False),
            verifier_score=data.get("verifier_score"),
        )


@dataclass
class RejectedBox:
    """A box judged probably not a tile: kept out of `tiles` and never counted, but drawn
    apart (dashed, grey) so that a person can restore it.

    Attributes:
        corners: (4, 2) float64 corners in image pixels (the order of `SceneTile.corners`).
        probability: calibrated probability that it is a real tile read right.
        face: "up" or "down", as the detector saw it.
        pips: the reader's best reading (a, b), a <= b, of a face-up box; None otherwise.
    """

    corners: np.ndarray
    probability: float
    face: str
    pips: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        self.corners = _as_corners(self.corners, "rejected box")
        self.probability = _probability(self.probability, "rejected box: probability")
        if self.face not in FACES:
            raise UserInputError(f"rejected box: face must be one of {list(FACES)}")
        if self.pips is not None:
            if len(self.pips) != 2:
                raise UserInputError("rejected box: pips must be two values [a, b]")
            a, b = (_pip(v, "rejected box: pips") for v in self.pips)
            self.pips = (min(a, b), max(a, b))

    def to_dict(self) -> dict[str, Any]:
        return {
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners],
            "probability": round(self.probability, 4),
            "face": self.face,
            "pips": list(self.pips) if self.pips is not None else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RejectedBox:
        if not isinstance(data, Mapping) or "corners" not in data or "probability" not in data:
            raise UserInputError(f"a rejected box needs corners and probability: {data!r}")
        pips = data.get("pips")
        return cls(
            corners=data["corners"],
            probability=data["probability"],
            face=data.get("face", "up"),
            pips=tuple(pips) if pips is not None else None,
        )


@dataclass
class SceneOpenEnd:
    """The free end of a line: the tile, the value it shows, and where it is (image px)."""

    tile: int
    value: int
    point: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile": self.tile,
            "value": self.value,
            "point": [round(float(self.point[0]), 2), round(float(self.point[1]), 2)],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SceneOpenEnd:
        try:
            x, y = data["point"]
            return cls(tile=int(data["tile"]), value=int(data["value"]), point=(x, y))
        except (KeyError, TypeError, ValueError) as error:
            raise UserInputError(f"malformed open end {data!r}") from error


@dataclass
class LayoutLine:
    """One line of play: tile ids in order from its root, and its open end (None if closed)."""

    tiles: list[int] = field(default_factory=list)
    open_end: SceneOpenEnd | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "tiles": list(self.tiles),
            "open_end": self.open_end.to_dict() if self.open_end else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LayoutLine:
        if not isinstance(data, Mapping) or not isinstance(data.get("tiles", []), list):
            raise UserInputError(f"malformed layout line {data!r}")
        end = data.get("open_end")
        return cls(
            tiles=[int(t) for t in data.get("tiles", [])],
            open_end=SceneOpenEnd.from_dict(end) if end is not None else None,
        )


@dataclass
class SceneLayout:
    """Lines and open ends of the table; empty until the layout reconstruction fills it.

    Attributes:
        lines: each line's tiles from where it grows (the root, or the double a Chicken Foot
            toe grows from) and its open end.
        open_ends: the values of every open end.
        kind: the layout kind it was rebuilt as (`dominocam.vision.layout.KINDS`), None if unknown.
        root: the id of the root tile (set tile, spinner, engine), None without a layout.
        doubts: why the picture may not show the whole layout (`dominocam.vision.layout`): English
            texts, each a `dominocam.vision.notes.Note` (its code and parameters) where it has one;
            in JSON the codes are `notes`, beside `doubts` (docs/design.md).
        confidence: 1.0 without doubts, lower with each.
    """

    lines: list[LayoutLine] = field(default_factory=list)
    open_ends: list[int] = field(default_factory=list)
    kind: str | None = None
    root: int | None = None
    doubts: list[str] = field(default_factory=list)
    confidence: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "lines": [line.to_dict() for line in self.lines],
            "open_ends": list(self.open_ends),
        }
        if self.kind is not None:
            out["kind"] = self.kind
        if self.root is not None:
            out["root"] = self.root
        if self.kind is not None or self.doubts:
            out["doubts"] = [str(d) for d in self.doubts]
            out["notes"] = notes_json(self.doubts)
            out["confidence"] = round(float(self.confidence), 4)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> SceneLayout:
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise UserInputError(f"layout must be a JSON object, got {data!r}")
        doubts = data.get("doubts", [])
        if not isinstance(doubts, list):
            raise UserInputError('layout "doubts" must be a list')
        root = data.get("root")
        kind = data.get("kind")
        return cls(
            lines=[LayoutLine.from_dict(line) for line in data.get("lines", [])],
            open_ends=[int(v) for v in data.get("open_ends", [])],
            kind=str(kind) if kind is not None else None,
            root=int(root) if root is not None else None,
            doubts=with_notes(doubts, data.get("notes")),
            confidence=_probability(data.get("confidence", 1.0), "layout confidence"),
        )


@dataclass
class Scene:
    """Everything read from one image.

    Attributes:
        width, height: size of the input image in pixels (after EXIF rotation).
        tiles: the tiles found; `tiles[i].id == i`.
        layout: lines and open ends (empty until the layout module fills it).
        warnings: human-readable notes on doubtful input or changed reads: English texts,
            each a `dominocam.vision.notes.Note` (its code and parameters) where it has one; in JSON
            the codes are `notes`, beside `warnings` (docs/design.md).
        needs_review: any doubt that could change a ruling (a doubtful tile, a layout doubt,
            a tile cut by the border, two reads of one tile); the reasons are in `warnings`.
        rejected: boxes judged probably not tiles (not in `tiles`, never counted).
    """

    width: int
    height: int
    tiles: list[SceneTile] = field(default_factory=list)
    layout: SceneLayout = field(default_factory=SceneLayout)
    warnings: list[str] = field(default_factory=list)
    needs_review: bool = False
    rejected: list[RejectedBox] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
                raise UserInputError(f"image {name} must be a whole number > 0, got {value!r}")
            setattr(self, name, int(value))
        self.tiles = list(self.tiles)
        for index, tile in enumerate(self.tiles):
            if not isinstance(tile, SceneTile):
                raise TypeError(f"tiles[{index}] is {type(tile).__name__}, not SceneTile")
            if tile.id != index:
                raise UserInputError(f"tiles[{index}] has id {tile.id}; ids must be 0..n-1")
        self.warnings = [w if isinstance(w, Note) else str(w) for w in self.warnings]
        self.needs_review = bool(self.needs_review)
        self.rejected = list(self.rejected)
        for box in self.rejected:
            if not isinstance(box, RejectedBox):
                raise TypeError(f"rejected holds {type(box).__name__}, not RejectedBox")

    @property
    def doubtful(self) -> list[SceneTile]:
        """The tiles a person should check before a ruling uses them."""
        return [tile for tile in self.tiles if tile.doubtful]

    @property
    def face_down(self) -> int:
        """Number of face-down tiles (a boneyard pile counts here)."""
        return sum(tile.face == "down" for tile in self.tiles)

    @property
    def pip_total(self) -> int:
        """Sum of the pips of the read face-up tiles."""
        return sum(sum(tile.pips) for tile in self.tiles if tile.pips is not None)

    def with_tiles(self, tiles: list[SceneTile], warnings: list[str] | None = None) -> Scene:
        """A copy with other tiles (renumbered 0..n-1) and optionally other warnings."""
        renumbered = [replace(t, id=i) for i, t in enumerate(tiles)]
        return replace(
            self, tiles=renumbered, warnings=list(self.warnings if warnings is None else warnings)
        )

    def placed(self, warnings: list[str]) -> list[str]:
        """`warnings` (this Scene's, or its layout's doubts) with the place of the tile or
        box each points to (`dominocam.vision.notes.placed`)."""
        centres = {t.id: tuple(np.asarray(t.corners).mean(axis=0).tolist()) for t in self.tiles}
        return [placed(w, centres, self.width, self.height) for w in warnings]

    @property
    def notes(self) -> list[str]:
        """The warnings, each with the place it points to where it has a code."""
        return self.placed(self.warnings)

    def to_dict(self) -> dict[str, Any]:
        """The Scene JSON of docs/design.md as plain Python values."""
        layout = self.layout.to_dict()
        if "notes" in layout:
            layout["notes"] = notes_json(self.placed(self.layout.doubts))
        return {
            "image": {"width": self.width, "height": self.height},
            "tiles": [tile.to_dict() for tile in self.tiles],
            "face_down": self.face_down,
            "pip_total": self.pip_total,
            "layout": layout,
            "warnings": [str(w) for w in self.warnings],
            "notes": notes_json(self.notes),
            "needs_review": self.needs_review,
            "rejected": [box.to_dict() for box in self.rejected],
        }

    def to_json(self, **kwargs: Any) -> str:
        """`json.dumps(self.to_dict(), **kwargs)`."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scene:
        """Parse the JSON form (extra keys such as `path` are ignored; derived counts are
        recomputed, and checked against the given ones when present). A Scene written before
        the reading assessed itself has no `probability`, `doubtful`, `needs_review` or
        `rejected`: it reads as not assessed, nothing doubtful, no review, nothing rejected."""
        if not isinstance(data, Mapping):
            raise UserInputError("a Scene must be a JSON object")
        image = data.get("image")
        if not isinstance(image, Mapping) or "width" not in image or "height" not in image:
            raise UserInputError('a Scene needs "image": {"width": W, "height": H}')
        tiles = data.get("tiles", [])
        if not isinstance(tiles, list):
            raise UserInputError('"tiles" must be a list')
        warnings = data.get("warnings", [])
        if not isinstance(warnings, list):
            raise UserInputError('"warnings" must be a list')
        scene = cls(
            width=image["width"],
            height=image["height"],
            tiles=[SceneTile.from_dict(t) for t in tiles],
            layout=SceneLayout.from_dict(data.get("layout")),
            warnings=with_notes(warnings, data.get("notes")),
            needs_review=_flag(data.get("needs_review", False), "needs_review"),
            rejected=[
                RejectedBox.from_dict(r) for r in _list(data.get("rejected", []), "rejected")
            ],
        )
        for key in ("face_down", "pip_total"):
            derived = getattr(scene, key)
            if key in data and data[key] != derived:
                raise UserInputError(f'"{key}" is {data[key]!r} but the tiles give {derived}')
        return scene

    @classmethod
    def from_json(cls, text: str) -> Scene:
        """Parse a Scene from its JSON text."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise UserInputError(f"not valid Scene JSON: {error}") from error
        return cls.from_dict(data)
