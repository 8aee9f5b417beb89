"""The round's ledger in the dashboard's and tournament's words, in the reader's language.

A problem's own words are every mode's (`dominocam.rules.ledger_words.problem_text`); here are what
the web pages add, one place for both stores: why a ruling waits and what the host does about it
(`wait_text`), what players read meanwhile (`public_message`: nothing of any hand), what a player
hears of their own hand alone (`owner_on_table`), and the round's result. A problem names tiles and
hands: the host's screen, or the round's result once it has ended.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dominocam.i18n import N_, _, ngettext
from dominocam.rounds.ledger import (
    RoundFacts,
    Ruling,
    cells,
    decide,
    problems_signature,
)
from dominocam.rules.hold import HoldReason
from dominocam.rules.ledger import Holder, HolderKind, Problem, ProblemCode
from dominocam.rules.ledger_words import and_text, problem_text, tiles_text
from dominocam.rules.tiles import Tile

# Marked here, translated where shown (the request's language).
HOST_CHECKING = N_("A tile needs checking before a ruling: the table host is checking the round.")
BONEYARD_NEEDED = N_(
    "The boneyard must be counted before a block is ruled: the table host enters its count."
)


def wait_text(reasons: Iterable[HoldReason | str], to_confirm: Sequence[str] = ()) -> list[str]:
    """What the host reads about a ruling that waits: one sentence per reason."""
    out = []
    for reason in reasons:
        if reason == HoldReason.HANDS_TO_CONFIRM:
            out.append(to_confirm_message(to_confirm))
        elif reason == HoldReason.DOES_NOT_ADD_UP:
            out.append(
                _(
                    "The round does not add up: correct the table or a hand, or score it on "
                    "your word with a reason."
                )
            )
        elif reason == HoldReason.COUNTS_OPEN:
            out.append(
                _(
                    "Not every count is known (the table's face-down tiles, a table not read, "
                    "or a boneyard nobody counted): a tile left out of a hand would not show. "
                    "Look at the picture of the set, then give the ruling yourself."
                )
            )
        elif reason == HoldReason.BONEYARD_UNKNOWN:
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
    if set(reasons) == {HoldReason.BONEYARD_UNKNOWN}:
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
    ).format(names=and_text(list(players)))


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


def host_ledger(
    facts: RoundFacts, went_out: str | None, boneyard: int | None, boneyard_source: str | None
) -> dict[str, Any]:
    """The round's ledger as the host's screen shows it, in both modes (host only: it names
    hands' tiles): the set as cells, each problem in words, what a ruling the host gives now
    waits for, the host's override, and the boneyard's count as stored.

    Args:
        facts: the round (`round_ledger.round_facts`).
        went_out: the player who went out (the ruling is then a domino, else a block).
        boneyard, boneyard_source: the stored count and where it came from.
    """
    ruling = Ruling.DOMINO if went_out else Ruling.BLOCK
    decision = decide(facts, ruling, went_out, by_host=True)
    ledger = decision.ledger
    waits = [str(reason) for reason in getattr(decision, "reasons", ())]
    to_confirm = list(getattr(decision, "to_confirm", ()))
    override = facts.override
    return {
        **ledger.to_dict(),
        "cells": [cell.to_dict() for cell in cells(ledger)],
        "problems_shown": [problem_text(p, ledger.max_pip) for p in ledger.problems],
        "ruling": str(ruling),
        "waits": waits,
        "waits_shown": wait_text(waits, to_confirm),
        "to_confirm": to_confirm,
        "override": (
            None
            if override is None
            else {
                "reason": override.reason,
                "applies": override.problems == problems_signature(ledger),
            }
        ),
        "boneyard_entered": {"count": boneyard, "source": boneyard_source},
    }


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
    "host_ledger",
    "owner_on_table",
    "public_message",
    "result_text",
    "stored_problem_text",
    "to_confirm_message",
    "wait_text",
]


def ledger_entry(ledger: Mapping[str, Any] | None, max_pip: int) -> dict[str, Any] | None:
    """An ended round's ledger as its result kept it (`RulingGo.to_dict`), in words: "all 28
    tiles accounted for", or the host's word and the problems it overrode (None for a round
    scored before the ledger was kept). Shown with the result, once the round has ended."""
    if not ledger:
        return None
    override = ledger.get("override") or {}
    return {
        "text": result_text(dict(ledger)),
        "closes": bool(ledger.get("closes")),
        "overridden": bool(override),
        "reason": override.get("reason"),
        "problems": [stored_problem_text(p, max_pip) for p in override.get("problems") or []],
    }


def checking(pending_end: Mapping[str, Any] | None) -> str | None:
    """What everybody reads while a ruling waits for the table host's check
    (`public_message`: no tile, no hand), or None when none waits."""
    if not pending_end or not pending_end.get("waiting"):
        return None
    return public_message(pending_end.get("reasons") or [])
