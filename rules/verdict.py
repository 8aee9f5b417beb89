"""The verdict on a game state: the verdict JSON of docs/design.md as typed, frozen records.

Contract fields (never renamed): `blocked`, `conditions` (`no_playable_end`,
`boneyard_exhausted`), `playable` (every `{"player", "tile", "line"}` that breaks the
block), `verification` (`{"player", "can_play"}` in clockwise order from the proposer,
stopping at the first player who can play), `pip_totals`, `winner`, `tied`, `points`.

Added fields: `variant`, `set`, `status` (`blocked`, `playing`, `went-out`), `went_out`,
`proposer`, `order` (the full clockwise order from the proposer), `verification_complete`,
`fouls` (`{"player", "tile", "line"}` for every playable tile of a player who declared
they cannot play), `open_ends`, `boneyard` (`count`, `reserve`, `drawable`, `draw`),
`scoring` (`unit`, `totals`, `reason`, `void`, and the rules applied), `team_totals`,
`rules` (every setting in force). Each `playable` and `fouls` entry also carries `end`,
the value matched; each verification entry carries `declared` and `foul`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dominocam.rules.layout import OpenEnd
from dominocam.rules.moves import Move
from dominocam.rules.scoring import RoundScore

STATUSES = ("blocked", "playing", "went-out")


@dataclass(frozen=True)
class Confirmation:
    """One player's turn in the clockwise verification.

    Attributes:
        player: who confirms.
        can_play: True when they hold a legal move (the verification stops here).
        declared: they had said they cannot play (or proposed the block).
        moves: their legal moves, when `can_play`.
    """

    player: str
    can_play: bool
    declared: bool = False
    moves: tuple[Move, ...] = ()

    @property
    def foul(self) -> bool:
        """A false declaration: they said they cannot play but hold a playable tile."""
        return self.declared and self.can_play

    def to_json(self) -> dict[str, object]:
        return {
            "player": self.player,
            "can_play": self.can_play,
            "declared": self.declared,
            "foul": self.foul,
        }


@dataclass(frozen=True)
class Verdict:
    """The answer to "is this round blocked, and who won it by how much".

    Attributes:
        variant: the variant's name.
        max_pip: n of the double-n set.
        blocked: both conditions hold and nobody has gone out.
        no_playable_end: condition 1 - no active player has a legal move.
        boneyard_exhausted: condition 2 - no tile may be drawn (count <= reserve, or the
            variant never draws).
        playable: every legal move of every active player (empty when blocked).
        verification: clockwise from the proposer, up to the first player who can play.
        order: every active player clockwise from the proposer.
        proposer: who starts the verification.
        pip_totals: every player's remaining pip count.
        winner: the winning player (or team), None when not blocked or tied without winner.
        tied: players (or teams) tied for the win.
        points: points awarded (empty when not blocked).
        status: `blocked`, `playing` or `went-out`.
        went_out: players whose hand is empty (the round ended by domino, not by a block).
        fouls: playable tiles of players who declared they cannot play.
        open_ends: the open ends of the layout under the variant.
        boneyard: tiles in the boneyard; reserve: those never drawn; drawable: the rest
            (0 when the variant never draws); draw: the variant's drawing rule.
        score: the full scoring when blocked, else None.
        team_totals: pip total per team when the players have teams, else None.
        settings: every setting in force.
    """

    variant: str
    max_pip: int
    blocked: bool
    no_playable_end: bool
    boneyard_exhausted: bool
    playable: tuple[Move, ...]
    verification: tuple[Confirmation, ...]
    order: tuple[str, ...]
    proposer: str
    pip_totals: Mapping[str, int]
    winner: str | None = None
    tied: tuple[str, ...] = ()
    points: Mapping[str, int] = field(default_factory=dict)
    status: str = "playing"
    went_out: tuple[str, ...] = ()
    fouls: tuple[Move, ...] = ()
    open_ends: tuple[OpenEnd, ...] = ()
    boneyard: int = 0
    reserve: int = 0
    drawable: int = 0
    draw: str = "none"
    score: RoundScore | None = None
    team_totals: Mapping[str, int] | None = None
    settings: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.blocked != (self.no_playable_end and self.boneyard_exhausted and not self.went_out):
            raise ValueError("blocked must be exactly: both conditions hold, nobody went out")
        if self.blocked and self.playable:
            raise ValueError("a blocked verdict cannot list playable tiles")
        if not self.blocked and (self.winner is not None or self.points):
            raise ValueError("a round that is not blocked has no winner or points")

    @property
    def verification_complete(self) -> bool:
        """Every active player, clockwise from the proposer, confirmed they cannot play."""
        return len(self.verification) == len(self.order) and not any(
            c.can_play for c in self.verification
        )

    def to_json(self) -> dict[str, object]:
        """The verdict JSON of docs/design.md plus the added fields (see the module docstring)."""
        data: dict[str, object] = {
            "blocked": self.blocked,
            "conditions": {
                "no_playable_end": self.no_playable_end,
                "boneyard_exhausted": self.boneyard_exhausted,
            },
            "playable": [m.to_json() for m in self.playable],
            "verification": [c.to_json() for c in self.verification],
            "pip_totals": dict(self.pip_totals),
            "winner": self.winner,
            "tied": list(self.tied),
            "points": dict(self.points),
            # --- additions ---
            "variant": self.variant,
            "set": self.max_pip,
            "status": self.status,
            "went_out": list(self.went_out),
            "proposer": self.proposer,
            "order": list(self.order),
            "verification_complete": self.verification_complete,
            "fouls": [m.to_json() for m in self.fouls],
            "open_ends": [e.to_json() for e in self.open_ends],
            "boneyard": {
                "count": self.boneyard,
                "reserve": self.reserve,
                "drawable": self.drawable,
                "draw": self.draw,
            },
            "scoring": None if self.score is None else self.score.to_json(),
            "team_totals": None if self.team_totals is None else dict(self.team_totals),
            "rules": dict(self.settings),
        }
        return data
