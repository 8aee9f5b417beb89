"""The round's ledger before a ruling (issue 32): may the block check, the domino or the
scoring go on, or does the round wait - for the players, for the host?

Pure, as `lifecycle`: no database. A store reads plain values (the variant and its settings, the
set, the table photo's Scene or none, each hand and its state, the boneyard's count and where it
comes from, the host's override) and calls `round_facts`; `decide` then says whether a ruling goes
on (`RulingGo`, with the boneyard count condition 2 is judged by) or waits (`RulingWait`, with
machine codes, no words). Both stores call it: the embedded SQLite one
(`dominocam.server.game.review`, `dominocam.server.game.rulings`) and the tournament's PostgreSQL
one.

Why a ruling waits is `dominocam.rules.hold`'s to say, for every mode alike
(`dominocam.rules.hold.HoldReason`, here `WaitReason`): hands to confirm after play went on, a
ledger that does not add up (the host corrects the table or a hand, or overrides with a reason; an
override holds for the problems it saw, `problems_signature`), a block's boneyard nobody counted,
counts that do not close (a player's proposal waits for the host; the host's own ruling answers it).

What a problem names (tiles, whose hand) is for the host only: the store words it
(`dominocam.rounds.ledger_words`) on the host's screen and tells players only that the host is
checking.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from dominocam.errors import UserInputError
from dominocam.rules.hold import HoldReason as WaitReason
from dominocam.rules.hold import hold_reasons, judged_boneyard
from dominocam.rules.ledger import (
    BoneyardReport,
    CountSource,
    HandReport,
    HolderKind,
    Ledger,
    Place,
    PlaceStatus,
    TableReport,
    reconcile,
)
from dominocam.rules.tiles import Tile, parse_tile
from dominocam.rules.variants import Variant, get_variant


class HandState(StrEnum):
    """Where a hand stands before a ruling."""

    CONFIRMED = "confirmed"  # confirmed by its owner (or entered by the host) since play went on
    PENDING = "pending"  # a photo read, never confirmed: a claim, not yet the hand
    TO_CONFIRM = "to-confirm"  # confirmed before play went on again: its owner confirms again
    NONE = "none"  # nothing read or entered yet


class Ruling(StrEnum):
    """The rulings that end a round."""

    BLOCK = "block"
    DOMINO = "domino"


class CellKind(StrEnum):
    """What the host's picture of the set shows for one tile."""

    TABLE = "table"  # read face up on the table
    HAND = "hand"  # read in a hand (`Cell.players`: whose)
    HIDDEN = "hidden"  # read nowhere, with a place left that may hold it (boneyard, ...)
    NOWHERE = "nowhere"  # read nowhere, and no place left to hold it
    TWICE = "twice"  # read in two places or more


@dataclass(frozen=True)
class SeatHand:
    """One player's hand as the store knows it.

    Attributes:
        player: the player's name.
        state: `HandState`.
        tiles: the tiles listed: confirmed (CONFIRMED, and the stale ones of TO_CONFIRM) or
            read (PENDING). Those of a TO_CONFIRM hand are not counted: they may be played.
    """

    player: str
    state: HandState
    tiles: tuple[Tile, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", HandState(self.state))
        object.__setattr__(self, "tiles", tuple(self.tiles))
        if not all(isinstance(tile, Tile) for tile in self.tiles):
            raise UserInputError(f"{self.player}'s hand must hold Tile values")

    def report(self, went_out: bool = False) -> HandReport:
        """The hand as the ledger counts it; a player who went out holds nothing."""
        if went_out:
            return HandReport.confirmed(self.player, ())
        if self.state is HandState.CONFIRMED:
            return HandReport.confirmed(self.player, self.tiles)
        if self.state is HandState.PENDING:
            return HandReport.pending(self.player, self.tiles)
        return HandReport.unknown(self.player)


@dataclass(frozen=True)
class Override:
    """The host's word that a round is ruled although it does not add up.

    Attributes:
        problems: `problems_signature` of the ledger the host saw: the override holds while
            the problems stay exactly these.
        reason: why (kept in the audit trail and in the round's result).
    """

    problems: str
    reason: str


@dataclass(frozen=True)
class RoundFacts:
    """What a store knows of an open round, as the ledger takes it (`round_facts`).

    Attributes:
        variant: the variant with the game's settings.
        max_pip: n of the double-n set played.
        table: the table photo's tiles, or `TableReport.unknown()` without a photo.
        hands: every seat's hand, in seat order.
        boneyard: the boneyard's count as entered or counted, or unknown.
        override: the host's override, if any (it may no longer apply: `applies`).
        hand_size: tiles dealt to each, when not the variant's.
    """

    variant: Variant
    max_pip: int
    table: TableReport
    hands: tuple[SeatHand, ...]
    boneyard: BoneyardReport = field(default_factory=BoneyardReport.unknown)
    override: Override | None = None
    hand_size: int | None = None


@dataclass(frozen=True)
class RulingGo:
    """The ruling goes on.

    Attributes:
        ledger: the round's ledger.
        boneyard: the boneyard count the rules engine judges by (condition 2 of a block);
            0 in a game that never draws (nothing can be drawn, whatever sleeps).
        override: the host's override the ruling goes on by, or None when the round adds up.
    """

    ledger: Ledger
    boneyard: int
    override: Override | None = None

    def to_dict(self) -> dict[str, Any]:
        """What the round's result keeps of its ledger (codes and numbers; the reason)."""
        return {
            "set_size": self.ledger.set_size,
            "adds_up": self.ledger.adds_up,
            "closes": self.ledger.closes,
            "override": (
                None
                if self.override is None
                else {
                    "reason": self.override.reason,
                    "problems": [p.to_dict() for p in self.ledger.problems],
                }
            ),
        }


@dataclass(frozen=True)
class RulingWait:
    """The ruling waits.

    Attributes:
        ledger: the round's ledger.
        reasons: `WaitReason`s, at least one. `HANDS_TO_CONFIRM` comes alone: the rest is
            judged once every hand is confirmed.
        to_confirm: the players whose hands wait for their confirmation, in seat order.
    """

    ledger: Ledger
    reasons: tuple[WaitReason, ...]
    to_confirm: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.reasons:
            raise ValueError("a ruling that waits says why")


RulingDecision = RulingGo | RulingWait


# --- from what a store reads ------------------------------------------------------------------


def table_report(scene: Mapping[str, Any] | None) -> TableReport:
    """The table as the ledger counts it, from the table photo's Scene (docs/design.md), or
    a table not read when there is no Scene (the lines entered by hand).

    Every face-up tile read counts (a doubtful one too: the host checks it); a face-down tile
    is counted by its place unsaid; a box judged not a tile (`rejected`) is not a tile.
    """
    if scene is None:
        return TableReport.unknown()
    face_up: list[Tile] = []
    face_down = 0
    for tile in scene.get("tiles") or []:
        if tile.get("face") == "down" or tile.get("pips") is None:
            face_down += 1
            continue
        try:
            face_up.append(parse_tile(tile["pips"]))
        except UserInputError:
            face_down += 1  # unreadable halves: a tile of unknown face all the same
    return TableReport(face_up=tuple(face_up), face_down=face_down)


def boneyard_report(count: int | None, source: str | None) -> BoneyardReport:
    """The boneyard as stored: `source` "entered" (by the host) or "counted" (a count of the
    stock); anything else (None: never given) is unknown, whatever `count` says."""
    if count is not None and source == CountSource.ENTERED:
        return BoneyardReport.entered(count)
    if count is not None and source == CountSource.COUNTED:
        return BoneyardReport.counted(count)
    return BoneyardReport.unknown()


def round_facts(
    *,
    variant: str,
    rules: Mapping[str, object] | None,
    max_pip: int,
    table_scene: Mapping[str, Any] | None,
    hands: Iterable[SeatHand],
    boneyard: int | None = None,
    boneyard_source: str | None = None,
    override: Override | None = None,
    hand_size: int | None = None,
) -> RoundFacts:
    """`RoundFacts` from the plain values a store keeps.

    Args:
        variant, rules: the variant's name and the game's settings (`rules` overrides).
        max_pip: n of the set.
        table_scene: the table photo's Scene (with its corrections), or None without one.
        hands: each seat's hand, in seat order.
        boneyard, boneyard_source: the stored count and where it came from (`boneyard_report`):
            the tiles players draw from. A game that never draws has no such count (its
            sleeping tiles are the deal's), so a stored one is not used.
        override: the host's override, as stored.
        hand_size: tiles dealt to each, when the table deals otherwise than the variant.
    """
    played = get_variant(variant, rules)
    draws = played.undealt == "boneyard"
    return RoundFacts(
        variant=played,
        max_pip=max_pip,
        table=table_report(table_scene),
        hands=tuple(hands),
        boneyard=boneyard_report(boneyard, boneyard_source) if draws else BoneyardReport.unknown(),
        override=override,
        hand_size=hand_size,
    )


# --- the decision -----------------------------------------------------------------------------


def round_ledger(facts: RoundFacts, went_out: str | None = None) -> Ledger:
    """The round's ledger; `went_out` (a domino) holds no tile, whatever its hand listed."""
    hands = [hand.report(went_out=hand.player == went_out) for hand in facts.hands]
    return reconcile(
        facts.variant,
        hands,
        facts.table,
        facts.boneyard,
        max_pip=facts.max_pip,
        hand_size=facts.hand_size,
    )


def problems_signature(ledger: Ledger) -> str | None:
    """The ledger's problems as one text (None when it adds up): an override holds while the
    problems stay the same."""
    if ledger.adds_up:
        return None
    return json.dumps([p.to_dict() for p in ledger.problems], sort_keys=True)


def applies(override: Override | None, ledger: Ledger) -> bool:
    """True when `override` was given for exactly the problems `ledger` has now."""
    signature = problems_signature(ledger)
    return override is not None and signature is not None and override.problems == signature


def decide(
    facts: RoundFacts, ruling: Ruling, went_out: str | None = None, *, by_host: bool = False
) -> RulingDecision:
    """Whether `ruling` may go on now (`dominocam.rules.hold.hold_reasons`, the policy of every
    mode).

    Args:
        facts: the round (`round_facts`).
        ruling: `Ruling.BLOCK` (condition 2 needs the boneyard) or `Ruling.DOMINO`.
        went_out: the player who played their last tile (a domino): their hand is empty and
            needs no confirmation.
        by_host: the host gives the ruling, with the ledger on their screen: counts that do
            not close need no more than that (`HoldReason.COUNTS_OPEN`).
    """
    ruling = Ruling(ruling)
    ledger = round_ledger(facts, went_out)
    waiting = tuple(
        hand.player
        for hand in facts.hands
        if hand.player != went_out and hand.state is not HandState.CONFIRMED
    )
    override = facts.override if applies(facts.override, ledger) else None
    reasons = hold_reasons(
        ledger,
        ends_round=True,
        blocks=ruling is Ruling.BLOCK,
        to_confirm=waiting,
        overridden=override is not None,
        host_rules=by_host,
    )
    if reasons:
        return RulingWait(ledger, reasons, waiting)
    return RulingGo(ledger, judged_boneyard(ledger), override)


def boneyard_floor(decision: RulingDecision) -> int | None:
    """A block that waits only for counts (the boneyard's, or others that keep the ledger
    from closing) may still be judged on condition 1 (docs/rules.md, the blocked game): when a
    player can play, the check stops whatever the uncounted places hold, and nobody needs to count
    them. The boneyard count to judge that with (`dominocam.rules.hold.judged_boneyard`: 0 when
    nobody counted it), or None when `decision` waits for anything else, or does not wait."""
    counts = {WaitReason.BONEYARD_UNKNOWN, WaitReason.COUNTS_OPEN}
    if isinstance(decision, RulingWait) and set(decision.reasons) <= counts:
        return judged_boneyard(decision.ledger)
    return None


# --- what the host's screen and the owner's phone show ------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One tile of the host's picture of the set.

    Attributes:
        tile: the tile (row `tile.low`, column `tile.high`).
        kind: `CellKind`.
        players: whose hands it was read in (HAND, TWICE), in reading order.
        on_table: it was read on the table (TABLE, TWICE).
        problem: a problem of the ledger names it.
    """

    tile: Tile
    kind: CellKind
    players: tuple[str, ...] = ()
    on_table: bool = False
    problem: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile": self.tile.as_list(),
            "kind": str(self.kind),
            "players": list(self.players),
            "on_table": self.on_table,
            "problem": self.problem,
        }


_KIND_OF_STATUS = {
    PlaceStatus.TWICE: CellKind.TWICE,
    PlaceStatus.UNSEEN: CellKind.HIDDEN,
    PlaceStatus.NOWHERE: CellKind.NOWHERE,
}


def _cell(tile: Tile, place: Place, named: set[Tile]) -> Cell:
    read = place.status in (PlaceStatus.SEEN, PlaceStatus.TWICE)
    players = tuple(h.player for h in place.holders if read and h.player is not None)
    on_table = read and any(h.kind is HolderKind.TABLE for h in place.holders)
    if place.status is PlaceStatus.SEEN:
        kind = CellKind.TABLE if on_table else CellKind.HAND
    else:
        kind = _KIND_OF_STATUS[place.status]
    return Cell(tile, kind, players, on_table, tile in named)


def cells(ledger: Ledger) -> tuple[Cell, ...]:
    """Every tile of the set as the host's picture shows it, in the set's order. Names
    hands' tiles: for the host only."""
    named = {tile for problem in ledger.problems for tile in problem.tiles}
    return tuple(_cell(tile, place, named) for tile, place in ledger.places.items())


def on_table(hand: Iterable[Tile], table: TableReport) -> tuple[Tile, ...]:
    """The tiles of `hand` that the table photo shows face up: its owner takes them out of
    the hand and confirms again. Told to the owner alone (the table is public, the hand is
    theirs), so it says nothing of another hand."""
    up = set(table.face_up)
    return tuple(sorted(tile for tile in set(hand) if tile in up))


__all__ = [
    "Cell",
    "CellKind",
    "HandState",
    "Override",
    "RoundFacts",
    "Ruling",
    "RulingDecision",
    "RulingGo",
    "RulingWait",
    "SeatHand",
    "WaitReason",
    "applies",
    "boneyard_floor",
    "boneyard_report",
    "cells",
    "decide",
    "on_table",
    "problems_signature",
    "round_facts",
    "round_ledger",
    "table_report",
]
