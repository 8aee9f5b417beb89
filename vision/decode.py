"""Joint decoding of the reader's per-half probabilities into tile values.

Reading each tile on its own can give the same tile twice, or a value the set does not have.
One physical double-n set holds each tile once, so the reads are decoded together: the
distinct tiles of the set that maximise the total log-probability of the reads are found (an
assignment problem). Halves known to touch in a line (given later by the layout module through
`adjacency_constraints`) pool their evidence, since they must show the same value.

A reading moves only to one that its own evidence (pooled with the halves it touches) finds at
least as likely. A read that collides with a more likely one would have to take a reading it
finds less likely, often far less ("12-12 (p=0.40) changed to 5-11 (p=0.00)": a confident
wrong value made out of a doubtful one), so it keeps its own reading and is marked `doubtful`
instead, with a warning naming the reading the set would allow: a person decides.

Every change against the independent reading, and every such doubt, is reported as a warning
that says what changed and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from dominocam.vision import messages
from dominocam.vision.notes import Note, note
from dominocam.vision.scene import SceneTile

# A half of a tile: (tile id, half index 0 or 1 in the tile's current corner order).
HalfRef = tuple[int, int]
# Two halves that touch end to end in a line and must therefore show the same value.
AdjacencyConstraint = tuple[HalfRef, HalfRef]

_FLOOR = 1e-9  # probabilities are floored so that log(0) never decides alone


def set_tiles(set_max: int) -> list[tuple[int, int]]:
    """Every tile (a, b), a <= b, of a double-`set_max` set, in a fixed order."""
    return [(a, b) for a in range(set_max + 1) for b in range(a, set_max + 1)]


def _restrict(half_probs: Sequence[np.ndarray], set_max: int) -> np.ndarray:
    """n (2, V) probabilities -> (n, 2, set_max+1), renormalised over the values the set has
    (a half with no mass there gets the uniform distribution)."""
    values = set_max + 1
    probs = np.zeros((len(half_probs), 2, values), dtype=np.float64)
    for row, p in enumerate(half_probs):
        width = min(p.shape[1], values)
        probs[row, :, :width] = p[:, :width]
    probs = np.clip(probs, 0.0, None)
    sums = probs.sum(axis=2, keepdims=True)
    return np.where(sums > 0, probs / np.where(sums > 0, sums, 1.0), 1.0 / values)


def _tile_scores(logp: np.ndarray, tiles: list[tuple[int, int]]) -> np.ndarray:
    """Log-probability of each set tile for each read: (n, 2, K) half log-probs -> (n, T).

    The box does not say which end is which, so a tile (a, b) is either orientation:
    P = P0(a) P1(b) + P0(b) P1(a) for a != b, P0(a) P1(a) for a double.
    """
    a = np.array([t[0] for t in tiles])
    b = np.array([t[1] for t in tiles])
    direct = logp[:, 0, a] + logp[:, 1, b]
    swapped = logp[:, 0, b] + logp[:, 1, a]
    return np.where(a == b, direct, np.logaddexp(direct, swapped))


def _union_groups(constraints: Sequence[AdjacencyConstraint], ids: set[int]) -> list[list[HalfRef]]:
    parent: dict[HalfRef, HalfRef] = {}

    def find(x: HalfRef) -> HalfRef:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for first, second in constraints:
        first, second = (int(first[0]), int(first[1])), (int(second[0]), int(second[1]))
        for ref in (first, second):
            if ref[0] not in ids or ref[1] not in (0, 1):
                raise ValueError(f"adjacency constraint names unknown half {ref}")
        parent[find(first)] = find(second)
    groups: dict[HalfRef, list[HalfRef]] = {}
    for ref in list(parent):
        groups.setdefault(find(ref), []).append(ref)
    return [g for g in groups.values() if len(g) > 1]


def joint_decode(
    tiles: Sequence[SceneTile],
    set_max: int = 12,
    adjacency_constraints: Sequence[AdjacencyConstraint] = (),
) -> tuple[list[SceneTile], list[str]]:
    """Choose the values of every read face-up tile together.

    Args:
        tiles: Scene tiles; face-up tiles with `half_probs` are decoded, others pass through.
        set_max: the set's highest value (12 for double-12); values above it are impossible.
        adjacency_constraints: pairs of halves `((tile_id, half), (tile_id, half))` that
            touch end to end in a line and must show the same value (from the layout
            module). Half indices refer to the tiles' corner order as given.

    Returns:
        The tiles with `pips` (sorted), `pip_confidence` and, where needed, corners and
        `half_probs` turned by two so that half 0 shows pips[0]; and the warnings explaining
        every read that differs from the most likely read of that tile on its own.
    """
    out = list(tiles)
    index = [i for i, t in enumerate(out) if t.face == "up" and t.half_probs is not None]
    if not index:
        return out, []
    candidates = set_tiles(set_max)
    warnings: list[str] = []

    # Row r of every array below is the read tile out[index[r]].
    read = {i: probs_i for i in index if (probs_i := out[i].half_probs) is not None}
    probs = _restrict([read[i] for i in index], set_max)  # (n, 2, set_max+1)
    for i in index:
        above = [
            h
            for h in (0, 1)
            if read[i].shape[1] > set_max + 1 and int(np.argmax(read[i][h])) > set_max
        ]
        for h in above:
            warnings.append(
                note(
                    messages.HALF_ABOVE_SET,
                    tile=out[i].id,
                    pips=int(np.argmax(read[i][h])),
                    set_max=set_max,
                )
            )
    logp = np.log(np.maximum(probs, _FLOOR))

    # Halves that touch must agree: each half of a group takes the group's pooled evidence.
    fused = logp.copy()
    row_of_id = {out[i].id: row for row, i in enumerate(index)}
    groups = _union_groups(adjacency_constraints, set(row_of_id)) if adjacency_constraints else []
    for group in groups:
        pooled = sum(logp[row_of_id[t], h] for t, h in group)
        pooled = pooled - np.logaddexp.reduce(pooled)
        for t, h in group:
            fused[row_of_id[t], h] = pooled

    alone = _tile_scores(logp, candidates)  # (n, T)
    joint = _tile_scores(fused, candidates)
    best_alone = alone.argmax(axis=1)
    best_joint = joint.argmax(axis=1)

    if len(index) > len(candidates):
        warnings.append(
            note(
                messages.TOO_MANY_TILES,
                count=len(index),
                set_max=set_max,
                available=len(candidates),
            )
        )
        choice = best_joint
    elif len(set(best_joint.tolist())) == len(index):
        choice = best_joint
    else:
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(-joint)
        choice = np.empty(len(index), dtype=np.int64)
        choice[rows] = cols

    holders: dict[int, list[int]] = {}  # set tile -> the rows given it, in order
    for row, k in enumerate(choice.tolist()):
        holders.setdefault(k, []).append(row)
    # A reading moves only to one it finds at least as likely (module docstring); a read the
    # set's constraint would push to a less likely one keeps its own and becomes doubtful.
    # Of the reads that name one tile, the most likely keeps it plainly and the others keep it
    # as doubtful; the assignment only says what each of those could be instead.
    doubted: dict[int, int] = {}  # row -> the set tile the assignment would have given it
    assigned = choice.copy()
    choice = best_joint.copy()
    if len(index) <= len(candidates):
        for k in set(choice.tolist()):
            rows = np.flatnonzero(choice == k)
            if len(rows) < 2:
                continue
            keeper = int(rows[np.argmax(joint[rows, k])])
            for row in rows.tolist():
                if row != keeper:
                    doubted[row] = (
                        int(assigned[row])
                        if assigned[row] != k
                        else int(np.argsort(-joint[row])[1])
                    )
    for row, i in enumerate(index):
        tile = out[i]
        chosen = candidates[int(choice[row])]
        a, b = chosen
        lp = fused[row]
        # Orientation: which end shows which value (half 0 gets the smaller after the turn).
        flip = lp[0, b] + lp[1, a] > lp[0, a] + lp[1, b]
        corners, half_probs = tile.corners, read[i]
        p = probs[row]
        conf0, conf1 = (p[0, a], p[1, b]) if not flip else (p[1, a], p[0, b])
        confidence = (float(conf0), float(conf1))
        if flip:
            corners = np.roll(corners, -2, axis=0)
            half_probs = half_probs[::-1].copy()
        # Decoding again (with adjacency) mostly confirms the first decoding: such a tile is
        # kept as it is rather than copied and validated again.
        doubtful = tile.doubtful or row in doubted
        if flip or tile.pips != (a, b) or tile.pip_confidence != confidence or doubtful:
            out[i] = replace(
                tile,
                corners=corners,
                half_probs=half_probs,
                pips=(a, b),
                pip_confidence=confidence,
                doubtful=doubtful,
            )
        if row in doubted:
            others = [out[index[r]].id for r in np.flatnonzero(choice == choice[row]) if r != row]
            alternative = candidates[doubted[row]]
            template = messages.READ_TWICE if others else messages.READ_COLLIDES
            warnings.append(
                note(
                    template,
                    other=others[0] if others else None,
                    tile=tile.id,
                    reading=chosen,
                    alternative=alternative,
                    p_alternative=np.exp(alone[row, doubted[row]]),
                    p=np.exp(alone[row, choice[row]]),
                )
            )
            continue
        first = candidates[int(best_alone[row])]
        if first == chosen:
            continue
        if best_joint[row] != best_alone[row] and candidates[int(best_joint[row])] == chosen:
            mine = [g for g in groups if (tile.id, 0) in g or (tile.id, 1) in g]
            partners = sorted({t for g in mine for t, _ in g} - {tile.id})
            must = messages.MUST_MATCH_TILES if len(partners) > 1 else messages.MUST_MATCH_TILE
            # Shown with the pooled evidence that moved it: on its own the new read is the
            # less likely, which would read as the very move a read may not make.
            warnings.append(
                note(
                    messages.READ_CHANGED_TOGETHER,
                    tile=tile.id,
                    first=first,
                    p_first=np.exp(alone[row, best_alone[row]]),
                    chosen=chosen,
                    why=note(must, tiles=partners),
                    p=np.exp(joint[row, choice[row]]),
                    p_other=np.exp(joint[row, best_alone[row]]),
                )
            )
            continue
        holder = [out[index[r]].id for r in holders.get(int(best_alone[row]), []) if r != row]
        why = _reason(first, holder[0] if holder else None)
        warnings.append(
            note(
                messages.READ_CHANGED,
                tile=tile.id,
                first=first,
                p_first=np.exp(alone[row, best_alone[row]]),
                chosen=chosen,
                p=np.exp(alone[row, choice[row]]),
                why=why,
            )
        )
    return out, warnings


def _reason(first: tuple[int, int], holder: int | None) -> Note:
    """Why a read yielded: name the tile that now holds its first reading."""
    if holder is not None:
        return note(messages.WENT_TO_TILE, reading=first, holder=holder)
    return note(messages.COLLIDED, reading=first)
