"""The round's ledger in words, in the reader's language (`rules.i18n`).

`server.game.round_ledger` and `rules.ledger` give codes and numbers only; the words are
here, one place for both stores. Which words go to whom is the caller's care: a problem
names tiles and hands (`problem_text`: the host's screen, or the round's result once it has
ended); players hear only that the host is checking (`public_message`), and a player hears
of their own hand alone (`owner_on_table`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rules.i18n import N_, _, ngettext
from rules.ledger import Holder, HolderKind, Problem, ProblemCode
from rules.tiles import Tile
from server.game.round_ledger import WaitReason

# Marked here, translated where shown (the request's language).
HOST_CHECKING = N_("A tile needs checking before a ruling: the table host is checking the round.")
BONEYARD_NEEDED = N_(
    "The boneyard must be counted before a block is ruled: the table host enters its count."
)


def tiles_text(tiles: Iterable[Tile]) -> str:
    return " ".join(f"{tile.low}-{tile.high}" for tile in tiles)


def place_text(holder: Holder) -> str:
    """Where a tile was read (or may lie), as a phrase: "on the table", "in Ana's hand"."""
    if holder.kind is HolderKind.HAND:
        if holder.pending:
            return _("in {name}'s hand (read, not confirmed)").format(name=holder.player)
        return _("in {name}'s hand").format(name=holder.player)
    return {
        HolderKind.TABLE: _("on the table"),
        HolderKind.BONEYARD: _("in the boneyard"),
        HolderKind.SLEEPING: _("among the tiles set aside"),
        HolderKind.FACE_DOWN: _("face down on the table"),
    }[holder.kind]


def _and(phrases: Sequence[str]) -> str:
    if len(phrases) < 2:
        return "".join(phrases)
    return _("{first} and {last}").format(first=", ".join(phrases[:-1]), last=phrases[-1])


def problem_text(problem: Problem, max_pip: int) -> str:
    """One problem of the ledger as a sentence for the host: which tile, where, whose hand."""
    tiles = tiles_text(problem.tiles)
    places = _and([place_text(h) for h in problem.holders])
    player = problem.players[0] if problem.players else ""
    expected, found = problem.expected, problem.found
    code = problem.code
    if code is ProblemCode.TILE_TWICE:
        return _("{tile} is in two places: {places}.").format(tile=tiles, places=places)
    if code is ProblemCode.TILE_OUTSIDE_SET:
        return _("{tile} is not a tile of the double-{set} set: read {places}.").format(
            tile=tiles, set=max_pip, places=places
        )
    if code is ProblemCode.TILE_NOWHERE:
        return ngettext(
            "{expected} tiles in the set, {found} seen: {tiles} is nowhere.",
            "{expected} tiles in the set, {found} seen: {tiles} are nowhere.",
            len(problem.tiles),
        ).format(expected=expected, found=found, tiles=tiles)
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


def wait_text(reasons: Iterable[WaitReason | str], to_confirm: Sequence[str] = ()) -> list[str]:
    """What the host reads about a ruling that waits: one sentence per reason."""
    out = []
    for reason in reasons:
        if reason == WaitReason.HANDS_TO_CONFIRM:
            out.append(to_confirm_message(to_confirm))
        elif reason == WaitReason.DOES_NOT_ADD_UP:
            out.append(
                _(
                    "The round does not add up: correct the table or a hand, or score it on "
                    "your word with a reason."
                )
            )
        elif reason == WaitReason.BONEYARD_UNKNOWN:
            out.append(
                _(
                    "The boneyard's count is not known, and a block needs it empty: count it "
                    "and enter it."
                )
            )
        else:  # the rules engine refused the round (its words are in `rules_refusal`)
            out.append(_("The rules engine refused the round: see below."))
    return out


def public_message(reasons: Iterable[str]) -> str:
    """What everybody reads while a ruling waits for the host: nothing of any hand."""
    if set(reasons) == {WaitReason.BONEYARD_UNKNOWN}:
        return _(BONEYARD_NEEDED)
    return _(HOST_CHECKING)


def to_confirm_message(players: Sequence[str]) -> str:
    """Whose hands wait for their owners' confirmation (names only: no tile, no count)."""
    return ngettext(
        "Play went on since the hands were confirmed: {names} confirms their hand again (as "
        "it is, or corrected) before a ruling.",
        "Play went on since the hands were confirmed: {names} confirm their hands again (as "
        "they are, or corrected) before a ruling.",
        len(players),
    ).format(names=_and(list(players)))


def owner_on_table(tiles: Sequence[Tile]) -> str:
    """For the hand's owner alone: tiles of their hand that the table photo shows."""
    return ngettext(
        "{tiles} is now on the table: take it out of your hand and confirm.",
        "{tiles} are now on the table: take them out of your hand and confirm.",
        len(tiles),
    ).format(tiles=tiles_text(tiles))


def stored_problem_text(data: dict[str, Any], max_pip: int) -> str:
    """`problem_text` of a problem kept as `Problem.to_dict()` (a round's result)."""
    problem = Problem(
        ProblemCode(data["code"]),
        tuple(Tile.of(a, b) for a, b in data.get("tiles") or []),
        tuple(
            Holder(HolderKind(h["kind"]), h.get("player"), bool(h.get("pending")))
            for h in data.get("holders") or []
        ),
        data.get("expected"),
        data.get("found"),
    )
    return problem_text(problem, max_pip)


def result_text(ledger: dict[str, Any] | None) -> str | None:
    """The ledger line of an ended round's result (`RulingGo.to_dict`), or None for a round
    scored before the ledger was kept."""
    if not ledger:
        return None
    size = ledger.get("set_size")
    if ledger.get("override"):
        return _("Scored on the host's word, though the round did not add up: {reason}").format(
            reason=ledger["override"].get("reason")
        )
    if ledger.get("closes"):
        return _("All {count} tiles accounted for.").format(count=size)
    return _(
        "Nothing read contradicts the set of {count} tiles (not every count was known)."
    ).format(count=size)


__all__ = [
    "BONEYARD_NEEDED",
    "HOST_CHECKING",
    "owner_on_table",
    "place_text",
    "problem_text",
    "public_message",
    "result_text",
    "stored_problem_text",
    "tiles_text",
    "to_confirm_message",
    "wait_text",
]
