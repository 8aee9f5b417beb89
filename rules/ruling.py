"""The verdict in words, as a referee would rule at the table.

`ruling(verdict, state)` says which conditions hold and why, who was checked in which order,
who can still play what where, any foul, the pip totals, the winner and the points.
"""

from __future__ import annotations

from collections.abc import Callable

from dominocam.i18n import _, format_number, ngettext
from dominocam.rules.layout import END_LEAD, END_SPINNER, END_TRAIN, OpenEnd
from dominocam.rules.moves import Move
from dominocam.rules.places import line_words
from dominocam.rules.state import GameState
from dominocam.rules.verdict import Verdict


def ruling(
    verdict: Verdict, state: GameState, boneyard_known: bool = True, blocked: str | None = None
) -> str:
    """A multi-line ruling for people (the human output of `dominocam rules check`), in the
    language of `dominocam.i18n.use_language` (English by default).

    Args:
        verdict: `check(state)`.
        state: the state judged.
        boneyard_known: False when nobody counted the boneyard of a game that draws, so
            that `state.boneyard` is a stand-in (`dominocam round` judges with it empty):
            condition 2 is then said to be unknown instead of holding or failing, and the
            caller says what the verdict line means (`dominocam.rules.hold`).
        blocked: the words said in place of "Verdict: BLOCKED." when the verdict is a block
            (`dominocam round`: the photos' doubts, the counts the verdict waits for); the
            reason after it stays.
    """
    unknown = not boneyard_known and verdict.draw != "none"
    variant = state.variant
    # Each open end by its line's name: a move names its line, the ruling says it in words.
    ends = {end.line: end for end in verdict.open_ends}

    def where(move: Move) -> str:
        return _where(move, ends)

    lines = [
        ngettext(
            "Ruling: {title} ({name}), double-{set} set, {count} player clockwise: {names}.",
            "Ruling: {title} ({name}), double-{set} set, {count} players clockwise: {names}.",
            len(state.players),
        ).format(
            title=_(variant.title),
            name=variant.name,
            set=verdict.max_pip,
            count=len(state.players),
            names=", ".join(state.names),
        ),
        _("Open ends: {ends}.").format(ends=_ends(verdict.open_ends)),
        "",
    ]
    lines += _condition_1(verdict, where)
    if unknown:
        lines.append(_("Condition 2, boneyard exhausted: NOT KNOWN. Nobody counted the boneyard."))
    else:
        lines += _condition_2(verdict, state)
    lines.append("")
    lines += _verification(verdict, where, unknown)
    if verdict.fouls:
        lines.append("")
        for name in dict.fromkeys(m.player for m in verdict.fouls):
            tiles = "; ".join(where(m) for m in verdict.fouls if m.player == name)
            # Worded as the player acted: proposing the block is a claim of its own.
            if name == state.proposer and not state.player(name).declared_cannot_play:
                foul = _("FOUL: {player} proposed a block but can still play {tiles}.")
            else:
                foul = _("FOUL: {player} declared they cannot play but holds {tiles}.")
            lines.append(foul.format(player=name, tiles=tiles))
    lines.append("")
    if verdict.went_out:
        lines.append(
            ngettext(
                "Verdict: NOT BLOCKED. {players} has no tiles left: the round ended by "
                "domino, not by a block.",
                "Verdict: NOT BLOCKED. {players} have no tiles left: the round ended by "
                "domino, not by a block.",
                len(verdict.went_out),
            ).format(players=", ".join(verdict.went_out))
        )
    elif verdict.blocked:
        # Two messages: `dominocam round` says its photo doubts in place of the first.
        said = _("Verdict: BLOCKED.") if blocked is None else blocked
        lines.append(said + " " + _("Both conditions hold; the round ends at once."))
    elif not verdict.no_playable_end and not verdict.boneyard_exhausted:
        lines.append(_("Verdict: NOT BLOCKED (condition 1 and condition 2 fail). Play goes on."))
    elif not verdict.no_playable_end:
        lines.append(_("Verdict: NOT BLOCKED (condition 1 fails). Play goes on."))
    else:
        lines.append(_("Verdict: NOT BLOCKED (condition 2 fails). Play goes on."))
    lines.append("")
    lines.append(_("Pip totals: {totals}.").format(totals=_totals(verdict, state)))
    if verdict.team_totals is not None:
        members: dict[str, list[str]] = {}
        for name, team in state.teams().items():
            members.setdefault(team, []).append(name)
        teams = "; ".join(
            f"{team} {format_number(total)} ({' + '.join(members[team])})"
            for team, total in verdict.team_totals.items()
        )
        lines.append(_("Team totals: {teams}.").format(teams=teams))
    lines += _result(verdict, state)
    return "\n".join(lines)


def _ends(ends: tuple[OpenEnd, ...]) -> str:
    if not ends:
        return _("none")
    return "; ".join(_end(e) for e in ends)


def end_words(end: OpenEnd) -> str:
    """An open end named as a player sees it (`dominocam.rules.places.line_words`)."""
    name = end.line if end.named else None  # an id the software made is never shown
    return line_words(end.value, place=end.place, owner=end.owner, kind=end.kind, name=name)


def _end(end: OpenEnd) -> str:
    if end.kind == END_LEAD:
        return _("the table is empty (any tile may be led)")
    notes = []
    if end.kind == END_SPINNER:
        notes.append(_("a free side of the spinner"))
    if end.kind == END_TRAIN:
        notes.append(_("not started"))
    if end.owner is not None or end.kind == END_TRAIN:
        notes.append(_("open end {end}").format(end=end.value))
    if end.marked:
        notes.append(_("marked"))
    if end.needs:
        notes.append(
            ngettext(
                "must take {count} more tile first",
                "must take {count} more tiles first",
                end.needs,
            ).format(count=format_number(end.needs))
        )
    extra = f" ({', '.join(notes)})" if notes else ""
    return f"{end_words(end)}{extra}"


def _where(move: Move, ends: dict[str, OpenEnd]) -> str:
    if move.end is None:
        return _("{tile} (to lead)").format(tile=move.tile)
    end = ends.get(move.line)
    line = end_words(end) if end is not None else line_words(move.end, name=move.line)
    return _("{tile} on {line}").format(tile=move.tile, line=line)


def _condition_1(verdict: Verdict, where: Callable[[Move], str]) -> list[str]:
    if verdict.no_playable_end:
        return [
            _(
                "Condition 1, no playable end: HOLDS. No active player holds a tile that may "
                "legally extend any open end."
            )
        ]
    lines = [_("Condition 1, no playable end: FAILS. Still playable:")]
    for name in dict.fromkeys(m.player for m in verdict.playable):
        tiles = "; ".join(where(m) for m in verdict.playable if m.player == name)
        lines.append(f"  {name}: {tiles}")
    return lines


def _condition_2(verdict: Verdict, state: GameState) -> list[str]:
    count, reserve = verdict.boneyard, verdict.reserve
    if verdict.draw == "none":
        title = _(state.variant.title)
        if count:
            why = ngettext(
                "{title} never draws ({count} undealt tile sits out)",
                "{title} never draws ({count} undealt tiles sit out)",
                count,
            ).format(title=title, count=format_number(count))
        else:
            why = _("{title} never draws").format(title=title)
        return [_("Condition 2, boneyard exhausted: HOLDS. {why}.").format(why=why)]
    if verdict.boneyard_exhausted:
        if count == 0:
            return [_("Condition 2, boneyard exhausted: HOLDS. The boneyard is empty.")]
        return [
            ngettext(
                "Condition 2, boneyard exhausted: HOLDS. The boneyard holds {count}, and the "
                "last {reserve} may never be drawn.",
                "Condition 2, boneyard exhausted: HOLDS. The boneyard holds {count}, and the "
                "last {reserve} may never be drawn.",
                reserve,
            ).format(count=format_number(count), reserve=format_number(reserve))
        ]
    if reserve:
        boneyard = ngettext(
            "boneyard {count}, {reserve} of them never drawn",
            "boneyard {count}, {reserve} of them never drawn",
            reserve,
        ).format(count=format_number(count), reserve=format_number(reserve))
    else:
        boneyard = _("boneyard {count}").format(count=format_number(count))
    return [
        ngettext(
            "Condition 2, boneyard exhausted: FAILS. {drawable} tile can still be drawn "
            "({boneyard}).",
            "Condition 2, boneyard exhausted: FAILS. {drawable} tiles can still be drawn "
            "({boneyard}).",
            verdict.drawable,
        ).format(drawable=format_number(verdict.drawable), boneyard=boneyard)
    ]


def _verification(
    verdict: Verdict, where: Callable[[Move], str], boneyard_unknown: bool = False
) -> list[str]:
    proposer = verdict.proposer
    lines = [_("Verification, clockwise from {proposer}:").format(proposer=proposer)]
    for number, confirmation in enumerate(verdict.verification, start=1):
        player = confirmation.player
        if confirmation.can_play:
            tiles = "; ".join(where(m) for m in confirmation.moves)
            text = _("{player} CAN play: {tiles}. The check stops here.").format(
                player=player, tiles=tiles
            )
        elif confirmation.declared and player == proposer:
            text = _("{player} cannot play, as proposed: confirmed.").format(player=player)
        elif confirmation.declared:
            text = _("{player} cannot play, as declared: confirmed.").format(player=player)
        else:
            text = _("{player} cannot play: confirmed.").format(player=player)
        lines.append(f"  {number}. {text}")
    if verdict.verification_complete:
        if boneyard_unknown:
            lines.append(
                "  " + _("Every player confirmed; a block still needs the boneyard's count.")
            )
        elif verdict.boneyard_exhausted:
            lines.append(
                "  " + _("A full round of players confirmed in turn, with the boneyard empty.")
            )
        else:
            lines.append(
                "  " + _("Every player confirmed, but tiles can still be drawn: no block yet.")
            )
    return lines


def _totals(verdict: Verdict, state: GameState) -> str:
    parts = []
    for player in state.players:
        tiles = ", ".join(str(t) for t in sorted(player.hand)) or _("no tiles")
        out = _(", sitting out") if not player.active else ""
        parts.append(
            f"{player.name} {format_number(verdict.pip_totals[player.name])} ({tiles}{out})"
        )
    blank = state.variant.double_blank
    note = " " + _("[0-0 counts {points}]").format(points=format_number(blank)) if blank else ""
    return "; ".join(parts) + note


def _result(verdict: Verdict, state: GameState) -> list[str]:
    score = verdict.score
    if score is None:
        return [_("Winner: none yet. Points: none (the round is not blocked).")]
    lines = []
    if score.winner is not None and not score.tied:
        lines.append(
            _("Winner: {winner}, {reason}.").format(winner=score.winner, reason=score.reason)
        )
    elif score.winner is not None:
        lines.append(
            _("Winner: {winner}. {reason}.").format(
                winner=score.winner, reason=_capital(score.reason)
            )
        )
    else:
        lines.append(_("Winner: none. {reason}.").format(reason=_capital(score.reason)))
    if score.void:
        lines.append(_("The hand is void: it is replayed and the next player leads."))
    if state.variant.points == "penalty":
        points = ", ".join(f"{u} {format_number(p)}" for u, p in score.points.items())
        lines.append(
            _("Points: {points} ({award}; the lowest game total wins).").format(
                points=points, award=score.award
            )
        )
    elif score.points:
        points = ", ".join(
            _("{unit} scores {points}").format(unit=u, points=format_number(p))
            for u, p in score.points.items()
        )
        lines.append(_("Points: {points} ({award}).").format(points=points, award=score.award))
    else:
        lines.append(_("Points: nobody scores."))
    return lines


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
