"""The blocked-game check, exactly as docs/rules.md defines it ("The blocked game").

A round is blocked when both conditions hold at once (if either fails, play goes on):

1. *No playable end*: no active player holds a tile that may legally extend any open end
   under the variant (`dominocam.rules.moves.legal_moves`; so in Mexican Train a tile that fits only
   another player's unmarked train does not break a block). If even one player can extend
   even one line, the game is not blocked.
2. *Boneyard exhausted*: no tile can be drawn - the boneyard holds at most the variant's
   `reserve` (tiles never drawn), or the variant never draws (Block), which satisfies it
   trivially.

A round in which a player has emptied their hand ended by domino (status `went-out`): that
is a natural finish, never a block.

The procedural verification: starting with the proposer (default: the first active
player), clockwise, each active player confirms in turn that they cannot play; the check
stops at the first player who can. A player who declared "cannot play" (a declaration, or
proposing the block) but holds a playable tile commits a foul, reported with each playable
tile and line, wherever they sit in the order.
"""

from __future__ import annotations

from dominocam.rules.moves import Move, legal_moves, open_ends
from dominocam.rules.scoring import score_blocked
from dominocam.rules.state import GameState
from dominocam.rules.verdict import Confirmation, Verdict


def verify(
    state: GameState, moves: dict[str, tuple[Move, ...]] | None = None
) -> tuple[Confirmation, ...]:
    """The clockwise confirmations from the proposer, up to the first player who can play.

    Args:
        state: the game state.
        moves: each active player's legal moves, when already computed.
    """
    if moves is None:
        moves = {name: legal_moves(state, name) for name in state.active_names}
    confirmations = []
    for name in state.clockwise_from(state.proposer_name):
        own = moves[name]
        confirmations.append(Confirmation(name, bool(own), state.declared(name), own))
        if own:
            break
    return tuple(confirmations)


def fouls(state: GameState, moves: dict[str, tuple[Move, ...]] | None = None) -> tuple[Move, ...]:
    """Every playable tile of a player who declared that they cannot play."""
    if moves is None:
        moves = {name: legal_moves(state, name) for name in state.active_names}
    return tuple(
        move
        for name in state.clockwise_from(state.proposer_name)
        if state.declared(name)
        for move in moves[name]
    )


def check(state: GameState) -> Verdict:
    """Judge `state`: the two conditions, the verification, and the scoring when blocked."""
    moves = {name: legal_moves(state, name) for name in state.active_names}
    playable = tuple(move for name in state.active_names for move in moves[name])
    no_playable_end = not playable
    boneyard_exhausted = state.drawable == 0
    went_out = tuple(p.name for p in state.active_players if not p.hand)
    blocked = no_playable_end and boneyard_exhausted and not went_out
    score = score_blocked(state) if blocked else None
    teams: dict[str, int] | None = None
    if state.variant.team_scoring or all(p.team is not None for p in state.active_players):
        teams = {}
        for name, team in state.teams().items():
            teams[team] = teams.get(team, 0) + state.player(name).pips(state.variant.double_blank)
    status = "went-out" if went_out else "blocked" if blocked else "playing"
    return Verdict(
        variant=state.variant.name,
        max_pip=state.max_pip,  # type: ignore[arg-type]
        blocked=blocked,
        no_playable_end=no_playable_end,
        boneyard_exhausted=boneyard_exhausted,
        playable=playable,
        verification=verify(state, moves),
        order=state.clockwise_from(state.proposer_name),
        proposer=state.proposer_name,
        pip_totals=state.pip_totals(),
        winner=score.winner if score else None,
        tied=score.tied if score else (),
        points=dict(score.points) if score else {},
        status=status,
        went_out=went_out,
        fouls=fouls(state, moves),
        open_ends=open_ends(state),
        boneyard=state.boneyard,
        reserve=state.variant.reserve,
        drawable=state.drawable,
        draw=state.variant.draw,
        score=score,
        team_totals=teams,
        settings=state.variant.settings,
    )


def is_blocked(state: GameState) -> bool:
    """Shorthand for `check(state).blocked`."""
    return check(state).blocked
