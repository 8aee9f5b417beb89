"""The reader's warnings as data: a code with typed parameters, written in words at the edge.

Each warning the vision layer gives (decode, pipeline, confidence, layout, and the server's
merge of the live camera with corrections) is a `Note`: a code (`"read_changed"`), its
parameters (tile ids, tile values as `[a, b]`, probabilities, counts, a nested reason) and
the English sentence of its template in `dominocam.vision.messages`, which is what the Scene's
`warnings` hold (a `Note` is that `str`, so everything that reads warnings as text reads it
as before). Nothing reads a warning's text back: the words are made from the code and the
parameters where they are shown, in the current language (`dominocam.i18n.use_language`), at two
levels:

* `player_text(note)`: what a player does about it, the tile named by its value and place
  ("Check the 0-0 at the bottom right: it may be a 0-1"), no ids and no probabilities;
* `detail_text(note)`: the reader's own account for the host (the English template
  translated: ids, probabilities), decimals in the language's style.

In the Scene JSON the notes sit beside the texts (`notes`, one `{code, params, text}` per
warning, docs/design.md); a warning without a code (a Scene written before notes, a note
from elsewhere) has `code: null` and is shown as its text. The place of a tile
(`params["place"]`, one of `dominocam.rules.places.PLACE_CODES`) is added where the Scene knows its
tiles' corners (`placed`).

    >>> n = note(messages.CUT_BY_BORDER, tile=3)   # str(n) == "tile 3 is cut by the image border"
    >>> with use_language("it"): player_text(placed(n, {3: (600, 40)}, 640, 480))
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dominocam.i18n import N_, _, format_number
from dominocam.rules.places import PLACE_CODES, place_of, place_text
from dominocam.vision import messages as m

# Where a tile lies is said as a line's open end is (`dominocam.rules.places`): one of nine places
# by thirds of the photo; "in the photo" when a note has none.
NO_PLACE = N_("in the photo")


def place_words(place: str | None) -> str:
    """A place code (`dominocam.rules.places.PLACE_CODES`) as a player says it in the current
    language ("at the top right"); "in the photo" when unknown."""
    return place_text(place) if place in PLACE_CODES else _(NO_PLACE)


# --- what a player reads -------------------------------------------------------------------
# One sentence per thing to do; several codes share one. {where} is `place_words`; tile values
# are written "a-b".
P_MAY_BE = N_("Check the {tile} {where}: it may be a {other}.")
P_MISREAD = N_("Check the {tile} {where}: it may be misread.")
P_HALF_ABOVE_SET = N_(
    "Check the tile {where}: one half looks like {pips} pips, more than a double-{set_max} set has."
)
P_TOO_MANY = N_(
    "There are {count} face-up tiles, more than a double-{set_max} set holds: check the set size."
)
P_NOT_READ = N_("{count} face-up tiles were not read: the reader model is missing.")
P_CUT = N_(
    "Check the tile {where}: it is cut by the edge of the photo, so part of it may be hidden."
)
P_TURNED = N_("Check the tile {where}: it was taken as lying face down.")
P_FACE_DOWN = N_("Check the face-down tile {where}: it may not be a tile, or it may lie face up.")
P_UNREAD = N_("Check the tile {where}: its pips could not be read.")
P_BOX = N_("Look {where}: something there was taken for no tile, but it may be one.")
P_BOX_AT_END = N_(
    "Look {where}: something beside the open {value} was taken for no tile; a tile there would "
    "change the ruling."
)
P_LAYOUT = N_("The lines on the table may not be what the photo shows: check them before a ruling.")
P_HALVES_DIFFER = N_("Check the tiles {where}: two touching halves, {x} and {y}, do not match.")
P_LOOP = N_("Check the tiles {where}: which line they were played on is a guess.")
P_ROOT_CARRIES = N_("Check the first tile {where}: more lines start from it than it can hold.")
P_ENGINE_GUESS = N_("Check the engine: the double {where} is taken as the engine, a guess.")
P_SPINNER_GUESS = N_("Check the spinner: the double {where} is taken as the spinner, a guess.")
P_NOTHING_PLAYED = N_(
    "No tile is played against another: the tile {where} is taken as the first tile."
)
P_PLAYED_APART = N_("Check the tiles {where}: they lie apart from the other lines.")
P_TILE_BEYOND_END = N_("Check the open end {where}: a tile may be missing there.")
P_END_CUT = N_(
    "Check the open end {where}: it is cut by the edge of the photo, so the line may go on."
)
P_NO_MATCH_AT_END = N_("Check the tiles {where}: they touch at an open end without matching.")
P_CORRECTION_UNMATCHED = N_(
    "Check the {tile}: it was corrected on a photo the camera cannot match."
)
P_DELETION_UNMATCHED = N_(
    "A tile deleted on a photo the camera cannot match may show again: delete it again."
)


@dataclass(frozen=True)
class Kind:
    """One code: its English template (`dominocam.vision.messages`), the player's sentence and how
    the parameters fill it.

    Attributes:
        code: the stable name (JSON `code`).
        template: the English template of the warning's text (and of the host's details).
        player: the player's sentence; None for a reason only ever nested in another note.
        fields: the player's field -> the parameter that fills it (same name when absent).
        tiles: parameters holding tile ids (an int or a list of ints), renumbered with them.
        values: parameters holding tile values `[a, b]`, written "a-b".
        where: the tile-id parameter whose tile the player is pointed to; "box" for one
            at (`x`, `y`); None for none.
        doubt: the picture may hide a tile (`dominocam.rounds.scene_state.layout_doubts`).
    """

    code: str
    template: str
    player: str | None
    fields: tuple[tuple[str, str], ...] = ()
    tiles: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    where: str | None = None
    doubt: bool = False


_KINDS: tuple[Kind, ...] = (
    # vision.decode
    Kind("half_above_set", m.HALF_ABOVE_SET, P_HALF_ABOVE_SET, tiles=("tile",), where="tile"),
    Kind("too_many_tiles", m.TOO_MANY_TILES, P_TOO_MANY),
    Kind(
        "read_twice", m.READ_TWICE, P_MAY_BE, (("tile", "reading"), ("other", "alternative")),
        tiles=("tile", "other"), values=("reading", "alternative"), where="tile",
    ),
    Kind(
        "read_collides", m.READ_COLLIDES, P_MAY_BE, (("tile", "reading"), ("other", "alternative")),
        tiles=("tile",), values=("reading", "alternative"), where="tile",
    ),
    Kind(
        "read_changed", m.READ_CHANGED, P_MAY_BE, (("tile", "chosen"), ("other", "first")),
        tiles=("tile",), values=("first", "chosen"), where="tile",
    ),
    Kind(
        "read_changed_together", m.READ_CHANGED_TOGETHER, P_MAY_BE,
        (("tile", "chosen"), ("other", "first")),
        tiles=("tile",), values=("first", "chosen"), where="tile",
    ),
    Kind("went_to_tile", m.WENT_TO_TILE, None, tiles=("holder",), values=("reading",)),
    Kind("collided", m.COLLIDED, None, values=("reading",)),
    Kind("must_match_tile", m.MUST_MATCH_TILE, None, tiles=("tiles",)),
    Kind("must_match_tiles", m.MUST_MATCH_TILES, None, tiles=("tiles",)),
    # vision.pipeline
    Kind("not_read", m.NOT_READ, P_NOT_READ, doubt=True),
    Kind("cut_by_border", m.CUT_BY_BORDER, P_CUT, tiles=("tile",), where="tile", doubt=True),
    Kind("back_both_halves", m.BACK_BOTH_HALVES, P_TURNED, tiles=("tile",), where="tile"),
    # vision.confidence
    Kind(
        "may_be_misread_could_be", m.MAY_BE_MISREAD_COULD_BE, P_MAY_BE,
        tiles=("id",), values=("tile", "other"), where="id",
    ),
    Kind(
        "may_be_misread", m.MAY_BE_MISREAD, P_MISREAD,
        tiles=("id",), values=("tile",), where="id",
    ),
    Kind(
        "may_not_be_a_tile_could_be", m.MAY_NOT_BE_A_TILE_COULD_BE, P_FACE_DOWN,
        tiles=("id",), values=("tile", "other"), where="id",
    ),
    Kind(
        "may_not_be_a_tile", m.MAY_NOT_BE_A_TILE, P_FACE_DOWN,
        tiles=("id",), values=("tile",), where="id",
    ),
    Kind(
        "face_down_may_not_be_a_tile", m.FACE_DOWN_MAY_NOT_BE_A_TILE, P_FACE_DOWN,
        tiles=("id",), where="id",
    ),
    Kind("unread_may_be_misread", m.UNREAD_MAY_BE_MISREAD, P_UNREAD, tiles=("id",), where="id"),
    Kind("cut_by_edge", m.CUT_BY_EDGE, P_CUT, tiles=("id",), values=("tile",), where="id"),
    Kind("face_down_cut_by_edge", m.FACE_DOWN_CUT_BY_EDGE, P_CUT, tiles=("id",), where="id"),
    Kind("unread_cut_by_edge", m.UNREAD_CUT_BY_EDGE, P_CUT, tiles=("id",), where="id"),
    Kind("box_may_be_a_tile", m.BOX_MAY_BE_A_TILE, P_BOX, where="box"),
    Kind("box_at_open_end", m.BOX_AT_OPEN_END, P_BOX_AT_END, tiles=("id",), where="box"),
    Kind("layout_doubts", m.LAYOUT_DOUBTS, P_LAYOUT),
    # vision.layout
    Kind("halves_differ", m.HALVES_DIFFER, P_HALVES_DIFFER, tiles=("a", "b"), where="a"),
    Kind("closes_a_loop", m.CLOSES_A_LOOP, P_LOOP, tiles=("a", "b"), where="a"),
    Kind("root_carries", m.ROOT_CARRIES, P_ROOT_CARRIES, tiles=("tile",), where="tile"),
    Kind("engine_guess", m.ENGINE_GUESS, P_ENGINE_GUESS, tiles=("root", "rival"), where="root"),
    Kind("spinner_guess", m.SPINNER_GUESS, P_SPINNER_GUESS, tiles=("root", "rival"), where="root"),
    Kind("nothing_played", m.NOTHING_PLAYED, P_NOTHING_PLAYED, tiles=("tile",), where="tile"),
    Kind("played_apart", m.PLAYED_APART, P_PLAYED_APART, tiles=("tiles",), where="tiles"),
    Kind(
        "tile_beyond_end", m.TILE_BEYOND_END, P_TILE_BEYOND_END,
        tiles=("beyond", "tile"), where="tile",
    ),
    Kind(
        "end_cut_by_border", m.END_CUT_BY_BORDER, P_END_CUT,
        tiles=("tile",), where="tile", doubt=True,
    ),
    Kind("no_match_at_end", m.NO_MATCH_AT_END, P_NO_MATCH_AT_END, tiles=("a", "b"), where="a"),
    # server.table_scene
    Kind(
        "correction_unmatched", m.CORRECTION_UNMATCHED, P_CORRECTION_UNMATCHED,
        (("tile", "pips"),), tiles=("tile",), values=("pips",),
    ),
    Kind("deletion_unmatched", m.DELETION_UNMATCHED, P_DELETION_UNMATCHED, tiles=("tile",)),
)  # fmt: skip
KINDS: dict[str, Kind] = {k.code: k for k in _KINDS}
_BY_TEMPLATE: dict[str, Kind] = {k.template: k for k in _KINDS}
# The codes whose warning says the picture may hide a tile.
DOUBT_CODES: frozenset[str] = frozenset(k.code for k in _KINDS if k.doubt)
# The codes that ask a person to check a tile, a box or the lines (a reason for review).
ASK_CODES: frozenset[str] = frozenset(
    {
        "read_twice", "read_collides", "may_be_misread_could_be", "may_be_misread",
        "may_not_be_a_tile_could_be", "may_not_be_a_tile", "face_down_may_not_be_a_tile",
        "unread_may_be_misread", "cut_by_edge", "face_down_cut_by_edge", "unread_cut_by_edge",
        "box_may_be_a_tile", "box_at_open_end", "layout_doubts",
    }
)  # fmt: skip


class Note(str):
    """A warning: the English text (this `str`) with its `code` and `params`.

    `params` hold plain values: ints, floats, strings, lists of them, and a nested `Note` for
    a reason (`why`). Build one with `note`; `from_dict` reads one back from JSON keeping its
    stored text.
    """

    code: str
    params: dict[str, Any]

    def __new__(cls, text: str, code: str, params: Mapping[str, Any]) -> Note:
        if code not in KINDS:
            raise ValueError(f"unknown warning code {code!r}; known: {', '.join(sorted(KINDS))}")
        out = super().__new__(cls, text)
        out.code = code
        out.params = dict(params)
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (Note, (str(self), self.code, self.params))

    @property
    def kind(self) -> Kind:
        return KINDS[self.code]

    def with_params(self, **changes: Any) -> Note:
        """A copy with some parameters changed, its text written again (but for `place`,
        which the text does not hold)."""
        params = {**self.params, **changes}
        text = str(self) if set(changes) <= {"place"} else _english(self.kind, params)
        return Note(text, self.code, params)

    def to_dict(self) -> dict[str, Any]:
        """`{code, params, text}` for JSON (a nested note as such a dict too)."""
        return {"code": self.code, "params": _json_params(self.params), "text": str(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], text: str | None = None) -> Note:
        """A note from `to_dict`'s JSON; `text` (the warning it stands beside) wins over its
        own."""
        params = {
            k: cls.from_dict(v) if isinstance(v, Mapping) and "code" in v else v
            for k, v in dict(data.get("params") or {}).items()
        }
        return cls(
            str(text if text is not None else data.get("text", "")), str(data["code"]), params
        )


def _value(value: Any) -> str:
    return "-".join(str(int(v)) for v in value)


def _english(kind: Kind, params: Mapping[str, Any]) -> str:
    """The English text of a note (what the Scene's `warnings` hold)."""
    return _formatted(kind.template, kind, params, english=True)


def _formatted(template: str, kind: Kind, params: Mapping[str, Any], *, english: bool) -> str:
    values: dict[str, Any] = {}
    for name, spec in _fields(template):
        value = params.get(name)
        if isinstance(value, Note):
            values[name] = str(value) if english else detail_text(value)
        elif name in kind.values and isinstance(value, (list, tuple)):
            values[name] = _value(value)
        elif isinstance(value, (list, tuple)):
            values[name] = ", ".join(str(v) for v in value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and spec[-1:] == "f":
            decimals = int(spec[1:-1] or 0)
            values[name] = (
                format(float(value), spec)
                if english
                else format_number(float(value), decimals=decimals)
            )
        else:
            values[name] = value
    plain = "".join(
        text + ("" if name is None else "{" + name + "}")
        for text, name, _spec, _conv in string.Formatter().parse(template)
    )
    return plain.format(**values)


def _fields(template: str) -> list[tuple[str, str]]:
    return [
        (name, spec or "")
        for _text, name, spec, _conv in string.Formatter().parse(template)
        if name is not None
    ]


def note(template: str, **params: Any) -> Note:
    """The note of a `dominocam.vision.messages` template with its parameters: tile ids as ints
    (lists of ints), tile values as `(a, b)`, probabilities as floats, a reason as a `Note`."""
    kind = _BY_TEMPLATE.get(template)
    if kind is None:
        raise ValueError(f"no warning code for the template {template!r}")
    clean = {k: _plain(v) for k, v in params.items() if v is not None}
    return Note(_english(kind, clean), kind.code, clean)


def _plain(value: Any) -> Any:
    """numpy scalars and tuples as JSON's plain values."""
    if isinstance(value, Note):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):  # a numpy scalar
        return value.item()
    return value


def _json_params(params: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, Note):
            out[k] = v.to_dict()
        elif isinstance(v, float):
            out[k] = round(v, 4)
        else:
            out[k] = v
    return out


def renumbered(note_: Note, new_id: Mapping[int, int]) -> Note | None:
    """`note_` with its tile ids mapped by `new_id`; None when it names a tile not in it."""
    changes: dict[str, Any] = {}
    for name in note_.kind.tiles:
        value = note_.params.get(name)
        if value is None:
            continue
        ids = value if isinstance(value, list) else [value]
        if any(int(i) not in new_id for i in ids):
            return None
        mapped = [new_id[int(i)] for i in ids]
        changes[name] = mapped if isinstance(value, list) else mapped[0]
    why = note_.params.get("why")
    if isinstance(why, Note):
        inner = renumbered(why, new_id)
        if inner is None:
            return None
        changes["why"] = inner
    return note_.with_params(**changes) if changes else note_


def placed(note_: str, centres: Mapping[int, Sequence[float]], width: float, height: float) -> str:
    """`note_` with the place of the tile (or box) it points to (`Kind.where`), from the tiles'
    `centres` (id -> (x, y) pixels) in a `width` x `height` photo; as it is when it has a place,
    none, or is plain text."""
    if not isinstance(note_, Note) or "place" in note_.params or note_.kind.where is None:
        return note_
    where = note_.kind.where
    point: Sequence[float]
    if where == "box":
        x, y = note_.params.get("x"), note_.params.get("y")
        if x is None or y is None:
            return note_
        point = (float(x), float(y))
    else:
        value: Any = note_.params.get(where)
        tile: Any = value[0] if isinstance(value, list) and value else value
        if tile is None or int(tile) not in centres:
            return note_
        point = centres[int(tile)]
    if not width or not height:
        return note_
    return note_.with_params(place=place_of((float(point[0]), float(point[1])), width, height))


def player_text(warning: str) -> str:
    """What a player reads of a warning, in the current language: what to check and where.
    A warning without a code is its text."""
    if not isinstance(warning, Note) or warning.kind.player is None:
        return detail_text(warning)
    kind = warning.kind
    sentence = warning.kind.player
    params = dict(warning.params)
    mapping = dict(kind.fields)
    values: dict[str, Any] = {"where": place_words(params.get("place"))}
    for name, _spec in _fields(sentence):
        if name == "where":
            continue
        source = mapping.get(name, name)
        value = params.get(source)
        if source in kind.values and isinstance(value, (list, tuple)):
            values[name] = _value(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            values[name] = format_number(value)
        else:
            values[name] = "?" if value is None else value
    return _(sentence).format(**values)


def detail_text(warning: str) -> str:
    """The reader's own account of a warning for the host, in the current language (ids and
    probabilities; decimals in the language's style). A warning without a code is its text."""
    if not isinstance(warning, Note):
        return str(warning)
    kind = warning.kind
    return _formatted(_(kind.template), kind, warning.params, english=False)


def kind_name(warning: str) -> str:
    """A warning's code with the codes nested in it (`read_changed(went_to_tile)`); the text
    itself for a warning without a code."""
    if not isinstance(warning, Note):
        return str(warning)
    nested = [kind_name(v) for v in warning.params.values() if isinstance(v, Note)]
    return f"{warning.code}({', '.join(nested)})" if nested else warning.code


# --- JSON: the notes beside a list of texts ----------------------------------------------------


def notes_json(warnings: Iterable[str]) -> list[dict[str, Any]]:
    """One `{code, params, text}` per warning, in order (`code: null`, no params, for a
    warning without a code): the Scene JSON's `notes` beside its `warnings`."""
    return [
        w.to_dict() if isinstance(w, Note) else {"code": None, "params": {}, "text": str(w)}
        for w in warnings
    ]


def with_notes(texts: Sequence[Any], notes: Any) -> list[str]:
    """The warnings `texts` (JSON) as Notes where `notes` (the JSON list beside them, same
    order) gives their code; plain strings otherwise (all of them when `notes` is missing).
    A note stands for a text only when its `text` is that text, taken in order: a text a
    program added or changed without its note stays plain, the others keep their codes."""
    out: list[str] = [str(t) for t in texts]
    if not isinstance(notes, list):
        return out
    entries = [n for n in notes if isinstance(n, Mapping)]
    j = 0
    for i, text in enumerate(out):
        k = next((k for k in range(j, len(entries)) if entries[k].get("text") == text), None)
        if k is None:
            continue
        j = k + 1
        if entries[k].get("code") in KINDS:
            try:
                out[i] = Note.from_dict(entries[k], text)
            except (TypeError, ValueError, KeyError):
                continue
    return out


def notes_of(scene: Mapping[str, Any], key: str = "warnings") -> list[str]:
    """A Scene dict's `warnings` (or a layout dict's `doubts`) as Notes where it has codes."""
    return with_notes(list(scene.get(key) or []), scene.get("notes"))
