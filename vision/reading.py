"""The one way the product reads a picture: a photo of the table or of a hand into a Scene,
a camera's frames into a tracked table.

    reader = PhotoReader.load()                               # the bundled models, once
    table = reader.read(image, "table", set_max=12, game=Game("mexican-train", 4, 12))
    hand = reader.read(image, "hand", set_max=12)

Which models, verifier, calibration and layout settings apply to which kind of picture is
decided here and nowhere else; the command line (`dominocam read`, `round`, `watch`), the
dashboard (uploads and the live camera), the tournament workers and `dominocam eval` and
`bench` all read through a `PhotoReader`, so a hand photo reads the same everywhere.

* Every picture is read with the detector, its verifier (the `verifier.onnx` beside the
  detector) and the calibration beside them (`dominocam.vision.pipeline.load_models`): tiles carry
  their probability, a box that is probably not a tile is `rejected` (never counted), a
  probably misread tile is `doubtful`, and `needs_review` says why.
* A table photo gets its layout rebuilt: as the game lays it out when the `game` is known
  (`dominocam.vision.layout.game_layout_config`), else of any kind (`auto`); touching halves where a
  read is doubtful are decoded together (`dominocam.vision.layout.safe_adjacency`).
* A hand photo gets no layout (its tiles lie side by side, not played) and no adjacency.
  With no open end to tell which left-out box matters, every box the calibration leaves out
  whose tile probability is at least `dominocam.vision.settings.HAND_REVIEW_REJECTED` asks for a
  review: a tile dropped from a hand changes the count.
* A camera's frames are tracked (`dominocam.vision.track`): `tracker_config` gives the thresholds
  for a frame rate and the layout of the game (a line game whose first tile is the root when no game
  is known), `PhotoReader.tracker` the tracker with the calibration, `track` one frame.

`dominocam.vision.pipeline.read_image` stays the lower level, for measuring one stage alone (without
calibration, with another layout setting); a product path never calls it directly.
A `PhotoReader` holds ONNX sessions and stores no result: threads may share one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from dominocam.vision.layout import AUTO, LayoutConfig, game_layout_config
from dominocam.vision.pipeline import Models, load_models, read_image
from dominocam.vision.scene import Scene
from dominocam.vision.settings import DETECTOR_CONF, HAND_REVIEW_REJECTED
from dominocam.vision.track import TableTracker, TrackerConfig, TrackResult, track_frame

TABLE, HAND = "table", "hand"
KINDS: tuple[str, ...] = (TABLE, HAND)


@dataclass(frozen=True)
class Game:
    """What reading a table picture needs to know of the game it shows.

    Attributes:
        variant: the rules variant's name (or a layout kind); it picks the layout kind (line,
            spinner for All Fives, mexican, chicken: `dominocam.vision.layout.layout_kind`).
        players: players at the table (a Mexican Train engine offers one train each plus the
            public train); None: not known.
        engine: the round's engine double (Mexican Train, Chicken Foot), else None.
    """

    variant: str
    players: int | None = None
    engine: int | None = None

    def __post_init__(self) -> None:
        if self.players is not None and self.players < 1:
            raise ValueError(f"a table has at least one player, got {self.players}")
        if self.engine is not None and self.engine < 0:
            raise ValueError(f"an engine double has a value of 0 or more, got {self.engine}")

    def layout(self) -> LayoutConfig:
        """How a picture of this game's table is laid out."""
        return game_layout_config(self.variant, self.players, self.engine)


def table_layout(game: Game | None) -> LayoutConfig:
    """The layout settings of a table photo: the game's, or any kind (`auto`) when no game
    is known (`dominocam read` of a photo of some table)."""
    return game.layout() if game is not None else LayoutConfig(kind=AUTO)


def tracker_config(fps: float, set_max: int, game: Game | None = None) -> TrackerConfig:
    """The tracker's thresholds for `fps` frames a second (`TrackerConfig.at_rate`) and its
    layout: the game's, or a line game whose first tile is the root when no game is known
    (a camera watches a game being played)."""
    layout = game.layout() if game is not None else LayoutConfig(lone_root=True)
    return TrackerConfig.at_rate(fps, set_max=set_max, layout=layout)


class PhotoReader:
    """The product's reading of pictures, with the models loaded once (module docstring).

    Args:
        models: the detector (with its verifier), the reader and the calibration.
        closeups: take the close-up pass at pictures with few boxes (`read_image`).
        far_tiles: take the look in windows at photos whose tiles are small (`read_image`).
    """

    def __init__(self, models: Models, *, closeups: bool = True, far_tiles: bool = True) -> None:
        self.models = models
        self.closeups = closeups
        self.far_tiles = far_tiles

    @classmethod
    def load(
        cls,
        detector: str | os.PathLike[str] | None = None,
        reader: str | os.PathLike[str] | None = None,
        *,
        threads: int | None = None,
        conf: float = DETECTOR_CONF,
        closeups: bool = True,
        far_tiles: bool = True,
    ) -> PhotoReader:
        """The reader of the bundled models ($DOMINOCAM_MODELS or the repository's models/),
        or of the ONNX files named, each with the verifier and calibration beside the
        detector (`dominocam.vision.pipeline.load_models`).

        Args:
            detector: the detector's ONNX file; None: the bundled one.
            reader: the pip reader's ONNX file; None: the bundled one.
            threads: onnxruntime threads per model; None: all cores.
            conf: the detector's confidence threshold.
            closeups: see the class.
            far_tiles: see the class.

        Raises:
            UserInputError: a model file is missing or unreadable.
        """
        models = load_models(detector, reader, threads=threads, conf=conf)
        return cls(models, closeups=closeups, far_tiles=far_tiles)

    def read(
        self,
        image: np.ndarray,
        kind: str = TABLE,
        set_max: int = 12,
        game: Game | None = None,
        *,
        timings: dict[str, float] | None = None,
    ) -> Scene:
        """Read one photo into a Scene.

        Args:
            image: BGR uint8 HxWx3 at full resolution (`dominocam.vision.image_io.load_image`).
            kind: "table" (tiles, lines and open ends) or "hand" (tiles only).
            set_max: the set's highest value (6, 9, 12 or 15).
            game: the game a table photo shows, for its layout; None: not known. A hand
                photo does not use it.
            timings: when given, seconds per stage (`dominocam.vision.pipeline.STAGES`) are added.

        Raises:
            ValueError: an unknown `kind`, or an image that is not BGR uint8 HxWx3.
        """
        if kind not in KINDS:
            raise ValueError(f"unknown kind of photo {kind!r}; valid: {', '.join(KINDS)}")
        table = kind == TABLE
        return read_image(
            image,
            self.models.detector,
            self.models.reader,
            set_max,
            timings=timings,
            with_layout=table,
            layout_config=table_layout(game) if table else None,
            closeups=self.closeups,
            far_tiles=self.far_tiles,
            calibration=self.models.calibration,
            review_rejected=None if table else HAND_REVIEW_REJECTED,
        )

    def tracker(
        self,
        width: int,
        height: int,
        config: TrackerConfig,
        state: dict[str, Any] | None = None,
    ) -> TableTracker:
        """A camera's tracker for frames of `width` x `height` pixels, with the calibration:
        a new one, or the one `state` describes (`TableTracker.to_state`)."""
        calibration = self.models.calibration
        if state is not None:
            return TableTracker.from_state(state, config, calibration)
        return TableTracker(width, height, config, calibration)

    def track(
        self,
        tracker: TableTracker,
        frame: np.ndarray,
        timestamp: float,
        timings: dict[str, float] | None = None,
    ) -> TrackResult:
        """One camera frame (BGR uint8 HxWx3) at `timestamp` seconds through `tracker`:
        detect, read only what the tracker asks for (`dominocam.vision.track.track_frame`)."""
        return track_frame(
            tracker, frame, self.models.detector, self.models.reader, timestamp, timings
        )
