"""Rounds accumulated into a game, per the variant's `game_end` and `points` settings.

* `game_end = target` (Block, Draw, All Fives, partnership, Bergen, seed): rounds go on until
  a player or team reaches `target` points; the highest total at or above it wins.
* `game_end = descending-doubles` (Mexican Train, Chicken Foot): one round per double of the
  set, the engine going from n-n down to 0-0 (double-12: 13 rounds, 12-12 first); every
  round adds each player's penalty points; after the last round the lowest cumulative total
  wins.

`Game` is immutable: `game.record(result)` returns the game with one more round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from dominocam.errors import Refused
from dominocam.rules.scoring import RoundScore
from dominocam.rules.tiles import SUPPORTED_SETS, Tile
from dominocam.rules.variants import Variant
from dominocam.rules.verdict import Verdict


def descending_engines(max_pip: int) -> tuple[Tile, ...]:
    """The engine double of each round: n-n, (n-1)-(n-1), ..., 0-0 (13 rounds for double-12)."""
    if max_pip not in SUPPORTED_SETS:
        raise Refused(
            f"unknown set double-{max_pip}", "unknown_set", set=max_pip, valid=list(SUPPORTED_SETS)
        )
    return tuple(Tile(v, v) for v in range(max_pip, -1, -1))


@dataclass(frozen=True)
class RoundResult:
    """The outcome of one round.

    Attributes:
        points: points per player or team (penalties under `penalty` scoring).
        winner: the round's winner, or None.
        blocked: the round ended by a block (False: by domino).
        engine: the round's engine double (descending-doubles games), else None.
        void: the hand was void (replayed; it still counts as played, with no points).
    """

    points: Mapping[str, int] = field(default_factory=dict)
    winner: str | None = None
    blocked: bool = True
    engine: Tile | None = None
    void: bool = False

    def __post_init__(self) -> None:
        for name, value in self.points.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise Refused(
                    f"round points for {name} must be a whole number >= 0",
                    "bad_points",
                    name=name,
                )

    @classmethod
    def from_score(
        cls, score: RoundScore, *, blocked: bool = True, engine: Tile | None = None
    ) -> RoundResult:
        return cls(dict(score.points), score.winner, blocked, engine, score.void)

    @classmethod
    def from_verdict(cls, verdict: Verdict, engine: Tile | None = None) -> RoundResult:
        """The result of a blocked round from its verdict.

        Raises:
            UserInputError: the verdict is not a block (score a domino with `score_domino`).
        """
        if not verdict.blocked or verdict.score is None:
            raise Refused("only a blocked round has a result in its verdict", "not_blocked")
        return cls.from_score(verdict.score, blocked=True, engine=engine)

    def to_json(self) -> dict[str, object]:
        return {
            "points": dict(self.points),
            "winner": self.winner,
            "blocked": self.blocked,
            "engine": None if self.engine is None else self.engine.as_list(),
            "void": self.void,
        }


@dataclass(frozen=True)
class Game:
    """A game: the variant, who scores (players or teams), and the rounds so far.

    Attributes:
        variant: the variant (its `game_end`, `target` and `points` decide the end).
        names: the players (or teams) that score, in seat order.
        max_pip: n of the set (descending-doubles: the first engine is n-n).
        rounds: the rounds played so far.
    """

    variant: Variant
    names: tuple[str, ...]
    max_pip: int | None = None
    rounds: tuple[RoundResult, ...] = ()

    def __post_init__(self) -> None:
        if self.max_pip is None:
            object.__setattr__(self, "max_pip", self.variant.set)
        if len(self.names) < 2 or len(set(self.names)) != len(self.names):
            raise Refused("a game needs at least two distinct players or teams", "too_few_players")
        for number, result in enumerate(self.rounds, start=1):
            unknown = set(result.points) - set(self.names)
            if unknown:
                raise Refused(
                    f"round {number} scores unknown {', '.join(sorted(unknown))}; "
                    f"the game is between {', '.join(self.names)}",
                    "round_scores_unknown",
                    round=number,
                    names=sorted(unknown),
                    players=list(self.names),
                )
        planned = self.planned_rounds
        if planned is not None and len(self.rounds) > planned:
            raise Refused(
                f"{self.variant.title} has only {planned} rounds",
                "too_many_rounds",
                variant=self.variant.name,
                rounds=planned,
            )

    @property
    def planned_rounds(self) -> int | None:
        """How many rounds the game has (descending-doubles), else None (play to target)."""
        if self.variant.game_end == "descending-doubles":
            return len(descending_engines(self.max_pip))  # type: ignore[arg-type]
        return None

    @property
    def lower_wins(self) -> bool:
        """True when the lowest total wins (penalty scoring)."""
        return self.variant.points == "penalty" or self.variant.game_end == "descending-doubles"

    def next_engine(self) -> Tile | None:
        """The engine of the next round (descending-doubles), else None."""
        if self.variant.game_end != "descending-doubles" or self.is_over:
            return None
        return descending_engines(self.max_pip)[len(self.rounds)]  # type: ignore[arg-type]

    def record(self, result: RoundResult) -> Game:
        """This game with `result` added as the next round.

        Raises:
            UserInputError: the game is over, or the result names unknown players.
        """
        if self.is_over:
            raise Refused("the game is over; start a new one", "game_over")
        if result.engine is None and self.variant.game_end == "descending-doubles":
            result = RoundResult(
                result.points, result.winner, result.blocked, self.next_engine(), result.void
            )
        return Game(self.variant, self.names, self.max_pip, (*self.rounds, result))

    def totals(self) -> dict[str, int]:
        """Cumulative points per player or team, in seat order."""
        totals = dict.fromkeys(self.names, 0)
        for result in self.rounds:
            for name, points in result.points.items():
                totals[name] += points
        return totals

    @property
    def is_over(self) -> bool:
        planned = self.planned_rounds
        if planned is not None:
            return len(self.rounds) >= planned
        return any(total >= self.variant.target for total in self.totals().values())

    def standings(self) -> list[tuple[str, int]]:
        """(name, total) best first: lowest first when lower wins, else highest first."""
        order = sorted(self.totals().items(), key=lambda item: item[1])
        return order if self.lower_wins else order[::-1]

    def winners(self) -> tuple[str, ...]:
        """The game's winners once it is over (several on a tie), else ()."""
        if not self.is_over:
            return ()
        totals = self.totals()
        if self.lower_wins:
            best = min(totals.values())
        else:
            best = max(t for t in totals.values() if t >= self.variant.target)
        return tuple(name for name, total in totals.items() if total == best)

    def to_json(self) -> dict[str, object]:
        return {
            "variant": self.variant.name,
            "names": list(self.names),
            "set": self.max_pip,
            "rounds": [r.to_json() for r in self.rounds],
            "totals": self.totals(),
            "planned_rounds": self.planned_rounds,
            "next_engine": None if self.next_engine() is None else self.next_engine().as_list(),  # type: ignore[union-attr]
            "over": self.is_over,
            "winners": list(self.winners()),
        }


def play_game(variant: Variant, names: Iterable[str], results: Iterable[RoundResult]) -> Game:
    """A game with `results` recorded in order (a convenience for scoreboards and tests)."""
    game = Game(variant, tuple(names))
    for result in results:
        game = game.record(result)
    return game
