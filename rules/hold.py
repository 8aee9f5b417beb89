"""When a round's ruling must wait for the host: the one policy of every mode (issue 32).

A verdict is only as good as the readings it is made on. `rules.check` judges the tiles it is given;
the ledger (`dominocam.rules.ledger.reconcile`) says whether those tiles add up to the set.
`hold_reasons` puts the two together. The single-table dashboard and tournament mode (through
`dominocam.rounds.ledger.decide`), `dominocam round` and the simulation of
`studies.round_simulation` all ask it whether to rule or to wait:

* `HANDS_TO_CONFIRM`: a hand confirmed before play went on again (a stopped block check, an
  unlock, a reopened round) may still list tiles played since, and a hand never confirmed is
  a claim: their owners confirm them first. It comes alone: the rest is judged after.
* `DOES_NOT_ADD_UP`: the ledger found a problem (a tile in two places, a tile nowhere, a
  count above the deal...). Some reading is wrong, so no ruling on them counts.
* `BONEYARD_UNKNOWN`: the ruling is a block, the variant draws, and the boneyard's count
  comes from no source of its own (neither counted in a photo nor entered by the host). A
  block needs the boneyard exhausted (docs/rules.md, the blocked game, condition 2): that
  must be known, not assumed. A count the ledger only derived (the set less every other
  place) is not enough: a tile missed in a photo would be counted as in the boneyard, and a
  tile read that is not there would empty it.
* `COUNTS_OPEN`: the ruling rests on something absent (below), and the ledger does not close:
  face-down tiles on the table whose place nobody said, a table not read, a boneyard nobody
  counted, or a deal not known. An unknown count can swallow a tile a photo missed, or one a
  player left out of their own hand (`dominocam.rules.ledger`: `Ledger.closes`).

A ruling *rests on something absent* when it ends the round: a block says that no tile
can be played or drawn, a domino that a hand is empty. A tile missed in a photo would make
either, and only counts that close prove nothing is missing. A ruling that play goes on
rests on a tile read (someone can play) or on a boneyard counted with tiles to draw: a tile
missing from the photos cannot change it, so it is given whatever the other counts (a
misread into a tile in no other place is the one error no counting sees).

The host answers the two reasons about the readings: `DOES_NOT_ADD_UP` by their word with a
reason (`overridden`: kept in the audit trail and the round's result), `COUNTS_OPEN` by giving
the ruling themselves (`host_rules`): the host's screen shows which counts are not known, and
the round's result says that not every count was. Neither answers a hand its owner has not
confirmed, nor a block's boneyard nobody counted (a count is quicker to give than a reason).

Pure functions on the ledger and the verdict; no words (`dominocam.rules.ledger_words` writes them).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from dominocam.rules.ledger import CountSource, Ledger
from dominocam.rules.verdict import Verdict

# Sources of a boneyard count that a person stands behind: it was counted or entered.
OWN_SOURCES = frozenset({CountSource.COUNTED, CountSource.ENTERED})


class HoldReason(StrEnum):
    """Why a ruling waits for the host (the module docstring says what resolves each)."""

    HANDS_TO_CONFIRM = "hands-to-confirm"
    DOES_NOT_ADD_UP = "does-not-add-up"
    BONEYARD_UNKNOWN = "boneyard-unknown"
    COUNTS_OPEN = "counts-open"


def boneyard_known(ledger: Ledger) -> bool:
    """True when the boneyard's count was counted or entered, or the game never draws (its
    undealt tiles sleep: nothing can be drawn whatever their count)."""
    return not ledger.deal.draws or ledger.boneyard.source in OWN_SOURCES


def judged_boneyard(ledger: Ledger) -> int:
    """The undealt tiles' count the rules engine judges with.

    In a game that draws: the boneyard's count as counted or entered; 0 when nobody gave it,
    as a stand-in only: a block judged on it waits (`BONEYARD_UNKNOWN`), and only a ruling
    that a player can play (true whatever the boneyard holds) is given. In a game that never
    draws: the sleeping tiles (nothing can be drawn from them; the ruling's words name them).
    """
    stock = ledger.boneyard if ledger.deal.draws else ledger.sleeping
    return stock.count if stock.count is not None and boneyard_known(ledger) else 0


def rests_on_absence(verdict: Verdict | None) -> bool:
    """True when the ruling ends the round, a block or a domino, so that it says something
    is absent (module docstring). No verdict (the readings could not be judged) counts as
    one."""
    return verdict is None or verdict.blocked or bool(verdict.went_out)


def verdict_hold(ledger: Ledger, verdict: Verdict | None) -> tuple[HoldReason, ...]:
    """`hold_reasons` of a verdict judged without the host (`dominocam round`, the
    simulation): with the boneyard `judged_boneyard`, or None when the readings could not be
    judged (a block and a domino both, then)."""
    blocks = verdict is None or verdict.blocked
    return hold_reasons(ledger, rests_on_absence(verdict), blocks=blocks)


def hold_reasons(
    ledger: Ledger,
    ends_round: bool,
    *,
    blocks: bool = False,
    to_confirm: Sequence[str] = (),
    overridden: bool = False,
    host_rules: bool = False,
) -> tuple[HoldReason, ...]:
    """Why the ruling on the readings must wait for the host; empty when it may be given.

    Args:
        ledger: the round's ledger, from the same readings.
        ends_round: the ruling ends the round (`rests_on_absence` of its verdict, judged
            with `judged_boneyard`, or a block or domino asked for before judging).
        blocks: the ruling is a block (condition 2 needs the boneyard's count).
        to_confirm: the players whose hands wait for their owners' confirmation.
        overridden: the host rules on their word, for the problems this ledger has
            (the caller checks that the word was given for exactly these).
        host_rules: the host gives the ruling, looking at the ledger on their screen.
    """
    if to_confirm:
        return (HoldReason.HANDS_TO_CONFIRM,)
    reasons = []
    if not ledger.adds_up and not overridden:
        reasons.append(HoldReason.DOES_NOT_ADD_UP)
    if ends_round:
        if blocks and not boneyard_known(ledger):
            reasons.append(HoldReason.BONEYARD_UNKNOWN)
        elif not ledger.closes and not host_rules:
            reasons.append(HoldReason.COUNTS_OPEN)
    return tuple(reasons)


__all__ = [
    "OWN_SOURCES",
    "HoldReason",
    "boneyard_known",
    "hold_reasons",
    "judged_boneyard",
    "rests_on_absence",
    "verdict_hold",
]
