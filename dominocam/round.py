"""`dominocam round`: photos of the table and of each hand in, the referee's ruling out.

    dominocam round --table T.jpg --hand Ana=ana.jpg --hand Ben=ben.jpg --variant block
    dominocam round --table-json table.json --hand Ana=ana.json ... --variant mexican-train

The table photo is read with its layout (`vision.layout`, as the variant's layout kind),
each hand photo without; a `.json` file instead of a photo is taken as its Scene JSON
(`dominocam read --json`), so the command works without models. Players are listed in
clockwise seat order. The game state (DESIGN.md) is built by `dominocam.scene_state` (the
conversion the dashboard uses too) and judged by `rules.check`.

When the photos leave doubts (a line broken by a tile the detector missed, an open end cut
by the border, touching halves that differ at an open end, an unread tile), a BLOCKED
verdict is reported as "uncertain: ..." with the doubts and a confidence below 1: a missing
tile must never silently give a wrong "blocked". When a photo's reading is itself unsure (a
Scene with `needs_review`, or a `doubtful` tile: `vision.confidence`), every verdict is
"uncertain", naming the doubtful tiles and the reasons, with the ruling for the tiles as read
below it: the round is never ruled silently on a reading a person should check.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dominocam.arguments import add_model_files, add_set
from dominocam.errors import UserInputError
from rules.i18n import (
    DEFAULT_LANGUAGE,
    N_,
    _,
    add_language_option,
    format_number,
    resolve_language,
    use_language,
)
from vision.messages import shown as shown_warning


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `round` to the `dominocam` parser."""
    parser = subparsers.add_parser(
        "round",
        help="rule on a round from photos (or Scene JSON) of the table and the hands",
        description=(
            "Read the table photo (with its lines and open ends) and each player's hand "
            "photo, build the game state and rule on it: blocked or not, who can play, pip "
            "totals, winner and points. A FILE ending in .json is read as Scene JSON instead "
            "of a photo (no models needed)."
        ),
    )
    table = parser.add_mutually_exclusive_group(required=True)
    table.add_argument("--table", metavar="PHOTO", help="photo (or Scene .json) of the table")
    table.add_argument("--table-json", metavar="SCENE", help="Scene JSON of the table")
    parser.add_argument(
        "--hand",
        action="append",
        default=[],
        metavar="NAME=FILE",
        required=True,
        help="a player and the photo (or Scene .json) of their hand; repeat, clockwise",
    )
    parser.add_argument("--variant", required=True, help="rules variant (`dominocam rules`)")
    add_set(parser, default=None)
    parser.add_argument(
        "--boneyard",
        type=int,
        default=None,
        metavar="N",
        help="tiles in the boneyard (default: the face-down tiles of the table photo)",
    )
    parser.add_argument("--proposer", default=None, help="who proposed the block")
    parser.add_argument(
        "--engine",
        type=int,
        default=None,
        metavar="N",
        help="Mexican Train: the value of this round's engine double (helps find the hub)",
    )
    parser.add_argument(
        "--train",
        action="append",
        default=[],
        metavar="NAME=TILE",
        help=(
            "Mexican Train: whose train starts with TILE, e.g. Ana=12-5 (NAME `public` for "
            "the Mexican train); repeat. Trains without an owner are taken as public"
        ),
    )
    parser.add_argument(
        "--marked",
        action="append",
        default=[],
        metavar="NAME",
        help="Mexican Train: NAME's train carries a marker (open to everyone); repeat",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_language_option(parser)
    add_model_files(parser)
    parser.set_defaults(func=run)


def _hand_spec(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise UserInputError(
            _("--hand must look like NAME=PHOTO, got {value!r}").format(value=text)
        )
    return name.strip(), path.strip()


def _train_spec(text: str, players: list[str]) -> tuple[tuple[int, int], str | None]:
    """`Ana=12-5` -> ((5, 12), "Ana"); `public=12-3` -> ((3, 12), None)."""
    name, sep, pips = text.partition("=")
    name = name.strip()
    parts = pips.replace(":", "-").split("-")
    if not sep or not name or len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise UserInputError(
            _("--train must look like NAME=12-5, got {value!r}").format(value=text)
        )
    if name != "public" and name not in players:
        raise UserInputError(
            _("--train {value}: {name!r} is not a player (players: {players}; or `public`)").format(
                value=text, name=name, players=", ".join(players)
            )
        )
    a, b = (int(p) for p in parts)
    return (min(a, b), max(a, b)), None if name == "public" else name


def _load_scene_json(path: str) -> Any:
    from vision.scene import Scene

    file = Path(path)
    if not file.is_file():
        raise UserInputError(_("no such file: {path}").format(path=path))
    try:
        return Scene.from_json(file.read_text())
    except UnicodeDecodeError as error:
        raise UserInputError(_("{path}: not a Scene JSON text file").format(path=path)) from error


class _Reader:
    """Reads photos with the models, loaded on first use (Scene JSON needs none)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.models: Any = None

    def scene(
        self, path: str, set_max: int, layout_config: Any | None, force_json: bool = False
    ) -> Any:
        from vision.layout import layout_scene

        if force_json or path.lower().endswith(".json"):
            scene = _load_scene_json(path)
            # Scene JSON has corners and reads: the layout is rebuilt with this game's kind.
            return layout_scene(scene, layout_config) if layout_config is not None else scene
        from vision import pipeline
        from vision.image_io import load_image

        if self.models is None:
            self.models = pipeline.load_models(self.args.detector, self.args.reader)
        image = load_image(path)
        return pipeline.read_image(
            image,
            self.models.detector,
            self.models.reader,
            set_max=set_max,
            with_layout=layout_config is not None,
            layout_config=layout_config,
            calibration=self.models.calibration,
        )


def judge(
    table: Any,
    hands: list[tuple[str, Any]],
    variant: str,
    set_max: int,
    boneyard: int | None = None,
    proposer: str | None = None,
    owners: dict[tuple[int, int], str | None] | None = None,
    marked: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The round's result from a table Scene (with layout) and hand Scenes; `owners` and
    `marked` say whose Mexican Train train is whose (`scene_state.state_layout`).

    Returns a dict: `state` (the game state), `verdict` (its JSON), `status` (`blocked`,
    `not blocked`, `uncertain`), `confidence`, `doubts`, `notes`, `warnings` per photo and
    the ruling `text`.
    """
    import rules
    from dominocam import scene_state

    table_dict = table.to_dict()
    hand_dicts = [(name, scene.to_dict()) for name, scene in hands]
    state: dict[str, Any] = {
        "variant": variant,
        "set": set_max,
        "players": [{"name": n, "hand": scene_state.hand_tiles(d)} for n, d in hand_dicts],
        "layout": scene_state.state_layout(table_dict, owners, marked),
        "boneyard": table.face_down if boneyard is None else boneyard,
    }
    if proposer is not None:
        state["proposer"] = proposer
    parsed = rules.parse_state(state)
    verdict = rules.check(parsed)
    doubts = scene_state.layout_doubts(table_dict, [d for _, d in hand_dicts])
    confidence = float((table_dict.get("layout") or {}).get("confidence", 1.0))
    extra = len(doubts) - len((table_dict.get("layout") or {}).get("doubts") or [])
    confidence *= 0.7 ** max(0, extra)
    notes = [n for n in [scene_state.ownership_note(table_dict, owners)] if n]
    if boneyard is None:
        notes.append(
            _("boneyard taken as the {count} face-down tiles of the table photo").format(
                count=format_number(table.face_down)
            )
        )
    review = _review(table, hands)
    if review["needs_review"] or (verdict.blocked and doubts):
        status = "uncertain"
    else:
        status = "blocked" if verdict.blocked else "not blocked"
    text = rules.ruling(verdict, parsed)
    shown_confidence = format_number(confidence, decimals=2)
    if review["needs_review"]:
        # The reading itself is unsure: no ruling counts until a person has checked it.
        named = review["doubtful_text"]
        head = (
            _(
                "Verdict: uncertain: the photos need a check before this ruling counts "
                "(doubtful: {tiles}):"
            ).format(tiles=named)
            if named
            else _("Verdict: uncertain: the photos need a check before this ruling counts:")
        )
        text = (
            head
            + "\n"
            + "\n".join(f"  - {r}" for r in review["reasons"])
            + "\n"
            + _("For the tiles as read:")
            + "\n"
            + text
        )
        if doubts:
            text += "\n\n" + _("Doubts about the layout (confidence {confidence}):").format(
                confidence=shown_confidence
            )
            text += "\n" + "\n".join(f"  - {_shown_doubt(d)}" for d in doubts)
    elif status == "uncertain":
        said = _("Verdict: BLOCKED.")
        uncertain = (
            _(
                "Verdict: uncertain: BLOCKED for the tiles the photos show, but the photos "
                "left doubts (confidence {confidence}); check the table before ending the "
                "round:"
            ).format(confidence=shown_confidence)
            + "\n"
            + "\n".join(f"  - {d}" for d in doubts)
            + "\n"
            + _("If the photos show everything:")
        )
        if said in text:
            head, _said, tail = text.partition(said)
            text = head + uncertain + tail
        else:
            text += "\n\n" + uncertain
    elif doubts:
        text += "\n\n" + _("Doubts about the photos (confidence {confidence}):").format(
            confidence=shown_confidence
        )
        text += "\n" + "\n".join(f"  - {_shown_doubt(d)}" for d in doubts)
    if notes:
        text += "\n\n" + _("Notes:") + "\n" + "\n".join(f"  - {n}" for n in notes)
    return {
        "status": status,
        "needs_review": review["needs_review"],
        "doubtful": review["doubtful"],
        "confidence": round(confidence, 4),
        "doubts": doubts,
        "notes": notes,
        "verdict": verdict.to_json(),
        "state": state,
        "warnings": {
            "table": list(table_dict.get("warnings") or []),
            "hands": {name: list(d.get("warnings") or []) for name, d in hand_dicts},
        },
        "text": text,
    }


def _tile_text(tile: Any) -> str:
    if tile.face == "down":
        return _("face-down tile #{id}").format(id=tile.id)
    if tile.pips is None:
        return _("unread tile #{id}").format(id=tile.id)
    return f"{tile.pips[0]}-{tile.pips[1]} (#{tile.id})"


# scene_state.layout_doubts names the photo a warning comes from.
_PHOTO_LABELS = (
    ("table photo: ", N_("table photo: {warning}")),
    ("hand photo: ", N_("hand photo: {warning}")),
)


def _shown_doubt(doubt: str) -> str:
    """A doubt of the layout or the photos in the current language (vision.messages)."""
    for label, template in _PHOTO_LABELS:
        if doubt.startswith(label):
            return _(template).format(warning=shown_warning(doubt[len(label) :]))
    return shown_warning(doubt)


def _review(table: Any, hands: list[tuple[str, Any]]) -> dict[str, Any]:
    """What the photos ask a person to check (`Scene.needs_review`, `SceneTile.doubtful`):
    whether any does, the doubtful tiles per photo, one line naming them, and the reasons
    (the Scenes' warnings that ask for a check)."""
    # Written in the current language (`run`: English for --json); the Scenes' warnings
    # are English in the JSON and shown in that language here (vision.messages).
    photos = [
        (_("the table"), table),
        *((_("{name}'s hand").format(name=name), scene) for name, scene in hands),
    ]
    doubtful = {
        "table": [_tile_text(t) for t in table.doubtful],
        "hands": {name: [_tile_text(t) for t in scene.doubtful] for name, scene in hands},
    }
    named = "; ".join(
        f"{where}: {', '.join(_tile_text(t) for t in scene.doubtful)}"
        for where, scene in photos
        if scene.doubtful
    )
    reasons = [
        _("{where}: {warning}").format(where=where, warning=shown_warning(w))
        for where, scene in photos
        if scene.needs_review or scene.doubtful
        for w in scene.warnings
        if "please check" in w
    ]
    needs = any(scene.needs_review or scene.doubtful for _where, scene in photos)
    if needs and not reasons:
        reasons = [
            _("{where}: the reading is unsure").format(where=where)
            for where, s in photos
            if s.needs_review
        ]
    return {
        "needs_review": needs,
        "doubtful": doubtful,
        "doubtful_text": named,
        "reasons": reasons,
    }


def run(args: argparse.Namespace) -> int:
    """`dominocam round`: the ruling and the errors in the language of `--lang` (or the
    environment); the JSON is computed in English, since programs read its texts too."""
    language = resolve_language(args.lang)
    with use_language(language):
        return _run(args, DEFAULT_LANGUAGE if args.json else language)


def _run(args: argparse.Namespace, result_language: str) -> int:
    import rules
    from vision.layout import game_layout_config

    try:
        variant = rules.get_variant(args.variant)
    except ValueError as error:
        raise UserInputError(str(error).splitlines()[0]) from None
    set_max = args.set or variant.set
    hands = [_hand_spec(h) for h in args.hand]
    names = [n for n, _ in hands]
    if len(set(names)) != len(names):
        raise UserInputError(_("each --hand needs a different player name"))
    if args.boneyard is not None and args.boneyard < 0:
        raise UserInputError(_("--boneyard must be >= 0"))
    owners = dict(_train_spec(t, names) for t in args.train)
    if len(owners) != len(args.train):
        raise UserInputError(_("two --train options name the same first tile"))
    unknown = [m for m in args.marked if m not in names]
    if unknown:
        raise UserInputError(
            _("--marked {name!r} is not a player ({players})").format(
                name=unknown[0], players=", ".join(names)
            )
        )
    config = game_layout_config(variant.name, len(hands), args.engine)
    reader = _Reader(args)
    table = reader.scene(
        args.table or args.table_json, set_max, config, force_json=args.table_json is not None
    )
    hand_scenes = [(name, reader.scene(path, set_max, None)) for name, path in hands]
    with use_language(result_language):
        result = judge(
            table,
            hand_scenes,
            variant.name,
            set_max,
            args.boneyard,
            args.proposer,
            owners,
            tuple(args.marked),
        )
    if args.json:
        out = {k: v for k, v in result.items() if k != "text"}
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(result["text"])
    return 0
