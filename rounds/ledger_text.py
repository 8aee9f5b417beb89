"""The round's ledger for `dominocam round`: Scenes in, reports out, problems in words.

`dominocam.rules.ledger.reconcile` counts one round's readings against the set and says what does
not add up in machine codes. This module is the command line's side of it:

* Scenes -> reports: `hand_report` (a hand photo's read tiles, and its count when the photo
  shows tiles it could not read), `table_report` (the table's face-up tiles, its face-down
  count, and whether those are the whole stock), `boneyard_report` (`--boneyard N`).
* Words, in the language of `dominocam.i18n.use_language`: `problem_text` (each problem in the
  words of every mode, `dominocam.rules.ledger_words`, with the command's own hints), `stock_text`
  (the boneyard's count and where it comes from) and `ledger_text` (`--ledger`: a grid of the set,
  one character per tile, with a legend).

The command is run by the host at the table, so naming the tiles of every hand is fine here (the
dashboard filters a problem before it shows it to a player: `dominocam.rules.ledger` docstring).
Pure functions on Scenes and the ledger's typed values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dominocam.i18n import _, format_number
from dominocam.rules import ledger_words
from dominocam.rules.ledger import (
    BoneyardReport,
    CountSource,
    FaceDown,
    HandReport,
    Holder,
    HolderKind,
    Ledger,
    PlaceStatus,
    Problem,
    StockCount,
    TableReport,
)
from dominocam.rules.tiles import Tile

# The grid's characters for places that are not a player's hand.
TABLE_MARK = "T"
STOCK_MARK = "B"  # the boneyard, or the sleeping tiles of a game that never draws
UNSEEN_MARK = "."  # read nowhere, and more than one hidden place may hold it
TWICE_MARK = "!"
NOWHERE_MARK = "?"
RESERVED_MARKS = frozenset({TABLE_MARK, STOCK_MARK, UNSEEN_MARK, TWICE_MARK, NOWHERE_MARK})
# Players' characters when the initial will not do: the seat number first, then these.
SPARE_MARKS = "0123456789ACDEFGHIJKLMNOPQRSUVWXYZ"


# --- Scenes -> reports ---------------------------------------------------------------------


def _read_tiles(scene: Any) -> list[Tile]:
    """The read face-up tiles of a Scene, doubtful ones included: a doubtful read is still
    a claim that a tile is there (the Scene's review asks a person to look at it)."""
    return [Tile.of(*tile.pips) for tile in scene.tiles if tile.face == "up" and tile.pips]


def hand_report(name: str, scene: Any) -> HandReport:
    """A hand photo's report: the tiles read, and the photo's count of tiles when some of them
    were not read (face down, unread), so that the ledger says the hand is not all read.

    Pending, not confirmed: on the command line no player has confirmed their reading.
    """
    read = _read_tiles(scene)
    shown = len(scene.tiles)
    return HandReport.pending(name, read, count=shown if shown != len(read) else None)


def table_report(scene: Any, boneyard_in_view: bool = False) -> TableReport:
    """The table photo's report.

    Args:
        scene: the table Scene.
        boneyard_in_view: the host says the photo's face-down tiles are the whole stock (the
            boneyard, or the sleeping tiles of a game that never draws): they are its count.
            Otherwise they are of unsaid place, and a face-up tile that was not read is
            counted with them (a tile of unknown identity, like a face-down one).
    """
    unread = sum(tile.face == "up" and not tile.pips for tile in scene.tiles)
    if boneyard_in_view:
        return TableReport(tuple(_read_tiles(scene)), scene.face_down, FaceDown.STOCK)
    return TableReport(tuple(_read_tiles(scene)), scene.face_down + unread, FaceDown.UNSORTED)


def boneyard_report(count: int | None) -> BoneyardReport:
    """`--boneyard N`: entered by the host; without it, unknown (never 0 by default)."""
    return BoneyardReport.unknown() if count is None else BoneyardReport.entered(count)


# --- problems in words ----------------------------------------------------------------------


def problem_text(problem: Problem, max_pip: int) -> str:
    """One problem in the words of every mode (`dominocam.rules.ledger_words`), with what to do
    about a deal on the command line: the house's deal is given with --hand-size."""
    text = ledger_words.problem_text(problem, max_pip, marks_pending=False)
    if problem.code in ledger_words.DEAL_PROBLEMS:
        text += " " + _("If the house deals otherwise, give its deal with --hand-size N.")
    return text


# --- the stock and the grid -----------------------------------------------------------------


def _count_source(stock: StockCount) -> str:
    return {
        CountSource.COUNTED: _("counted: the face-down tiles of the table photo"),
        CountSource.ENTERED: _("entered"),
        CountSource.DEAL: _("fixed by the deal"),
        CountSource.DERIVED: _("derived: the set less the table and the hands"),
    }.get(stock.source, "")


def stock_text(ledger: Ledger) -> str:
    """The boneyard's (or the sleeping tiles') count and where it comes from, one line."""
    stock = ledger.boneyard if ledger.deal.draws else ledger.sleeping
    label = _("Boneyard") if ledger.deal.draws else _("Sleeping tiles")
    if stock.count is not None:
        value = _("{count} ({source})").format(
            count=format_number(stock.count), source=_count_source(stock)
        )
    elif stock.at_most is not None:
        value = _("unknown (between {low} and {high})").format(
            low=format_number(stock.at_least), high=format_number(stock.at_most)
        )
    elif stock.at_least:
        value = _("unknown (at least {low})").format(low=format_number(stock.at_least))
    else:
        value = _("unknown")
    return _("{label}: {value}").format(label=label, value=value)


def player_marks(names: Sequence[str]) -> dict[str, str]:
    """Each player's character in the grid: the initial, upper case, when it is nobody
    else's and no place's (Ben's B is the boneyard's); else the seat number, 1-9."""
    initials = [name.strip()[:1].upper() for name in names]
    taken = set(RESERVED_MARKS)
    marks: dict[str, str] = {}
    for seat, (name, initial) in enumerate(zip(names, initials, strict=True), start=1):
        unique = initial.isalpha() and initials.count(initial) == 1 and initial not in taken
        pool = [initial] if unique else []
        pool += [str(seat % 10), *SPARE_MARKS]
        marks[name] = next(mark for mark in pool if mark not in taken)
        taken.add(marks[name])
    return marks


def _mark(status: PlaceStatus, holders: Sequence[Holder], marks: dict[str, str]) -> str:
    if status is PlaceStatus.TWICE:
        return TWICE_MARK
    if status is PlaceStatus.NOWHERE:
        return NOWHERE_MARK
    if status is PlaceStatus.UNSEEN:
        # Only when the stock is the one place left can the tile be said to lie there.
        stock = (HolderKind.BONEYARD, HolderKind.SLEEPING)
        only_stock = len(holders) == 1 and holders[0].kind in stock
        return STOCK_MARK if only_stock else UNSEEN_MARK
    holder = holders[0]
    return TABLE_MARK if holder.player is None else marks[holder.player]


def ledger_grid(ledger: Ledger, names: Sequence[str]) -> list[str]:
    """The set as a grid: tile a-b (a <= b) at row a, column b, one character each."""
    n = ledger.max_pip
    width = len(str(n)) + 1
    marks = player_marks(names)
    lines = [" " * width + "".join(str(b).rjust(width) for b in range(n + 1))]
    for a in range(n + 1):
        cells = [" " * width] * a
        for b in range(a, n + 1):
            place = ledger.places[Tile(a, b)]
            cells.append(_mark(place.status, place.holders, marks).rjust(width))
        lines.append(str(a).rjust(width) + "".join(cells))
    return lines


def ledger_text(ledger: Ledger, names: Sequence[str]) -> str:
    """`dominocam round --ledger`: the grid, its legend, the stock, and whether every tile of
    the set is accounted for (or what does not add up)."""
    marks = player_marks(names)
    stock = _("B boneyard") if ledger.deal.draws else _("B sleeping tiles")
    players = ", ".join(f"{marks[name]} {name}" for name in names)
    legend = _("T table, {players}, {stock}, . not seen (hidden), ! read twice, ? nowhere").format(
        players=players, stock=stock
    )
    lines = [
        _("Ledger: double-{set} set, {total} tiles; tile a-b at row a, column b.").format(
            set=ledger.max_pip, total=format_number(ledger.set_size)
        ),
        *ledger_grid(ledger, names),
        legend,
        stock_text(ledger),
    ]
    if ledger.problems:
        lines.append(_("Does not add up:"))
        lines += [f"  - {problem_text(p, ledger.max_pip)}" for p in ledger.problems]
    elif ledger.closes:
        lines.append(
            _("All {total} tiles accounted for.").format(total=format_number(ledger.set_size))
        )
    else:
        lines.append(
            _(
                "Nothing contradicts, but not every count is known: a tile missed in a photo "
                "would not show."
            )
        )
    return "\n".join(lines)


__all__ = [
    "boneyard_report",
    "hand_report",
    "ledger_grid",
    "ledger_text",
    "player_marks",
    "problem_text",
    "stock_text",
    "table_report",
]
