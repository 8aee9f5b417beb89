"""When a round's ruling must wait for the host: the ledger first, then the verdict (issue 32).

A verdict is only as good as the readings it is made on. `rules.check` judges the tiles it
is given; the ledger (`rules.ledger.reconcile`) says whether those tiles add up to the set.
`hold_reasons` puts the two together, the way `dominocam round` and the simulation of
`measure.round_simulation` decide whether to rule or to ask:

* `DOES_NOT_ADD_UP`: the ledger found a problem (a tile in two places, a tile nowhere, a
  count above the deal...). Some reading is wrong, so no ruling on them counts.
* `BONEYARD_UNKNOWN`: nobody can play the tiles as read, the variant draws, and the
  boneyard's count comes from no source of its own (neither counted in a photo nor entered
  by the host). A block needs the boneyard exhausted (RULES.md section 1, condition 2):
  that must be known, not assumed. A count the ledger only derived (the set less every
  other place) is not enough: a tile missed in a photo would be counted as in the boneyard,
  and a tile read that is not there would empty it. When someone can play, the round is not
  blocked whatever the boneyard holds, so that ruling needs no count.

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


def boneyard_known(ledger: Ledger) -> bool:
    """True when the boneyard's count was counted or entered, or the game never draws (its
    undealt tiles sleep: nothing can be drawn whatever their count)."""
    return not ledger.deal.draws or ledger.boneyard.source in OWN_SOURCES


def needs_boneyard(verdict: Verdict | None) -> bool:
    """True when the ruling turns on the boneyard: nobody can play the tiles as read, and
    nobody has gone out (a round ended by domino is no block). No verdict (the readings
    could not be judged) counts as needing it."""
    return verdict is None or (verdict.no_playable_end and not verdict.went_out)


def hold_reasons(ledger: Ledger, verdict: Verdict | None) -> tuple[HoldReason, ...]:
    """Why the ruling on the readings must wait for the host; empty when it may be given.

    Args:
        ledger: the round's ledger, from the same readings.
        verdict: `rules.check` of the readings (with the boneyard taken as empty when its
            count is unknown), or None when they could not be judged (an invalid state).
    """
    reasons = []
    if not ledger.adds_up:
        reasons.append(HoldReason.DOES_NOT_ADD_UP)
    if needs_boneyard(verdict) and not boneyard_known(ledger):
        reasons.append(HoldReason.BONEYARD_UNKNOWN)
    return tuple(reasons)


__all__ = ["OWN_SOURCES", "HoldReason", "boneyard_known", "hold_reasons", "needs_boneyard"]
