"""Where a line lies and how a player names it: words, never a line's number.

A player does not know "line 5"; they see an open end and where it lies on the table ("the 5
at the top right"), or whose train it is ("Ana's train"). A table photo's line carries its
*place*: which ninth of the photo (thirds across, thirds down) its open end lies in, one of
`PLACES` ("top-right"). `place_of` finds it from a point in the photo's pixels;
`place_words` and `line_words` say it in the reader's language (`dominocam.i18n`).

Pure Python: the reader (`vision`), the rules and the server all use it.
"""

from __future__ import annotations

from dominocam.i18n import N_, _
from dominocam.rules.phrases import Phrase, Template

# The nine places by thirds of the photo, rows from the top, columns from the left.
PLACES: tuple[tuple[str, str, str], ...] = (
    ("top-left", "top", "top-right"),
    ("left", "middle", "right"),
    ("bottom-left", "bottom", "bottom-right"),
)
PLACE_CODES: frozenset[str] = frozenset(code for row in PLACES for code in row)
_WORDS = {
    "top-left": N_("at the top left"),
    "top": N_("at the top"),
    "top-right": N_("at the top right"),
    "left": N_("on the left"),
    "middle": N_("in the middle"),
    "right": N_("on the right"),
    "bottom-left": N_("at the bottom left"),
    "bottom": N_("at the bottom"),
    "bottom-right": N_("at the bottom right"),
}

# Kinds of open end (`dominocam.rules.layout.OpenEnd.kind`), repeated here so this module imports
# nothing of the layout.
_SPINNER_ARM, _TRAIN, _LEAD = "spinner-arm", "train", "lead"


def place_of(point: tuple[float, float], width: float, height: float) -> str:
    """The place (`PLACES`) of `point`, in pixels from the top-left corner of a `width` x
    `height` photo, by thirds of the photo; a point on the far edge belongs to the last third."""
    x, y = point
    column = min(2, max(0, int(3 * x / width)))
    row = min(2, max(0, int(3 * y / height)))
    return PLACES[row][column]


# Each place as a stored sentence's part (`dominocam.rules.phrases`): the live camera's events
# store "at the top right" with its code, and each page writes it in its reader's language.
_PLACE_TEMPLATES = {
    code: Template(f"place_{code.replace('-', '_')}", words) for code, words in _WORDS.items()
}


def place_phrase(place: str) -> Phrase:
    """A place code as a part of a stored sentence ("at the top right", `Phrase`)."""
    if place not in PLACE_CODES:
        raise ValueError(f"unknown place {place!r}; places: {', '.join(sorted(PLACE_CODES))}")
    return _PLACE_TEMPLATES[place].format()


def place_text(place: str) -> str:
    """A place code as a player says it ("at the top right"), in the reader's language."""
    if place not in PLACE_CODES:
        raise ValueError(f"unknown place {place!r}; places: {', '.join(sorted(PLACE_CODES))}")
    return _(_WORDS[place])


def place_words(point: tuple[float, float], width: float, height: float) -> str:
    """Where `point` lies in a `width` x `height` photo, as a player says it ("at the top
    right"): by thirds of the photo."""
    return place_text(place_of(point, width, height))


def line_words(
    value: int | None,
    *,
    place: str | None = None,
    owner: str | None = None,
    kind: str = "line",
    name: str | None = None,
) -> str:
    """A line (or an open end) named as a player sees it, in the reader's language.

    In this order: its train's owner ("Ana's train"); its open end and where it lies ("the
    5 at the top right"); the public train, the spinner, the empty table; else its open end
    and the name a person gave it ("“left” (open end 5)"), or the open end alone
    ("the line ending in 5").

    Args:
        value: the pips the open end shows (None for an empty table).
        place: a place code (`PLACES`) of a line read from a photo, or None.
        owner: the player whose train it is.
        kind: `dominocam.rules.layout.OpenEnd.kind` (line, spinner-arm, train, lead).
        name: the line's name as a person typed it (never shown for a line with a place);
            None for a line nobody named (its id, "line 2", is never shown).
    """
    if kind == _LEAD or value is None:
        return _("the empty table")
    if owner is not None:
        return _("{owner}'s train").format(owner=owner)
    if place is not None:
        return _("the {end} {place}").format(end=value, place=place_text(place))
    if kind == _TRAIN:
        return _("the public train")
    if kind == _SPINNER_ARM:
        return _("the spinner")
    if name:
        return _("“{name}” (open end {end})").format(name=name, end=value)
    return _("the line ending in {end}").format(end=value)
