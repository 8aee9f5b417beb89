"""`dominocam round`: photos of the table and of each hand in, the referee's ruling out.

    dominocam round --table T.jpg --hand Ana=ana.jpg --hand Ben=ben.jpg --variant block
    dominocam round --table-json table.json --hand Ana=ana.json ... --variant mexican-train

The table photo is read with its layout (`dominocam.vision.layout`, as the variant's layout kind),
each hand photo without; a `.json` file instead of a photo is taken as its Scene JSON (`dominocam
read --json`), so the command works without models. Players are listed in clockwise seat order. The
game state (docs/design.md) is built by `dominocam.rounds.scene_state` (the conversion the dashboard
uses too) and judged by `rules.check`.

When the photos leave doubts (a line broken by a tile the detector missed, an open end cut
by the border, touching halves that differ at an open end, an unread tile), a BLOCKED
verdict is reported as "uncertain: ..." with the doubts and a confidence below 1: a missing
tile must never silently give a wrong "blocked". When a photo's reading is itself unsure (a
Scene with `needs_review`, or a `doubtful` tile: `dominocam.vision.confidence`), every verdict is
"uncertain", naming the doubtful tiles and the reasons, with the ruling for the tiles as read
below it: the round is never ruled silently on a reading a person should check.

The ledger comes first (issue 32; `dominocam.rounds.ledger_text`, `dominocam.rules.ledger`,
`dominocam.rules.hold`): the table and every hand are counted against the set before anything is
ruled. A tile in two places, a tile nowhere, a hand or a stock that does not fit the deal: the
verdict is "uncertain" and names each problem, with the ruling for the tiles as read below it. The
boneyard is what the host says (`--boneyard N`, or `--boneyard-in-view`: the face-down tiles of the
table photo are all of it), never the face-down count by default: in a game that draws, nobody able
to play with the boneyard unknown is "uncertain" and asks for the count, never BLOCKED. Any ruling
that ends the round (a block, a domino) waits until the counts close, and says which is missing
(`dominocam.rules.hold`). `--ledger` prints where every tile is.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dominocam import rules
from dominocam.arguments import add_model_files, add_set, positive_int
from dominocam.errors import UserInputError
from dominocam.i18n import (
    DEFAULT_LANGUAGE,
    N_,
    _,
    add_language_option,
    format_number,
    ngettext,
    resolve_language,
    use_language,
)
from dominocam.rounds import ledger_text, scene_state
from dominocam.rules.hold import HoldReason, boneyard_known, judged_boneyard, verdict_hold
from dominocam.rules.ledger import reconcile
from dominocam.rules.tiles import SUPPORTED_SETS, set_size
from dominocam.vision.notes import ASK_CODES, Note, player_text


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
    add_set(parser, SUPPORTED_SETS, default=None)
    parser.add_argument(
        "--boneyard",
        type=int,
        default=None,
        metavar="N",
        help=(
            "tiles left in the boneyard, as counted by the host (0 when it is empty; in a "
            "game that never draws, the sleeping tiles). Without it the boneyard is unknown, "
            "and a game that draws is never ruled blocked"
        ),
    )
    parser.add_argument(
        "--boneyard-in-view",
        action="store_true",
        help=(
            "the face-down tiles of the table photo are the whole boneyard (or the sleeping "
            "tiles): count them as its count"
        ),
    )
    parser.add_argument(
        "--hand-size",
        type=positive_int,
        default=None,
        metavar="N",
        help="tiles dealt to each player, when the house deals other than the variant",
    )
    parser.add_argument(
        "--ledger",
        action="store_true",
        help="also print the ledger: where every tile of the set is, as a grid",
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
    from dominocam.vision.scene import Scene

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
        self.reader: Any = None

    def scene(self, path: str, set_max: int, game: Any | None, force_json: bool = False) -> Any:
        """The Scene of a table photo of `game` (`dominocam.vision.reading.Game`), or of a hand
        photo when `game` is None."""
        from dominocam.vision.layout import layout_scene

        if force_json or path.lower().endswith(".json"):
            scene = _load_scene_json(path)
            # Scene JSON has corners and reads: the layout is rebuilt with this game's kind.
            return layout_scene(scene, game.layout()) if game is not None else scene
        from dominocam.vision.image_io import load_image
        from dominocam.vision.reading import PhotoReader

        if self.reader is None:
            self.reader = PhotoReader.load(self.args.detector, self.args.reader)
        kind = "table" if game is not None else "hand"
        return self.reader.read(load_image(path), kind, set_max, game)


def judge(
    table: Any,
    hands: list[tuple[str, Any]],
    variant: str,
    set_max: int,
    boneyard: int | None = None,
    proposer: str | None = None,
    owners: dict[tuple[int, int], str | None] | None = None,
    marked: tuple[str, ...] = (),
    *,
    boneyard_in_view: bool = False,
    hand_size: int | None = None,
) -> dict[str, Any]:
    """The round's result from a table Scene (with layout) and hand Scenes; `owners` and
    `marked` say whose Mexican Train train is whose (`scene_state.state_layout`).

    The ledger comes first (`dominocam.rules.ledger.reconcile`, module docstring): `boneyard` is the
    host's count (None: not known, never the face-down tiles unless `boneyard_in_view`
    says they are all of it), `hand_size` the house's deal when not the variant's.

    Returns a dict: `state` (the game state), `verdict` (its JSON; None when the readings
    contradict each other too much to be judged), `status` (`blocked`, `not blocked`,
    `uncertain`), `hold` (why the ruling waits for the host, `dominocam.rules.hold` codes), `ledger`
    (`Ledger.to_dict()`), `ledger_problems` (in words), `confidence`, `doubts`, `notes`,
    `warnings` per photo, the ruling `text` and the `--ledger` text `ledger_text`.
    """
    table_dict = table.to_dict()
    hand_dicts = [(name, scene.to_dict()) for name, scene in hands]
    layout = scene_state.state_layout(table_dict, owners, marked)
    if len(hands) < 2:
        raise UserInputError(
            _("a round needs at least 2 players, got {count}").format(count=len(hands))
        )
    ledger = reconcile(
        rules.get_variant(variant),
        [ledger_text.hand_report(name, scene) for name, scene in hands],
        ledger_text.table_report(table, boneyard_in_view),
        ledger_text.boneyard_report(boneyard),
        max_pip=set_max,
        hand_size=hand_size,
    )
    players = [{"name": n, "hand": scene_state.hand_tiles(d)} for n, d in hand_dicts]
    state: dict[str, Any] = {
        "variant": variant,
        "set": set_max,
        "players": players,
        "layout": layout,
        "boneyard": _judged_boneyard(ledger, set_size(set_max) - _state_tiles(players, layout)),
    }
    if proposer is not None:
        state["proposer"] = proposer
    parsed, verdict, unjudged = None, None, ""
    try:
        parsed = rules.parse_state(state)
    except UserInputError as error:
        if ledger.adds_up:
            raise
        unjudged = str(error)  # a tile in two hands: the ledger names it, below
    if parsed is not None:
        verdict = rules.check(parsed)
    hold = verdict_hold(ledger, verdict)
    problems = [ledger_text.problem_text(p, set_max) for p in ledger.problems]
    boneyard_unknown = HoldReason.BONEYARD_UNKNOWN in hold
    unsorted = 0 if boneyard_in_view else ledger_text.table_report(table).face_down
    questions = _count_questions(ledger, hold, unsorted)
    found_doubts = scene_state.photo_doubts(table_dict, [d for _, d in hand_dicts])
    doubts = scene_state.layout_doubts(table_dict, [d for _, d in hand_dicts])
    shown_doubts = [_shown_doubt(photo, d) for photo, d in found_doubts]
    confidence = float((table_dict.get("layout") or {}).get("confidence", 1.0))
    extra = len(doubts) - len((table_dict.get("layout") or {}).get("doubts") or [])
    confidence *= 0.7 ** max(0, extra)
    notes = [n for n in [scene_state.ownership_note(table_dict, owners)] if n]
    if ledger.deal.draws and table.face_down and not boneyard_in_view and boneyard is None:
        notes.append(
            _(
                "the {count} face-down tiles of the table photo are not taken as the boneyard: "
                "give --boneyard-in-view if they are all of it"
            ).format(count=format_number(table.face_down))
        )
    review = _review(table, hands)
    blocked = verdict is not None and verdict.blocked
    if review["needs_review"] or hold or (blocked and doubts):
        status = "uncertain"
    else:
        status = "blocked" if blocked else "not blocked"
    shown_confidence = format_number(confidence, decimals=2)
    unsure_readings = bool(review["needs_review"] or problems or (hold and not blocked))
    # Never a bare BLOCKED on readings a person must check first: the ruling's verdict line
    # says so in its place (`dominocam.rules.ruling`'s `blocked`).
    instead = None
    if unsure_readings:
        instead = _("Verdict for the tiles as read: BLOCKED.")
    elif status == "uncertain":
        instead = _uncertain_block(shown_doubts, questions, boneyard_unknown, shown_confidence)
    if parsed is not None and verdict is not None:
        text = rules.ruling(verdict, parsed, boneyard_known=boneyard_known(ledger), blocked=instead)
    else:
        text = _("The readings cannot be judged: {error}").format(error=unjudged)
    if unsure_readings:
        # The readings themselves are unsure or contradict each other, or a hand shows no
        # tile with a count open: no ruling counts until a person has checked them.
        head = []
        if review["needs_review"]:
            named = review["doubtful_text"]
            head.append(
                _(
                    "Verdict: uncertain: the photos need a check before this ruling counts "
                    "(doubtful: {tiles}):"
                ).format(tiles=named)
                if named
                else _("Verdict: uncertain: the photos need a check before this ruling counts:")
            )
            head += [f"  - {r}" for r in review["reasons"]]
        if problems:
            head.append(
                _("The tiles do not add up:")
                if head
                else _(
                    "Verdict: uncertain: the tiles do not add up; check them before any "
                    "ruling counts:"
                )
            )
            head += [f"  - {p}" for p in problems]
        if questions and not head:
            head.append(
                _(
                    "Verdict: uncertain: the photos show a hand with no tile left, but not "
                    "every count is known, so a tile missed in a photo would not show:"
                )
            )
        head += [f"  - {q}" for q in questions]
        text = "\n".join(head) + "\n" + _("For the tiles as read:") + "\n" + text
        if doubts:
            text += "\n\n" + _("Doubts about the layout (confidence {confidence}):").format(
                confidence=shown_confidence
            )
            text += "\n" + "\n".join(f"  - {d}" for d in shown_doubts)
    elif status == "uncertain":
        if not blocked and instead is not None:  # no verdict line to say it in
            text += "\n\n" + instead
    elif doubts:
        text += "\n\n" + _("Doubts about the photos (confidence {confidence}):").format(
            confidence=shown_confidence
        )
        text += "\n" + "\n".join(f"  - {d}" for d in shown_doubts)
    if notes:
        text += "\n\n" + _("Notes:") + "\n" + "\n".join(f"  - {n}" for n in notes)
    return {
        "status": status,
        "hold": [str(reason) for reason in hold],
        "needs_review": review["needs_review"],
        "doubtful": review["doubtful"],
        "confidence": round(confidence, 4),
        "doubts": doubts,
        "notes": notes,
        "verdict": None if verdict is None else verdict.to_json(),
        "state": state,
        "ledger": ledger.to_dict(),
        "ledger_problems": problems,
        "warnings": {
            "table": list(table_dict.get("warnings") or []),
            "hands": {name: list(d.get("warnings") or []) for name, d in hand_dicts},
        },
        "text": text,
        "ledger_text": ledger_text.ledger_text(ledger, [name for name, _scene in hands]),
    }


def _state_tiles(players: list[dict[str, Any]], layout: dict[str, Any]) -> int:
    """The different tiles a game state holds: the hands' and the hub's."""
    tiles = {tuple(tile) for player in players for tile in player["hand"]}
    for hub in ("engine", "spinner"):
        if layout.get(hub):
            tiles.add(tuple(layout[hub]))
    return len(tiles)


def _judged_boneyard(ledger: Any, free: int) -> int:
    """The boneyard count the rules engine judges with (`dominocam.rules.hold.judged_boneyard`),
    never more than the `free` tiles the state leaves (too many tiles is the ledger's problem to
    name, not a reason to refuse the ruling)."""
    return min(judged_boneyard(ledger), max(0, free))


def _count_questions(ledger: Any, hold: Sequence[str], unsorted: int) -> list[str]:
    """What the host is asked when a ruling that ends the round waits for a count
    (`dominocam.rules.hold`): the boneyard's, or the counts that keep the ledger from closing."""
    if HoldReason.BONEYARD_UNKNOWN in hold:
        return [_boneyard_question(ledger)]
    if HoldReason.COUNTS_OPEN not in hold:
        return []
    asked = []
    if not boneyard_known(ledger):
        asked.append(_boneyard_count_question())
    if unsorted:
        asked.append(
            ngettext(
                "the table photo shows {count} face-down tile nobody placed: give "
                "--boneyard-in-view if it is the boneyard (or the sleeping tiles)",
                "the table photo shows {count} face-down tiles nobody placed: give "
                "--boneyard-in-view if they are the boneyard (or the sleeping tiles)",
                unsorted,
            ).format(count=format_number(unsorted))
        )
    if ledger.deal.hand_size is None:
        asked.append(
            _(
                "the deal is not known for {count} players: give the tiles dealt to each with "
                "--hand-size N"
            ).format(count=format_number(ledger.deal.players))
        )
    return asked


def _boneyard_count_question() -> str:
    """What the host is asked when a domino's counts stay open for a boneyard nobody counted."""
    return _(
        "nobody counted the boneyard, so a tile left out of a hand could lie there unseen: "
        "give --boneyard N, or --boneyard-in-view when the table photo shows all of it"
    )


def _boneyard_question(ledger: Any) -> str:
    """What the host is asked when a block turns on a boneyard nobody counted."""
    text = _(
        "Nobody counted the boneyard, and a block needs it empty: count it and run again with "
        "--boneyard N (--boneyard 0 when it is empty), or with --boneyard-in-view when the "
        "table photo shows all of it."
    )
    derived = ledger.boneyard
    if derived.count is not None and ledger.adds_up:  # counts that contradict derive nothing
        text += " " + ngettext(
            "The other counts leave {count} tile for it, if every photo shows everything.",
            "The other counts leave {count} tiles for it, if every photo shows everything.",
            derived.count,
        ).format(count=format_number(derived.count))
    return text


def _uncertain_block(
    doubts: list[str], questions: list[str], boneyard_unknown: bool, confidence: str
) -> str:
    """The BLOCKED verdict made uncertain, said in its place in the ruling: the photos'
    doubts, the counts it waits for (the boneyard nobody counted, or others), or both, and
    the condition under which the block would stand."""
    lines = []
    if doubts:
        lines.append(
            _(
                "Verdict: uncertain: BLOCKED for the tiles the photos show, but the photos "
                "left doubts (confidence {confidence}); check the table before ending the "
                "round:"
            ).format(confidence=confidence)
        )
        lines += [f"  - {d}" for d in (*doubts, *questions)]
        if boneyard_unknown:
            lines.append(_("If the photos show everything and the boneyard is empty:"))
        else:
            lines.append(_("If the photos show everything:"))
    elif boneyard_unknown:
        lines.append(
            _(
                "Verdict: uncertain: nobody can play the tiles as read, but the boneyard is "
                "not known."
            )
        )
        lines += questions
        lines.append(_("If the boneyard is empty:"))
    else:
        lines.append(
            _(
                "Verdict: uncertain: nobody can play the tiles as read, but not every count "
                "is known, so a tile missed in a photo would not show:"
            )
        )
        lines += [f"  - {q}" for q in questions]
        lines.append(_("If the photos show everything:"))
    return "\n".join(lines)


def _tile_text(tile: Any) -> str:
    if tile.face == "down":
        return _("face-down tile #{id}").format(id=tile.id)
    if tile.pips is None:
        return _("unread tile #{id}").format(id=tile.id)
    return f"{tile.pips[0]}-{tile.pips[1]} (#{tile.id})"


# scene_state.photo_doubts names the photo a warning comes from.
_PHOTO_LABELS = {
    "table": N_("table photo: {warning}"),
    "hand": N_("hand photo: {warning}"),
}


def _shown_doubt(photo: str | None, doubt: str) -> str:
    """A doubt of the layout or of a photo in the current language, in a player's words
    (`dominocam.vision.notes.player_text`)."""
    text = player_text(doubt)
    return text if photo is None else _(_PHOTO_LABELS[photo]).format(warning=text)


def _review(table: Any, hands: list[tuple[str, Any]]) -> dict[str, Any]:
    """What the photos ask a person to check (`Scene.needs_review`, `SceneTile.doubtful`):
    whether any does, the doubtful tiles per photo, one line naming them, and the reasons
    (the Scenes' warnings that ask for a check)."""
    # Written in the current language (`run`: English for --json); the Scenes' warnings
    # are English in the JSON and written from their codes here (vision.notes).
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
        _("{where}: {warning}").format(where=where, warning=player_text(w))
        for where, scene in photos
        if scene.needs_review or scene.doubtful
        for w in scene.notes
        # A warning without a code (a Scene written before codes) is shown as it is.
        if not isinstance(w, Note) or w.code in ASK_CODES
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
    from dominocam.vision.reading import Game

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
    game = Game(variant.name, len(hands), args.engine)
    reader = _Reader(args)
    table = reader.scene(
        args.table or args.table_json, set_max, game, force_json=args.table_json is not None
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
            boneyard_in_view=args.boneyard_in_view,
            hand_size=args.hand_size,
        )
    if args.json:
        out = {k: v for k, v in result.items() if k not in ("text", "ledger_text")}
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(result["text"])
        if args.ledger:
            print()
            print(result["ledger_text"])
    return 0
