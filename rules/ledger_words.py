"""The ledger's problems in words, in the reader's language (`dominocam.i18n`): one wording for
the dashboard, tournament mode and `dominocam round`.

`dominocam.rules.ledger` says what does not add up in codes and numbers (`Problem`); this module
says it as a host would ("2-6 is in two places: in Ana's hand and in Caro's hand."). A problem names
tiles and hands, so its words are for the host (or for a round that has ended); who may read them is
the caller's care (`dominocam.rounds.ledger_words.public_message` is what players read). What to do
about a problem depends on the screen (a button, a command-line option): each caller adds that
itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dominocam.i18n import _, format_number, ngettext
from dominocam.rules.ledger import Holder, HolderKind, Problem, ProblemCode
from dominocam.rules.tiles import Tile

# A problem lists at most this many tiles by name, then says how many more.
MAX_NAMED_TILES = 10
# The problems that a deal other than the variant's explains (the house deals its own way).
DEAL_PROBLEMS = frozenset(
    {
        ProblemCode.HAND_ABOVE_DEAL,
        ProblemCode.BONEYARD_ABOVE_DEAL,
        ProblemCode.SLEEPING_NOT_AS_DEALT,
    }
)


def tiles_text(tiles: Iterable[Tile]) -> str:
    """Tiles as players write them, "2-6 3-3"."""
    return " ".join(f"{tile.low}-{tile.high}" for tile in tiles)


def tile_list(tiles: Sequence[Tile]) -> str:
    """Tiles by name, the first `MAX_NAMED_TILES` of them and how many more."""
    named = ", ".join(str(tile) for tile in tiles[:MAX_NAMED_TILES])
    more = len(tiles) - MAX_NAMED_TILES
    if more <= 0:
        return named
    return ngettext("{tiles} and {count} more", "{tiles} and {count} more", more).format(
        tiles=named, count=format_number(more)
    )


def place_text(holder: Holder, marks_pending: bool = True) -> str:
    """Where a tile was read (or may lie), as a phrase: "on the table", "in Ana's hand";
    "(read, not confirmed)" after a hand its owner has not confirmed, if `marks_pending`."""
    if holder.kind is HolderKind.HAND:
        if holder.pending and marks_pending:
            return _("in {name}'s hand (read, not confirmed)").format(name=holder.player)
        return _("in {name}'s hand").format(name=holder.player)
    return {
        HolderKind.TABLE: _("on the table"),
        HolderKind.BONEYARD: _("in the boneyard"),
        HolderKind.SLEEPING: _("among the tiles set aside"),
        HolderKind.FACE_DOWN: _("face down on the table"),
    }[holder.kind]


def and_text(phrases: Sequence[str]) -> str:
    """ "a, b and c"."""
    if len(phrases) < 2:
        return "".join(phrases)
    return _("{first} and {last}").format(first=", ".join(phrases[:-1]), last=phrases[-1])


def _twice_text(problem: Problem, marks_pending: bool) -> str:
    tile = tiles_text(problem.tiles)
    holders = problem.holders
    if len(holders) == 2 and all(h.kind is HolderKind.TABLE for h in holders):
        text = _("{tile} is on the table twice").format(tile=tile)
    elif len(holders) == 2:
        places = and_text([place_text(h, marks_pending) for h in holders])
        return _("{tile} is in two places: {places}.").format(tile=tile, places=places)
    else:
        text = ngettext(
            "{tile} is read in {count} places: {places}",
            "{tile} is read in {count} places: {places}",
            len(holders),
        ).format(
            tile=tile,
            count=format_number(len(holders)),
            places=", ".join(place_text(h, marks_pending) for h in holders),
        )
    return text + "."


def problem_text(problem: Problem, max_pip: int, marks_pending: bool = True) -> str:
    """One problem of the ledger as a sentence for the host: which tile, where, whose hand.

    `marks_pending`: say which hands are readings their owners have not confirmed (the
    dashboard has both kinds; on the command line every hand is a reading, so it says
    nothing there)."""
    code = problem.code
    expected = format_number(problem.expected or 0)
    found = format_number(problem.found or 0)
    player = problem.players[0] if problem.players else ""
    if code is ProblemCode.TILE_TWICE:
        return _twice_text(problem, marks_pending)
    if code is ProblemCode.TILE_OUTSIDE_SET:
        places = and_text([place_text(h, marks_pending) for h in problem.holders])
        return _("{tile} is not a tile of the double-{set} set: read {places}.").format(
            tile=tiles_text(problem.tiles), set=max_pip, places=places
        )
    if code is ProblemCode.TILE_NOWHERE:
        return ngettext(
            "{expected} tiles in the set, {found} seen: {tiles} is nowhere.",
            "{expected} tiles in the set, {found} seen: {tiles} are nowhere.",
            len(problem.tiles),
        ).format(expected=expected, found=found, tiles=tile_list(problem.tiles))
    if code is ProblemCode.TOO_MANY_TILES:
        return _(
            "The table, the hands and the boneyard hold at least {found} tiles, more than the "
            "{expected} of the set."
        ).format(found=found, expected=expected)
    if code is ProblemCode.TOO_FEW_TILES:
        return _(
            "The table, the hands and the boneyard hold at most {found} of the {expected} "
            "tiles of the set: a tile was missed on the table or in a hand."
        ).format(found=found, expected=expected)
    if code is ProblemCode.HAND_COUNT_DIFFERS:
        return _("{name} holds {expected} tiles, but the hand lists {found}.").format(
            name=player, expected=expected, found=found
        )
    if code is ProblemCode.HAND_ABOVE_DEAL:
        return _(
            "{name}'s hand lists {found} tiles, more than the {expected} a hand can hold in "
            "this game."
        ).format(name=player, found=found, expected=expected)
    if code is ProblemCode.STOCK_COUNTS_DIFFER and any(
        holder.kind is HolderKind.SLEEPING for holder in problem.holders
    ):
        return _(
            "The tiles set aside were given as {expected}, but {found} lie face down as the stock."
        ).format(expected=expected, found=found)
    if code is ProblemCode.STOCK_COUNTS_DIFFER:
        return _(
            "The boneyard was given as {expected} tiles, but {found} lie face down as the stock."
        ).format(expected=expected, found=found)
    if code is ProblemCode.BONEYARD_ABOVE_DEAL:
        return _(
            "The boneyard holds {found} tiles, more than the {expected} the deal left."
        ).format(found=found, expected=expected)
    return _("{found} tiles set aside, but the deal sets aside {expected}.").format(
        found=found, expected=expected
    )


__all__ = [
    "DEAL_PROBLEMS",
    "MAX_NAMED_TILES",
    "and_text",
    "place_text",
    "problem_text",
    "tile_list",
    "tiles_text",
]
