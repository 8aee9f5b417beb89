"""Scoring a round: pip totals, the winner, ties per policy, points per variant.

The founding rule (docs/rules.md, the blocked game): the round ends at once; the winner is
the player whose remaining hand has the lowest pip total (5-10 counts 15, 12-12 counts 24) and is
usually awarded the sum of all other players' remaining counts. Everything that varies is a
setting of the variant (`dominocam.rules.variants`):

* who wins: `block_winner` - `lowest-hand`; `lowest-team` (partnership totals);
  `no-double` (Bergen: among hands holding no double, else among all); `blocker` (the
  player who caused the block, `GameState.blocker`).
* how many points: `points` - `others` (the others' pips), `others-minus-own`,
  `losing-team` (the other team's pips), `all-hands` (every hand, the winners' too),
  `penalty` (every player or team scores their own pips; lower is better), `none`; plus
  `bonus`; then `rounding` - `nearest-5` rounds the award, `nearest-5-each` rounds each
  hand before adding (27 -> 25, 28 -> 30; halves cannot occur with whole pips). Points are
  never negative (an award below 0, possible only for a `blocker` with the heavier hand
  under `others-minus-own`, is 0).
* ties for the win: `tie` - `no-score` (nobody scores), `void` (the same, and the hand is
  void: replayed, the next player leads), `split` (the tied players share the award,
  rounded down: the award is computed as if the tied group had won together, with the
  lowest tied total as "own"), `lightest-tile` (the tied player holding the lightest single
  tile wins; still tied -> no score), `leader` (the tied player, or team, first clockwise
  from the one who led the round).

Under `penalty` scoring ties only decide who is named winner; the points stay.
A scoring *unit* is a player, or a team when the variant scores teams (`team_scoring`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dominocam.errors import Refused
from dominocam.i18n import N_, _, format_number, ngettext
from dominocam.rules.state import GameState


def round_to_nearest_5(value: int) -> int:
    """`value` rounded to the nearest multiple of 5 (27 -> 25, 28 -> 30, 22 -> 20)."""
    return (value + 2) // 5 * 5


@dataclass(frozen=True)
class RoundScore:
    """The scoring of one round.

    Attributes:
        unit: "player" or "team": what `totals`, `winner`, `tied` and `points` name.
        totals: remaining pip count per unit (active players only), in seat order.
        winner: the unit that wins the round, or None (tie without a winner, or no winner).
        tied: the units tied for the win (empty when one unit won outright).
        points: points awarded per unit (only the units that score).
        void: the hand is void (tie policy `void`): replay it, the next player leads.
        reason: why this unit wins, or how the tie was settled, for the ruling.
        award: how the points were counted, for the ruling.
    """

    unit: str
    totals: Mapping[str, int]
    winner: str | None
    tied: tuple[str, ...] = ()
    points: Mapping[str, int] = field(default_factory=dict)
    void: bool = False
    reason: str = ""
    award: str = ""

    def __post_init__(self) -> None:
        if self.unit not in ("player", "team"):
            raise ValueError(f"unit must be player or team, got {self.unit!r}")
        if any(p < 0 for p in self.points.values()):
            raise ValueError(f"points cannot be negative: {dict(self.points)}")

    def to_json(self) -> dict[str, object]:
        return {
            "unit": self.unit,
            "totals": dict(self.totals),
            "winner": self.winner,
            "tied": list(self.tied),
            "points": dict(self.points),
            "void": self.void,
            "reason": self.reason,
            "award": self.award,
        }


@dataclass(frozen=True)
class _Table:
    """What scoring needs, computed once from a state."""

    state: GameState
    pips: dict[str, int]  # active player -> pips
    unit: str
    unit_of: dict[str, str]  # active player -> unit
    members: dict[str, list[str]]  # unit -> active players, seat order
    totals: dict[str, int]  # unit -> pips

    @classmethod
    def of(cls, state: GameState) -> _Table:
        blank = state.variant.double_blank
        pips = {p.name: p.pips(blank) for p in state.active_players}
        team = state.variant.team_scoring
        unit_of = state.teams() if team else {name: name for name in pips}
        members: dict[str, list[str]] = {}
        for name in pips:
            members.setdefault(unit_of[name], []).append(name)
        totals = {u: sum(pips[m] for m in names) for u, names in members.items()}
        return cls(state, pips, "team" if team else "player", unit_of, members, totals)

    def hand_value(self, player: str) -> int:
        value = self.pips[player]
        return (
            round_to_nearest_5(value) if self.state.variant.rounding == "nearest-5-each" else value
        )

    def award(self, winners: list[str]) -> int:
        """The points the winning unit(s) earn together (before any split)."""
        variant = self.state.variant
        losers = [p for p in self.pips if self.unit_of[p] not in winners]
        others = sum(self.hand_value(p) for p in losers)
        if variant.points in ("others", "losing-team"):
            base = others
        elif variant.points == "others-minus-own":
            own = min(sum(self.hand_value(p) for p in self.members[unit]) for unit in winners)
            base = others - own
        elif variant.points == "all-hands":
            base = sum(self.hand_value(p) for p in self.pips)
        else:  # "none" (and "penalty", scored separately)
            base = 0
        base += variant.bonus
        if variant.rounding == "nearest-5":
            base = round_to_nearest_5(base)
        return max(0, base)

    def penalty(self) -> dict[str, int]:
        """Every unit's own pips (rounded per the variant)."""
        rounding = self.state.variant.rounding
        points = {u: sum(self.hand_value(p) for p in names) for u, names in self.members.items()}
        if rounding == "nearest-5":
            points = {u: round_to_nearest_5(v) for u, v in points.items()}
        return points


# How the winner's points are counted, per `points` setting (translated where shown).
POINTS_RULES: dict[str, str] = {
    "others": N_("the winner takes the others' pips"),
    "others-minus-own": N_("the winner takes the others' pips minus their own"),
    "losing-team": N_("the winners take the losing team's pips"),
    "all-hands": N_("the winners take every hand's pips"),
    "none": N_("the winner takes no pips"),
}


def pip_totals(state: GameState) -> dict[str, int]:
    """Every player's remaining pip count, in seat order (see `GameState.pip_totals`)."""
    return state.pip_totals()


def score_blocked(state: GameState) -> RoundScore:
    """Score `state` as a blocked round under its variant (see the module docstring)."""
    table = _Table.of(state)
    variant = state.variant
    contenders, why = _contenders(table)
    award = _describe_points(table)
    if variant.points == "penalty":
        points = table.penalty()
        if len(contenders) == 1:
            return RoundScore(
                table.unit, table.totals, contenders[0], (), points, False, why, award
            )
        winner, void, tie_why = _break_tie(table, contenders)
        return RoundScore(
            table.unit, table.totals, winner, tuple(contenders), points, void, tie_why, award
        )
    if len(contenders) == 1:
        winner = contenders[0]
        points = {winner: table.award([winner])}
        return RoundScore(table.unit, table.totals, winner, (), points, False, why, award)
    winner, void, tie_why = _break_tie(table, contenders)
    if winner is not None:
        points = {winner: table.award([winner])}
    elif variant.tie == "split":
        share = table.award(contenders) // len(contenders)
        points = {unit: share for unit in contenders}
        award = _("{award}, shared equally and rounded down").format(award=award)
    else:
        points = {}
    return RoundScore(
        table.unit, table.totals, winner, tuple(contenders), points, void, tie_why, award
    )


def score_domino(state: GameState, winner: str) -> RoundScore:
    """Score a round that `winner` ended by playing their last tile (not a block).

    The points rule is the variant's (`others`, `penalty`, ...) with the player who went
    out as the winner; there is no tie.

    Raises:
        UserInputError: `winner` is unknown, inactive, or still holds tiles.
    """
    seat = state.player(winner)
    if not seat.active:
        raise Refused(f"{winner} is not an active player", "player_not_active", name=winner)
    if seat.hand:
        raise Refused(
            f"{winner} still holds {len(seat.hand)} tile(s), so they have not gone out",
            "not_gone_out",
            name=winner,
            tiles=len(seat.hand),
        )
    table = _Table.of(state)
    unit = table.unit_of[winner]
    award = _describe_points(table)
    points = table.penalty() if state.variant.points == "penalty" else {unit: table.award([unit])}
    return RoundScore(
        table.unit,
        table.totals,
        unit,
        (),
        points,
        False,
        _("{winner} went out").format(winner=winner),
        award,
    )


def _contenders(table: _Table) -> tuple[list[str], str]:
    """The units with the best claim to the win, and why (several units: a tie)."""
    state, variant = table.state, table.state.variant
    if variant.block_winner == "blocker":
        blocker = state.blocker
        if blocker not in table.unit_of:
            raise Refused(
                f"the blocker {blocker!r} is not an active player",
                "player_not_active",
                name=blocker,
                role="blocker",
            )
        why = _("who caused the block ({blocker} played last)").format(blocker=blocker)
        return [table.unit_of[blocker]], why
    if variant.block_winner == "lowest-team":
        low = min(table.totals.values())
        lowest = [u for u, total in table.totals.items() if total == low]
        return lowest, ngettext(
            "lowest team total ({pips} pip)", "lowest team total ({pips} pips)", low
        ).format(pips=format_number(low))
    candidates = list(table.pips)
    free = [p for p in candidates if not state.player(p).has_double]
    no_double = variant.block_winner == "no-double"
    if no_double and free and len(free) < len(candidates):
        candidates = free
    low = min(table.pips[p] for p in candidates)
    units: list[str] = []
    for player in candidates:
        if table.pips[player] == low and table.unit_of[player] not in units:
            units.append(table.unit_of[player])
    if no_double and free and candidates is free:
        why = ngettext(
            "lowest hand holding no double ({pips} pip)",
            "lowest hand holding no double ({pips} pips)",
            low,
        )
    elif no_double and not free:
        why = ngettext(
            "lowest hand, every hand holding a double ({pips} pip)",
            "lowest hand, every hand holding a double ({pips} pips)",
            low,
        )
    else:
        why = ngettext("lowest hand ({pips} pip)", "lowest hand ({pips} pips)", low)
    return units, why.format(pips=format_number(low))


def _break_tie(table: _Table, tied: list[str]) -> tuple[str | None, bool, str]:
    """(winner or None, void, reason) for units tied for the win, per the tie policy."""
    state, policy = table.state, table.state.variant.tie
    names = ", ".join(tied)
    if policy == "lightest-tile":
        blank = state.variant.double_blank
        lightest = {
            unit: min(
                (t.points(blank) for p in table.members[unit] for t in state.player(p).hand),
                default=0,
            )
            for unit in tied
        }
        low = min(lightest.values())
        best = [u for u in tied if lightest[u] == low]
        if len(best) == 1:
            why = _("{names} tie; {unit} holds the lightest tile ({pips})")
            return best[0], False, why.format(names=names, unit=best[0], pips=format_number(low))
        why = _("{names} tie and hold equally light tiles ({pips}): no score")
        return None, False, why.format(names=names, pips=format_number(low))
    if policy == "leader":
        for player in state.clockwise_from(state.leader_name):
            unit = table.unit_of.get(player)
            if unit in tied:
                why = _("{names} tie; {unit} is first from the leader, {leader}")
                return unit, False, why.format(names=names, unit=unit, leader=player)
    if policy == "split":
        return None, False, _("{names} tie and split the points").format(names=names)
    if policy == "void":
        why = _("{names} tie: the hand is void, the next player leads")
        return None, True, why.format(names=names)
    return None, False, _("{names} tie: no score").format(names=names)


def _describe_points(table: _Table) -> str:
    variant = table.state.variant
    if variant.points == "penalty":
        if table.unit == "team":
            return _("every team scores its own pips as a penalty")
        return _("every player scores their own pips as a penalty")
    text = _(POINTS_RULES[variant.points])
    if variant.rounding == "nearest-5":
        text += _(", rounded to the nearest 5")
    elif variant.rounding == "nearest-5-each":
        text += _(", each hand rounded to the nearest 5")
    if variant.bonus:
        text += _(", plus a bonus of {bonus}").format(bonus=format_number(variant.bonus))
    return text
