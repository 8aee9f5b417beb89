"""The one named configuration that holds every randomisation range of the generator.

A data card records `SynthConfig.to_dict()` so that an experiment can say exactly which
distribution a model was trained on. Ranges are `(low, high)` tuples sampled uniformly
unless the field name says otherwise (`*_log` ranges are sampled log-uniformly);
probabilities are 0..1; weights are relative, a mapping from a choice's name to its weight
(`WEIGHT_CHOICES` lists the names; a name left out weighs 0). Lengths are millimetres on the table,
sizes in the image are pixels of the output image.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from dominocam.errors import UserInputError

Range = tuple[float, float]
Weights = dict[str, float]

# How much of a tile a picture shows (its truth's `visible_fraction`), in three thresholds
# that the labels, the measuring and the training crops share. Above SHOWN it shows at all
# (less is hidden under another tile or an arm); under MIN_VISIBLE_FRACTION it has no detector
# box; from READER_MIN_VISIBLE both halves show, so it is labelled for the reader and scored
# as read. The last two are SynthConfig's defaults; a data card records what a set used.
SHOWN = 0.02
MIN_VISIBLE_FRACTION = 0.5
READER_MIN_VISIBLE = 0.97

# The names each `*_weights` field chooses between, in the order the generator draws them
# (drawing by position keeps pictures of a given seed the same as before names existed).
WEIGHT_CHOICES: dict[str, tuple[str, ...]] = {
    "kind_weights": ("table", "hand"),
    # scatter: no layout, loose tiles only
    "variant_weights": ("line", "spinner", "mexican", "chicken", "scatter"),
    "hand_arrangement_weights": ("row", "cluster", "rack"),
    "body_weights": ("ivory", "black", "coloured", "translucent"),
    # black_or_white: black pips (white on black bodies); by_value: a colour per value
    "pip_colour_weights": ("black_or_white", "by_value", "one_colour"),
    # plain: paper, dark cloth, grey board
    "background_weights": ("wood", "felt", "cloth", "pattern", "stone", "plastic", "plain"),
    # See dominosynth.distractors for what each one is.
    "distractor_weights": (
        "die",
        "card",
        "coin",
        "pad",
        "picture",
        "printed_board",
        "grid",
        "lettering",
        "chip",
        "pen",
        "phone",
        "marker",
    ),
}


def weights(**named: float) -> Weights:
    """A weight mapping (a helper for readable defaults)."""
    return dict(named)


@dataclass(frozen=True)
class SynthConfig:
    """Every range the generator samples from. Validated on construction.

    Attributes (groups):
        name: the name a data card and a model card quote.
        kind_weights: relative weight of table and hand pictures for `--kind mixed`.
        variant_weights: relative weight of the layout variants of a table picture.
        tile_px_log_table / tile_px_log_hand: tile length in output pixels (log-uniform).
        tilt_deg: camera tilt from straight down, degrees. yaw_deg: camera turn, degrees.
        closeup_p: share of hand pictures that are one tile photographed close, filling the
            frame (closeup_fill: tile length / the picture side it lies along).
        grayscale_p: share of pictures from a monochrome camera or scanner.
        layout_tiles: how many tiles the played layout tries to reach.
        gap_mm: gap between touching tiles of a line (0 = touching), mm (tile is 48 mm).
        skew_deg: per-tile angular jitter, degrees.
        reader_crop_px: side of the square half crops for the pip reader.
        reader_jitter_px / reader_scale / reader_shift: rectification jitter of crops.
        reader_back_crops: also cut both halves of fully visible face-down tiles, as the
            reader's class `back` (its second opinion on face up / face down).
    """

    name: str = "default"
    # What is in the picture.
    kind_weights: Weights = field(default_factory=lambda: weights(table=0.7, hand=0.3))
    variant_weights: Weights = field(
        default_factory=lambda: weights(
            line=0.3, spinner=0.2, mexican=0.2, chicken=0.15, scatter=0.15
        )
    )
    layout_tiles: Range = (1, 30)
    loose_tiles: Range = (0, 6)
    boneyard_tiles: Range = (0, 14)
    boneyard_stack_p: float = 0.3
    hand_tiles: Range = (3, 15)
    hand_arrangement_weights: Weights = field(
        default_factory=lambda: weights(row=0.4, cluster=0.3, rack=0.3)
    )
    closeup_p: float = 0.0
    closeup_fill: Range = (0.7, 1.0)
    gap_mm: Range = (0.0, 3.0)
    touching_p: float = 0.5
    skew_deg: Range = (0.0, 4.0)
    # Tiles.
    tile_length_mm: Range = (40.0, 54.0)
    tile_thickness_ratio: Range = (0.22, 0.42)  # thickness / tile width
    corner_radius_ratio: Range = (0.04, 0.14)  # radius / tile width
    body_weights: Weights = field(
        default_factory=lambda: weights(ivory=0.62, black=0.14, coloured=0.14, translucent=0.10)
    )
    pip_colour_weights: Weights = field(
        default_factory=lambda: weights(black_or_white=0.5, by_value=0.35, one_colour=0.15)
    )
    pin_p: float = 0.5
    back_pattern_p: float = 0.4
    divider_width_ratio: Range = (0.015, 0.05)  # of the tile width
    pip_radius_ratio: Range = (0.075, 0.115)  # of the half side, for 0..9
    # Camera.
    tile_px_log_table: Range = (22.0, 220.0)
    tile_px_log_hand: Range = (80.0, 460.0)
    tilt_deg: Range = (0.0, 35.0)
    flat_view_p: float = 0.35  # straight down (tilt < 3 degrees)
    yaw_deg: Range = (-180.0, 180.0)
    camera_distance_ratio: Range = (8.0, 25.0)  # distance / visible table width
    # Background.
    background_weights: Weights = field(
        default_factory=lambda: weights(
            wood=0.2, felt=0.15, cloth=0.15, pattern=0.1, stone=0.1, plastic=0.1, plain=0.2
        )
    )
    dark_background_p: float = 0.3
    white_paper_p: float = 0.5  # of the light `plain` surfaces
    photo_background_p: float = 0.5  # when --backgrounds is given
    # scikit-image's bundled photographs (brick, grass, gravel, coins, text, a page...) as the
    # table surface, where scikit-image is installed (the `synth` extra)
    sample_photo_p: float = 0.1
    # Light and camera effects.
    exposure: Range = (0.35, 1.25)
    auto_exposure_p: float = 0.7  # meter the whole frame like a camera (dark table: bright tiles)
    auto_exposure_target: Range = (70.0, 140.0)  # mean grey level the camera aims at
    dim_p: float = 0.15
    white_balance: Range = (0.85, 1.15)  # per-channel gain spread
    light_gradient: Range = (0.0, 0.5)
    shadow_strength: Range = (0.25, 0.75)
    shadow_softness_px: Range = (1.0, 12.0)
    shadow_offset: Range = (0.1, 0.9)  # times the tile thickness
    glare_p: float = 0.3
    noise_sigma: Range = (0.5, 7.0)
    blur_p: float = 0.4
    blur_sigma_px: Range = (0.3, 1.6)
    motion_blur_p: float = 0.1
    motion_blur_px: Range = (2.0, 7.0)
    jpeg_quality: Range = (55.0, 95.0)
    grayscale_p: float = 0.0
    # What is not a tile (dominosynth.distractors): objects on the table, pictures without
    # any tile, and marks drawn over the picture.
    distractors: Range = (0, 4)
    distractor_weights: Weights = field(
        default_factory=lambda: weights(
            die=0.08,
            card=0.1,
            coin=0.08,
            pad=0.08,
            picture=0.12,
            printed_board=0.12,
            grid=0.1,
            lettering=0.1,
            chip=0.08,
            pen=0.07,
            phone=0.07,
            marker=0.07,
        )
    )
    empty_p: float = 0.1  # pictures with no tile at all (distractors only)
    empty_distractors: Range = (1, 6)
    watermark_p: float = 0.08  # letters printed over the whole picture, half transparent
    border_patch_p: float = 0.1  # a dark patch (cloth, shadow) at the picture's border
    arm_p: float = 0.12
    sleeve_p: float = 0.5  # of the arms: a sleeve to the wrist
    # Printed dominoes (dominosynth.printed): a game board with a printed domino track lying
    # under the tiles, and a box whose lid shows printed dominoes beside them.
    print_board_p: float = 0.0
    print_lid_p: float = 0.0
    # Labels.
    min_visible_fraction: float = MIN_VISIBLE_FRACTION  # tiles less visible are not boxed
    reader_crop_px: int = 64
    reader_min_visible: float = READER_MIN_VISIBLE
    reader_jitter_px: float = 1.5
    reader_scale: Range = (0.96, 1.06)
    reader_shift: float = 0.03  # of the tile width
    reader_back_crops: bool = True
    contact_sheet_images: int = 12
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name.endswith("_p") or f.name in ("min_visible_fraction", "reader_min_visible"):
                if not 0.0 <= float(value) <= 1.0:
                    raise UserInputError(f"config {self.name}: {f.name} must be in 0..1")
            elif f.name in WEIGHT_CHOICES:
                _check_weights(self.name, f.name, value)
            elif isinstance(value, tuple) and len(value) == 2 and float(value[0]) > float(value[1]):
                raise UserInputError(f"config {self.name}: {f.name} must be (low, high)")
        if self.reader_crop_px < 8:
            raise UserInputError(f"config {self.name}: reader_crop_px must be >= 8")
        if self.tilt_deg[1] > 60:
            raise UserInputError(f"config {self.name}: tilt_deg above 60 is not supported")

    def weight_list(self, name: str) -> list[float]:
        """The weights of field `name` in the order of `WEIGHT_CHOICES[name]` (0 if left out)."""
        given = getattr(self, name)
        return [float(given.get(choice, 0.0)) for choice in WEIGHT_CHOICES[name]]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON/YAML values (tuples become lists)."""
        return {
            k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(self).items()
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SynthConfig:
        """The inverse of `to_dict`; unknown keys are an error listing the valid ones."""
        names = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise UserInputError(
                f"unknown config keys {unknown}; valid keys: {', '.join(sorted(names))}"
            )
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return cls(**values)

    def to_yaml(self) -> str:
        import yaml

        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    @classmethod
    def from_yaml(cls, text: str) -> SynthConfig:
        import yaml

        data = yaml.safe_load(text) or {}
        if not isinstance(data, dict):
            raise UserInputError("a synth config YAML must be a mapping of keys to values")
        base = CONFIGS.get(str(data.get("base", "default")), CONFIGS["default"]).to_dict()
        data.pop("base", None)
        base.update(data)
        return cls.from_dict(base)


def _check_weights(config: str, name: str, value: Any) -> None:
    choices = WEIGHT_CHOICES[name]
    if not isinstance(value, dict):
        raise UserInputError(
            f"config {config}: {name} must map names to weights, e.g. "
            f"{{{choices[0]}: 1.0}}; names: {', '.join(choices)}"
        )
    unknown = sorted(set(value) - set(choices))
    if unknown:
        raise UserInputError(
            f"config {config}: {name} has unknown names {unknown}; valid: {', '.join(choices)}"
        )
    numbers = [float(v) for v in value.values()]
    if not numbers or min(numbers) < 0 or sum(numbers) <= 0:
        raise UserInputError(f"config {config}: {name} needs weights >= 0, not all 0")


CONFIGS: dict[str, SynthConfig] = {
    "default": SynthConfig(),
    # Close to the DomiBot robot camera: small white tiles on dark cloth, dim frames.
    "robot": SynthConfig(
        name="robot",
        variant_weights=weights(line=0.35, spinner=0.05, scatter=0.6),
        body_weights=weights(ivory=1.0),
        pip_colour_weights=weights(black_or_white=1.0),
        tile_px_log_table=(30.0, 110.0),
        dark_background_p=0.7,
        dim_p=0.3,
    ),
    # Small low-resolution pictures holding a few tiles 20..64 px long, like a crop of a
    # photo. Use with --size 320x256: training enlarges a picture to the network's 640 px,
    # so the detector sees these tiles blown up 2x and blurred, as the runtime enlarges a
    # small picture (at most 2x, vision.detector.MAX_UPSCALE).
    "small": SynthConfig(
        name="small",
        kind_weights=weights(table=0.85, hand=0.15),
        variant_weights=weights(line=0.5, spinner=0.1, mexican=0.1, chicken=0.1, scatter=0.2),
        layout_tiles=(1, 3),
        loose_tiles=(0, 2),
        boneyard_tiles=(0, 1),
        hand_tiles=(1, 3),
        tile_px_log_table=(20.0, 64.0),
        tile_px_log_hand=(24.0, 64.0),
        distractors=(0, 1),
        arm_p=0.0,
        blur_p=0.6,
        jpeg_quality=(40.0, 90.0),
    ),
    # One tile filling the frame (a crop around one tile, a scanner shot, a phone held close),
    # or a few big hand tiles. Use with --size 640x352, about a tile's 2:1 shape. Other
    # configs have no tile longer than about a third of the picture. A tile that fills the
    # detector's whole input stays beyond it even so (docs/vision.md, "Close-ups"); these
    # pictures teach it close-up tiles at the sizes it can box.
    "closeup": SynthConfig(
        name="closeup",
        kind_weights=weights(hand=1.0),
        closeup_p=0.7,
        hand_tiles=(1, 3),
        tile_px_log_hand=(120.0, 360.0),
        tilt_deg=(0.0, 8.0),  # a close camera tilted further shows the near end far bigger
        distractors=(0, 1),
        arm_p=0.0,
        grayscale_p=0.25,
    ),
    # Crowded with what is not a tile, a third of the pictures without any tile: the
    # verifier's training pictures (models/verifier.md), never the detector's.
    "negatives": SynthConfig(
        name="negatives",
        distractors=(3, 10),
        empty_p=0.3,
        empty_distractors=(3, 10),
        watermark_p=0.3,
        border_patch_p=0.4,
        sample_photo_p=0.3,
        arm_p=0.3,
    ),
    # Printed dominoes beside real ones (issue 36): most table pictures lie on a game board
    # whose border is a printed domino track, many show a box lid with printed dominoes, a
    # tenth show the print and no tile. `dominocam eval --sets synthetic_print` measures
    # the share of pictures in which no printed domino is read as a tile.
    "print": SynthConfig(
        name="print",
        kind_weights=weights(table=0.85, hand=0.15),
        print_board_p=0.8,
        print_lid_p=0.45,
        distractors=(0, 2),
        layout_tiles=(1, 20),
        tile_px_log_table=(30.0, 160.0),
    ),
    # Light tiles on light tables (white paper, a pale cloth or board), where a tile stands
    # out by its outline and a faint shadow only, with pale things that are not tiles beside
    # them. No plan trains on it: the verifier fine-tuned with it lost real tiles
    # (docs/decisions/2026-12-03-pale-tables.md).
    "pale": SynthConfig(
        name="pale",
        background_weights=weights(plain=0.75, cloth=0.1, stone=0.1, plastic=0.05),
        dark_background_p=0.0,
        white_paper_p=0.9,
        auto_exposure_target=(110.0, 180.0),  # a phone exposes white paper light, not grey
        body_weights=weights(ivory=0.75, translucent=0.1, coloured=0.1, black=0.05),
        shadow_strength=(0.1, 0.5),
        distractors=(1, 4),
        sample_photo_p=0.1,
    ),
    # No clutter and no camera effects: for tests and for looking at label geometry.
    "clean": SynthConfig(
        name="clean",
        body_weights=weights(ivory=1.0),
        pip_colour_weights=weights(black_or_white=1.0),
        boneyard_tiles=(0, 0),
        loose_tiles=(0, 2),
        tile_px_log_table=(60.0, 100.0),
        flat_view_p=1.0,
        dark_background_p=1.0,
        background_weights=weights(plain=1.0),
        exposure=(1.0, 1.0),
        auto_exposure_p=0.0,
        dim_p=0.0,
        white_balance=(1.0, 1.0),
        light_gradient=(0.0, 0.0),
        glare_p=0.0,
        noise_sigma=(0.0, 0.0),
        blur_p=0.0,
        motion_blur_p=0.0,
        jpeg_quality=(95.0, 95.0),
        distractors=(0, 0),
        sample_photo_p=0.0,
        empty_p=0.0,
        watermark_p=0.0,
        border_patch_p=0.0,
        arm_p=0.0,
        pin_p=0.0,
        skew_deg=(0.0, 1.0),
    ),
}


def load_config(name_or_path: str | None) -> SynthConfig:
    """A named configuration, or one read from a YAML file (keys override `base`).

    Raises:
        UserInputError: unknown name, missing file or bad values.
    """
    if not name_or_path:
        return CONFIGS["default"]
    if name_or_path in CONFIGS:
        return CONFIGS[name_or_path]
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise UserInputError(f"config file {path} not found")
        return SynthConfig.from_yaml(path.read_text())
    raise UserInputError(
        f"unknown config {name_or_path!r}; valid names: {', '.join(CONFIGS)} or a YAML file"
    )
