"""When a round's ruling must wait for the host: the ledger first, then the verdict (issue 32).

A verdict is only as good as the readings it is made on. `rules.check` judges the tiles it
is given; the ledger (`rules.ledger.reconcile`) says whether those tiles add up to the set.
`hold_reasons` puts the two together, the way `dominocam round` and the simulation of
`measure.round_simulation` decide whether to rule or to ask:

* `DOES_NOT_ADD_UP`: the ledger found a problem (a tile in two places, a tile nowhere, a
  count above the deal...). Some reading is wrong, so no ruling on them counts.
* `BONEYARD_UNKNOWN`: the ruling rests on something absent (below), the variant draws, and
  the boneyard's count comes from no source of its own (neither counted in a photo nor
  entered by the host). A block needs the boneyard exhausted (docs/rules.md, the blocked game,
  condition 2): that must be known, not assumed. A count the ledger only derived (the set
  less every other place) is not enough: a tile missed in a photo would be counted as in
  the boneyard, and a tile read that is not there would empty it.
* `COUNTS_OPEN`: the ruling rests on something absent, and the ledger does not close for
  another reason: face-down tiles on the table whose place nobody said, or a deal not known
  (a number of players the variant has no hand size for). An unknown count can swallow a
  tile a photo missed (`rules.ledger`: `Ledger.closes`).

A ruling *rests on something absent* when it ends the round: a block says that no tile
can be played or drawn, a domino that a hand is empty. A tile missed in a photo would make
either, and only counts that close prove nothing is missing. A ruling that play goes on
rests on a tile read (someone can play) or on a boneyard counted with tiles to draw: a tile
missing from the photos cannot change it, so it is given whatever the other counts (a
misread into a tile in no other place is the one error no counting sees).

Pure functions on the ledger and the verdict; no words (the callers write them).
"""

from __future__ import annotations

from enum import StrEnum

from rules.ledger import CountSource, Ledger
from rules.verdict import Verdict

# Sources of a boneyard count that a person stands behind: it was counted or entered.
OWN_SOURCES = frozenset({CountSource.COUNTED, CountSource.ENTERED})


class HoldReason(StrEnum):
    """Why a ruling waits for the host."""

    DOES_NOT_ADD_UP = "does-not-add-up"
    BONEYARD_UNKNOWN = "boneyard-unknown"
    COUNTS_OPEN = "counts-open"


def boneyard_known(ledger: Ledger) -> bool:
    """True when the boneyard's count was counted or entered, or the game never draws (its
    undealt tiles sleep: nothing can be drawn whatever their count)."""
    return not ledger.deal.draws or ledger.boneyard.source in OWN_SOURCES


def rests_on_absence(verdict: Verdict | None) -> bool:
    """True when the ruling ends the round, a block or a domino, so that it says something
    is absent (module docstring). No verdict (the readings could not be judged) counts as
    one. Judge with the boneyard taken as empty when nobody counted it: a block then."""
    return verdict is None or verdict.blocked or bool(verdict.went_out)


def hold_reasons(ledger: Ledger, verdict: Verdict | None) -> tuple[HoldReason, ...]:
    """Why the ruling on the readings must wait for the host; empty when it may be given.

    Args:
        ledger: the round's ledger, from the same readings.
        verdict: `rules.check` of the readings (with the boneyard taken as empty when its
            count is unknown: `BONEYARD_UNKNOWN` then holds every block, and only a block
            needs the count), or None when they could not be judged (an invalid state).
    """
    reasons = []
    if not ledger.adds_up:
        reasons.append(HoldReason.DOES_NOT_ADD_UP)
    if rests_on_absence(verdict):
        if not boneyard_known(ledger):
            reasons.append(HoldReason.BONEYARD_UNKNOWN)
        elif not ledger.closes:
            reasons.append(HoldReason.COUNTS_OPEN)
    return tuple(reasons)


__all__ = ["OWN_SOURCES", "HoldReason", "boneyard_known", "hold_reasons", "rests_on_absence"]
