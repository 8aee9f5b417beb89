"""What the round's operations (`dominocam.rounds.operations`) need from a database: `RoundStore`.

One store object is one table's rounds: a single-table game in SQLite
(`dominocam.server.game.round_store.SqliteRoundStore`) or a tournament table in PostgreSQL
(`dominocam.tournament.rounds.PgRoundStore`). Its methods are primitive reads and writes of plain
values; every rule (what is refused, what is locked, what the audit trail says) is the
operations'. They call the store inside `transaction()` only, and the store keeps the round
row it returned from `open_round` locked until that transaction ends (PostgreSQL `FOR
UPDATE`, SQLite `BEGIN IMMEDIATE`).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from dominocam.rounds.ledger import RoundFacts, RulingGo
from dominocam.rounds.lifecycle import AuditEntry


@dataclass(frozen=True)
class RoundRow:
    """A round as the operations read it.

    Attributes:
        locked_by: why the hands are locked (stored English, `dominocam.rounds.wording`), or None.
        pending_end: the ruling held for the host (`lifecycle.held_ruling`), or None.
    """

    id: int
    number: int
    status: str  # "open" or "ended"
    locked_by: str | None
    pending_end: Mapping[str, Any] | None


@dataclass(frozen=True)
class HandRow:
    """One player's hand in a round.

    Attributes:
        tiles: the confirmed hand, or None while it was never confirmed.
        pending: a photo's reading awaiting its owner's confirmation, or None.
        to_confirm: play went on since it was confirmed: its owner confirms it again.
        pending_photo: where the store keeps the new photo (a file's name), or None.
    """

    tiles: list[list[int]] | None
    pending: list[list[int]] | None
    to_confirm: bool
    pending_photo: str | None = None  # the new photo the store keeps with `pending`


@dataclass(frozen=True)
class Judged:
    """A ruling the rules engine judged, for the store that scores it (`RoundStore.end_round`).

    Attributes:
        by: "block" or "domino".
        who: the proposer, or the player who went out.
        value: the engine's answer: a `rules.Verdict` (block) or its domino score.
        state: the game-state dict it judged (docs/design.md; it holds every hand).
        go: the ledger's go-ahead (its boneyard, the host's override).
        author: who gave the ruling (a player, or `lifecycle.HOST`).
    """

    by: str
    who: str
    value: Any
    state: dict[str, Any]
    go: RulingGo
    author: str


class RoundStore(Protocol):
    """One table's rounds in a database (see the module's text)."""

    @property
    def set_max(self) -> int:
        """The highest pip of the game's set (6, 9, 12, 15, 18)."""
        ...

    def transaction(self) -> AbstractContextManager[object]:
        """One transaction: committed at the end of the block, rolled back on an error."""
        ...

    def open_round(self) -> RoundRow:
        """The table's open round, locked for the transaction.

        Raises:
            rounds.lifecycle.Conflict: the table has no open round.
        """
        ...

    def latest_round(self) -> RoundRow:
        """The table's latest round, open or ended, locked for the transaction."""
        ...

    def hand(self, rnd: RoundRow, player: str) -> HandRow | None:
        """`player`'s hand in `rnd`, or None when nothing was read or entered."""
        ...

    def save_confirmed_hand(self, rnd: RoundRow, player: str, tiles: list[list[int]]) -> None:
        """`tiles` are now `player`'s confirmed hand: the pending reading goes (a store
        keeps its photo with the hand), and the hand is no longer to be confirmed."""
        ...

    def drop_pending(self, rnd: RoundRow, player: str) -> None:
        """`player`'s new photo and its reading go; the confirmed hand stays."""
        ...

    def declare(self, rnd: RoundRow, player: str, cannot_play: bool) -> None:
        """Keep `player`'s "cannot play" declaration (judged at the block check)."""
        ...

    def hands_to_confirm(self, rnd: RoundRow) -> None:
        """Every confirmed hand of `rnd` is to be confirmed again by its owner."""
        ...

    def set_lock(self, rnd: RoundRow, locked_by: str | None) -> None:
        """Lock the round's hands for `locked_by` (stored English), or unlock them (None)."""
        ...

    def set_pending_end(self, rnd: RoundRow, pending: Mapping[str, Any] | None) -> None:
        """Hold a ruling for the host, or drop the one held (None) with whatever the store
        keeps beside it (the host's check of it)."""
        ...

    def set_override(self, rnd: RoundRow, override: Mapping[str, Any] | None) -> None:
        """The host's word on a round that does not add up (`{"problems", "reason"}`, as
        `dominocam.rounds.ledger.Override`), or None."""
        ...

    def facts(self, rnd: RoundRow) -> RoundFacts:
        """The round as the ledger takes it (`dominocam.rounds.ledger.round_facts`)."""
        ...

    def touched(self, rnd: RoundRow) -> bool:
        """Something happened in an open round (a hand, a photo, a check, a lock)."""
        ...

    def delete_round(self, rnd: RoundRow) -> None:
        """Drop an untouched open round (a reopened round's successor)."""
        ...

    def reopen(self, rnd: RoundRow) -> dict[str, int]:
        """Open the ended round `rnd` again: its result and score go (the game is under way
        again); returns the points it had scored."""
        ...

    def record(self, rnd: RoundRow | None, entry: AuditEntry) -> None:
        """Add `entry` to the audit trail, of `rnd` (shown in full once it ends) or of the
        table (None: shown at once)."""
        ...

    # --- for the rulings (`operations.rule`) ---------------------------------------------

    def rules_state(
        self, rnd: RoundRow, *, proposer: str | None = None, empty_hand: str | None = None
    ) -> dict[str, Any]:
        """The round as the rules engine judges it (the docs/design.md game-state dict,
        without its "boneyard": the ledger's), every seat in order with its confirmed hand
        (`empty_hand`'s empty: they went out) and its "cannot play" declaration.

        Raises:
            rounds.lifecycle.Conflict: a seat has no confirmed hand.
        """
        ...

    def refuse_doubtful_table(self, rnd: RoundRow) -> None:
        """Refuse a ruling while the table's reading is doubtful (`needs_review`, a tile
        `doubtful`) and the host has not checked it since (nor typed the table).

        Raises:
            rounds.lifecycle.Conflict: code "table_needs_check", the reading's notes.
        """
        ...

    def host_checking(self, rnd: RoundRow) -> list[str]:
        """Why a held ruling waits for the host's check (empty: it does not)."""
        ...

    def set_host_check(self, rnd: RoundRow, reasons: list[str] | None) -> None:
        """Keep why the held ruling waits for the host (None: the host's check is done),
        where the store keeps it apart from the held ruling."""
        ...

    def last_decision(self, rnd: RoundRow) -> str | None:
        """The latest of the audit actions "cancel", "unlock", "lock" of `rnd`, or None."""
        ...

    def record_check(
        self, rnd: RoundRow, proposer: str, verdict: Mapping[str, Any], outcome: Mapping[str, Any]
    ) -> int | None:
        """Keep a block check's verdict and outcome; the check's id where the store numbers
        them."""
        ...

    def end_round(self, rnd: RoundRow, judged: Judged) -> dict[str, Any]:
        """Score the round by the host's ruling `judged` (its hands as judged, the winner's
        emptied), end it, and go on by the variant's end (the next round, or the game is
        over). Returns what the mode answers with the score."""
        ...

    def changed(self, what: str, data: Mapping[str, Any]) -> None:
        """Tell the pages that follow the table that something changed (an event)."""
        ...
