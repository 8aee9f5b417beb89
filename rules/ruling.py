"""The verdict in words, as a referee would rule at the table.

`ruling(verdict, state)` says which conditions hold and why, who was checked in which order,
who can still play what where, any foul, the pip totals, the winner and the points.
"""

from __future__ import annotations

from rules.layout import END_LEAD, END_SPINNER, END_TRAIN, OpenEnd
from rules.moves import Move
from rules.state import GameState
from rules.verdict import Verdict


def ruling(verdict: Verdict, state: GameState) -> str:
    """A multi-line ruling for people (the human output of `dominocam rules check`)."""
    variant = state.variant
    lines = [
        f"Ruling: {variant.title} ({variant.name}), double-{verdict.max_pip} set, "
        f"{len(state.players)} players clockwise: {', '.join(state.names)}.",
        "Open ends: " + _ends(verdict.open_ends) + ".",
        "",
    ]
    lines += _condition_1(verdict)
    lines += _condition_2(verdict, state)
    lines.append("")
    lines += _verification(verdict)
    if verdict.fouls:
        lines.append("")
        for name in dict.fromkeys(m.player for m in verdict.fouls):
            tiles = "; ".join(_where(m) for m in verdict.fouls if m.player == name)
            lines.append(f"FOUL: {name} declared they cannot play but holds {tiles}.")
    lines.append("")
    if verdict.went_out:
        who = ", ".join(verdict.went_out)
        lines.append(
            f"Verdict: NOT BLOCKED. {who} has no tiles left: the round ended by domino, "
            "not by a block."
        )
    elif verdict.blocked:
        lines.append("Verdict: BLOCKED. Both conditions hold; the round ends at once.")
    else:
        failing = [
            label
            for label, holds in (
                ("condition 1", verdict.no_playable_end),
                ("condition 2", verdict.boneyard_exhausted),
            )
            if not holds
        ]
        verb = "fails" if len(failing) == 1 else "fail"
        lines.append(f"Verdict: NOT BLOCKED ({' and '.join(failing)} {verb}). Play goes on.")
    lines.append("")
    lines.append("Pip totals: " + _totals(verdict, state) + ".")
    if verdict.team_totals is not None:
        members: dict[str, list[str]] = {}
        for name, team in state.teams().items():
            members.setdefault(team, []).append(name)
        teams = "; ".join(
            f"{team} {total} ({' + '.join(members[team])})"
            for team, total in verdict.team_totals.items()
        )
        lines.append(f"Team totals: {teams}.")
    lines += _result(verdict, state)
    return "\n".join(lines)


def _ends(ends: tuple[OpenEnd, ...]) -> str:
    if not ends:
        return "none"
    return "; ".join(_end(e) for e in ends)


def _end(end: OpenEnd) -> str:
    if end.kind == END_LEAD:
        return "the table is empty (any tile may be led)"
    notes = []
    if end.kind == END_SPINNER:
        notes.append("a free side of the spinner")
    if end.kind == END_TRAIN:
        notes.append("not started")
    if end.owner is not None:
        notes.append(f"{end.owner}'s")
    if end.marked:
        notes.append("marked")
    if end.needs:
        notes.append(f"must take {end.needs} more tile{'s' if end.needs > 1 else ''} first")
    extra = f" ({', '.join(notes)})" if notes else ""
    return f"{end.line} {end.value}{extra}"


def _where(move: Move) -> str:
    if move.end is None:
        return f"{move.tile} (to lead)"
    return f"{move.tile} on {move.line} ({move.end})"


def _condition_1(verdict: Verdict) -> list[str]:
    if verdict.no_playable_end:
        return [
            "Condition 1, no playable end: HOLDS. No active player holds a tile that may "
            "legally extend any open end."
        ]
    lines = ["Condition 1, no playable end: FAILS. Still playable:"]
    for name in dict.fromkeys(m.player for m in verdict.playable):
        tiles = "; ".join(_where(m) for m in verdict.playable if m.player == name)
        lines.append(f"  {name}: {tiles}")
    return lines


def _condition_2(verdict: Verdict, state: GameState) -> list[str]:
    count, reserve = verdict.boneyard, verdict.reserve
    if verdict.draw == "none":
        why = f"{state.variant.title} never draws"
        if count:
            why += f" ({count} undealt tile{'s' if count != 1 else ''} sit out)"
        return [f"Condition 2, boneyard exhausted: HOLDS. {why}."]
    if verdict.boneyard_exhausted:
        if count == 0:
            return ["Condition 2, boneyard exhausted: HOLDS. The boneyard is empty."]
        return [
            f"Condition 2, boneyard exhausted: HOLDS. The boneyard holds {count}, and the "
            f"last {reserve} may never be drawn."
        ]
    plural = "s" if verdict.drawable != 1 else ""
    reserve_note = f", {reserve} of them never drawn" if reserve else ""
    return [
        f"Condition 2, boneyard exhausted: FAILS. {verdict.drawable} tile{plural} can still "
        f"be drawn (boneyard {count}{reserve_note})."
    ]


def _verification(verdict: Verdict) -> list[str]:
    proposer = verdict.proposer
    lines = [f"Verification, clockwise from {proposer}:"]
    for number, confirmation in enumerate(verdict.verification, start=1):
        said = ""
        if confirmation.declared:
            said = ", as proposed" if confirmation.player == proposer else ", as declared"
        if confirmation.can_play:
            tiles = "; ".join(_where(m) for m in confirmation.moves)
            lines.append(
                f"  {number}. {confirmation.player} CAN play: {tiles}. The check stops here."
            )
        else:
            lines.append(f"  {number}. {confirmation.player} cannot play{said}: confirmed.")
    if verdict.verification_complete:
        if verdict.boneyard_exhausted:
            lines.append("  A full round of players confirmed in turn, with the boneyard empty.")
        else:
            lines.append("  Every player confirmed, but tiles can still be drawn: no block yet.")
    return lines


def _totals(verdict: Verdict, state: GameState) -> str:
    parts = []
    for player in state.players:
        tiles = ", ".join(str(t) for t in sorted(player.hand)) or "no tiles"
        out = "" if player.active else ", sitting out"
        parts.append(f"{player.name} {verdict.pip_totals[player.name]} ({tiles}{out})")
    blank = state.variant.double_blank
    note = f" [0-0 counts {blank}]" if blank else ""
    return "; ".join(parts) + note


def _result(verdict: Verdict, state: GameState) -> list[str]:
    score = verdict.score
    if score is None:
        return ["Winner: none yet. Points: none (the round is not blocked)."]
    lines = []
    if score.winner is not None and not score.tied:
        lines.append(f"Winner: {score.winner}, {score.reason}.")
    elif score.winner is not None:
        lines.append(f"Winner: {score.winner}. {_capital(score.reason)}.")
    else:
        lines.append(f"Winner: none. {_capital(score.reason)}.")
    if score.void:
        lines.append("The hand is void: it is replayed and the next player leads.")
    if state.variant.points == "penalty":
        points = ", ".join(f"{u} {p}" for u, p in score.points.items())
        lines.append(f"Points: {points} ({score.award}; the lowest game total wins).")
    elif score.points:
        points = ", ".join(f"{u} scores {p}" for u, p in score.points.items())
        lines.append(f"Points: {points} ({score.award}).")
    else:
        lines.append("Points: nobody scores.")
    return lines


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
