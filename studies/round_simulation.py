"""How often a round is scored wrongly without a question, with and without the ledger
(issue 32): random rounds of every variant, read with faults, ruled by three policies.

    python -m studies.round_simulation --rounds 10000 --seed 0 [--json] [--quiet]

Each round is dealt and played by the rules engine (`rules.legal_moves`, `play`, `draw`,
`pass_turn`, random legal moves) until it blocks, someone goes out, or the host runs the
command at a random moment (play would go on). Then it is read, with faults at these rates
(`FaultRates`):

* a missed tile: one tile of a hand photo not read, in 3% of hand photos;
* a misread: a tile read as its neighbour (one half off by one pip), 1% of tiles read, on
  the table and in the hands. A table tile misread changes the ledger's tiles only: the
  open ends the ruling uses are taken as read right (the layout's own doubts are another
  measure, `dominocam layout-eval`);
* the reader's doubts: a misread's photo asks a person (the tile `doubtful`, or the photo
  `needs_review`) with the probability `studies.misread_doubts` measured on synthetic
  pictures (`FaultRates.misread_asks`); a tile read right is doubtful, a needless question,
  with its measured probability (`right_doubtful`). A photo that asks holds the round in
  every policy, as `dominocam round` does ("uncertain", whatever the verdict). The doubts
  are drawn after every other fault of the round, so that the rest of a run does not move
  with their rates;
* a stale hand: a player who proposed a block while able to play (a foul, 1% of the turns
  on which someone could play) had their hand photographed then; play resumed, and in 20%
  of such rounds that photo is the one used, still holding the tiles played since;
* a cheat, one round in 100: a player claims a tile that lies on the table or in another
  hand in place of their heaviest tile, or hides their heaviest tile;
* the boneyard: it lies in the table photo's view in 25% of rounds (its face-down tiles are
  then the whole boneyard); elsewhere the table photo shows no face-down tile.

Every round is ruled from the true state (the TRUE ruling) and by each policy:

* `today`: the code before the ledger: the readings as they are, the boneyard taken as the
  table photo's face-down tiles (0 when the boneyard lies beside the view). An invalid state
  (a tile in two hands) is an error, exit status 2: a question of a kind.
* `ledger`: `dominocam round` now: the ledger first (`dominocam.rules.ledger.reconcile`,
  `dominocam.rules.hold.verdict_hold`); the host gives `--boneyard-in-view` when the boneyard is in
  view and no count otherwise, so a block in a game that draws waits for the count.
* `ledger+count`: the same after the host answered: the true boneyard entered.

A ruling is wrong when it differs from the TRUE one: blocked or not, gone out or not, and
for a block the winner, ties and points. A held round asks the host first: never wrong.
Each policy is also ruled as with a reader that never doubts (`RoundResult.blind`: the
figures before the doubts were modelled), so that what the doubts catch shows in one run.
The figures are counts of rounds with Wilson 95% intervals (`dominocam.measure.metrics.wilson`).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from dominocam.errors import UserInputError
from dominocam.measure.metrics import wilson
from dominocam.rules import (
    GameState,
    Layout,
    Player,
    Tile,
    Variant,
    check,
    draw,
    full_set,
    get_variant,
    legal_moves,
    pass_turn,
    play,
    variant_names,
)
from dominocam.rules.hold import judged_boneyard, verdict_hold
from dominocam.rules.ledger import BoneyardReport, FaceDown, HandReport, TableReport, reconcile
from dominocam.rules.verdict import Verdict

NAMES = ("Ana", "Ben", "Caro", "Dan", "Eva", "Finn")
MAX_PLAYERS = len(NAMES)
MAX_TURNS = 1000

# Kinds of fault, as the report names them.
MISSED, MISREAD, STALE, CHEAT, BONEYARD = "missed", "misread", "stale", "cheat", "boneyard"
FAULT_KINDS = (MISSED, MISREAD, STALE, CHEAT, BONEYARD)
READING_FAULTS = (MISSED, MISREAD, STALE, CHEAT)
FAULT_TITLES = {
    MISSED: "missed tile",
    MISREAD: "misread",
    STALE: "stale hand",
    CHEAT: "cheating claim",
    BONEYARD: "boneyard wrong (today's default)",
}
POLICIES = ("today", "ledger", "ledger+count")
POLICY_TITLES = {
    "today": "today (boneyard = face-down tiles)",
    "ledger": "ledger (no --boneyard)",
    "ledger+count": "ledger + the host's count",
}
RULED, HELD, ERROR = "ruled", "held", "error"

# The reader's doubts as (k, n), measured by `python -m studies.misread_doubts --synthetic
# runs/data/holdout:val --realval ../shared/realval` (docs/decisions/
# 2026-12-03-honest-calibration.md, committed models and calibration): of the misread tiles,
# those whose photo asks a person (the tile doubtful, or the photo needs review); of those,
# the tile itself doubtful; of the tiles read right, those marked doubtful. Synthetic (the
# defaults: the val half of the calibration's `holdout` set), and real (the 108 scenes and
# 574 tile crops).
MISREAD_ASKS_SYNTHETIC_KN = (74, 74)
MISREAD_ASKS_REAL_KN = (5, 5)
MISREAD_DOUBTFUL_SYNTHETIC_KN = (69, 74)
MISREAD_DOUBTFUL_REAL_KN = (5, 5)
RIGHT_DOUBTFUL_SYNTHETIC_KN = (173, 1042)
RIGHT_DOUBTFUL_REAL_KN = (433, 1406)
MISREAD_ASKS_SYNTHETIC = MISREAD_ASKS_SYNTHETIC_KN[0] / MISREAD_ASKS_SYNTHETIC_KN[1]
MISREAD_ASKS_REAL = MISREAD_ASKS_REAL_KN[0] / MISREAD_ASKS_REAL_KN[1]
RIGHT_DOUBTFUL_SYNTHETIC = RIGHT_DOUBTFUL_SYNTHETIC_KN[0] / RIGHT_DOUBTFUL_SYNTHETIC_KN[1]
RIGHT_DOUBTFUL_REAL = RIGHT_DOUBTFUL_REAL_KN[0] / RIGHT_DOUBTFUL_REAL_KN[1]


@dataclass(frozen=True)
class FaultRates:
    """How often each fault is injected (module docstring).

    Attributes:
        missed_tile: per hand photo, one tile not read.
        misread: per tile read (table and hands), read as a neighbour.
        foul: per turn on which the player to move can play, a false block proposal.
        stale_after_foul: per round with a foul, the hand photo of its time is used.
        cheat: per round, one player claims or hides a tile.
        boneyard_in_view: per round, the boneyard lies in the table photo's view.
        stop: per turn, the host runs the command now (play would go on).
        misread_asks: per misread, its photo asks a person (the tile doubtful, or the photo
            needs review). Default: the synthetic figure of `studies.misread_doubts`
            (`MISREAD_ASKS_SYNTHETIC`; the real one is `MISREAD_ASKS_REAL`).
        right_doubtful: per tile read right, it is marked doubtful (a needless question;
            `RIGHT_DOUBTFUL_SYNTHETIC`, real `RIGHT_DOUBTFUL_REAL`).
    """

    missed_tile: float = 0.03
    misread: float = 0.01
    foul: float = 0.01
    stale_after_foul: float = 0.20
    cheat: float = 0.01
    boneyard_in_view: float = 0.25
    stop: float = 0.01
    misread_asks: float = MISREAD_ASKS_SYNTHETIC
    right_doubtful: float = RIGHT_DOUBTFUL_SYNTHETIC


@dataclass(frozen=True)
class Played:
    """A round played to its end.

    Attributes:
        state: the true state at the end (the boneyard's tiles known).
        foul_photo: (player, hand) photographed at the last foul, when there was one.
        end: "blocked", "domino" or "stopped" (the host ran the command mid-play).
    """

    state: GameState
    foul_photo: tuple[str, tuple[Tile, ...]] | None
    end: str


@dataclass(frozen=True)
class Readings:
    """What the photos and the host say about a round.

    Attributes:
        hands: each player's hand as read, in seat order.
        table: the table's face-up tiles as read.
        face_down: the table photo's face-down tiles (the boneyard when in view, else 0).
        in_view: the boneyard lies in view (the host says so: `--boneyard-in-view`).
        faults: the kinds of fault that changed a reading.
        hidden_misreads: misreads into a tile that truly lies in the stock (nowhere seen).
        misreads_asked: misreads whose photo asks a person (`FaultRates.misread_asks`).
        hidden_asked: of the `hidden_misreads`, those whose photo asks.
        needless_doubts: tiles read right but marked doubtful.
    """

    hands: tuple[tuple[Tile, ...], ...]
    table: tuple[Tile, ...]
    face_down: int
    in_view: bool
    faults: frozenset[str]
    hidden_misreads: int = 0
    misreads_asked: int = 0
    hidden_asked: int = 0
    needless_doubts: int = 0

    @property
    def asks(self) -> bool:
        """Some photo asks a person to check it before a ruling counts."""
        return bool(self.misreads_asked or self.needless_doubts)


@dataclass(frozen=True)
class Ruling:
    """One policy's answer: `RULED` with an outcome, `HELD` for the host, or `ERROR`."""

    kind: str
    outcome: tuple | None = None


@dataclass(frozen=True)
class RoundResult:
    """One simulated round: its variant, truth, faults and each policy's ruling.

    Attributes:
        variant: the variant's name.
        players: how many played.
        end: how play ended (`Played.end`).
        truth: the TRUE ruling's outcome.
        faults: the fault kinds (`BONEYARD` when today's count changes what can be drawn).
        hidden_misreads: misreads into a tile that lies in the stock.
        hidden_changed: with the true boneyard, the readings' ruling differs from the truth.
        hidden_asked: of the `hidden_misreads`, those whose photo asks.
        asks: some photo asks a person (`Readings.asks`).
        needless_only: it asks, and only for tiles read right.
        rulings: policy -> its `Ruling`, the reader's doubts heeded.
        blind: policy -> its `Ruling` with a reader that never doubts.
        wrong: policy -> ruled, and differs from the truth.
    """

    variant: str
    players: int
    end: str
    truth: tuple
    faults: frozenset[str]
    hidden_misreads: int
    hidden_changed: bool
    hidden_asked: int = 0
    asks: bool = False
    needless_only: bool = False
    rulings: dict[str, Ruling] = field(default_factory=dict)
    blind: dict[str, Ruling] = field(default_factory=dict)

    @property
    def wrong(self) -> dict[str, bool]:
        return {name: self._wrong(ruling) for name, ruling in self.rulings.items()}

    @property
    def wrong_blind(self) -> dict[str, bool]:
        """`wrong` with a reader that never doubts."""
        return {name: self._wrong(ruling) for name, ruling in self.blind.items()}

    def _wrong(self, ruling: Ruling) -> bool:
        return ruling.kind == RULED and ruling.outcome != self.truth


# --- dealing and playing ---------------------------------------------------------------------


def deal(variant: Variant, players: int, rnd: random.Random) -> GameState:
    """A fresh round dealt at the variant's hand size; train games set their engine (the
    set's top double) on the table first."""
    n = variant.set
    tiles = full_set(n)
    rnd.shuffle(tiles)
    layout = Layout()
    if variant.layout == "mexican":
        layout = Layout(engine=Tile(n, n))
        tiles.remove(Tile(n, n))
    elif variant.layout == "chicken":
        layout = Layout(spinner=Tile(n, n))
        tiles.remove(Tile(n, n))
    size = variant.hand_size(players)
    seats = tuple(Player(NAMES[i], tuple(tiles[i * size : (i + 1) * size])) for i in range(players))
    rest = tuple(tiles[players * size :])
    return GameState(variant, seats, layout, n, boneyard_tiles=rest)


def take_turn(state: GameState, name: str, rnd: random.Random) -> tuple[GameState, bool]:
    """One turn: draw as the variant says while nothing plays, then play a random legal
    move or pass. Returns the state and whether a tile was played."""
    moves = legal_moves(state, name)
    while not moves and state.drawable and state.boneyard_tiles:
        state = draw(state, name)
        moves = legal_moves(state, name)
        if state.variant.draw == "one-then-pass":
            break
    if moves:
        return play(state, rnd.choice(moves)), True
    return pass_turn(state, name), False


def play_round(state: GameState, rates: FaultRates, rnd: random.Random) -> Played:
    """Play until a block, a domino, or a random stop; photograph a fouler's hand."""
    photo: tuple[str, tuple[Tile, ...]] | None = None
    passes = 0
    for turn in range(MAX_TURNS):
        if any(not p.hand for p in state.players):
            return Played(state, photo, "domino")
        if passes >= len(state.players) and state.drawable == 0 and check(state).blocked:
            return Played(state, photo, "blocked")
        if turn and rnd.random() < rates.stop:
            return Played(state, photo, "stopped")
        name = state.active_names[turn % len(state.active_names)]
        if rnd.random() < rates.foul and legal_moves(state, name):
            photo = (name, state.player(name).hand)  # "I cannot play": a foul
        state, played = take_turn(state, name, rnd)
        passes = 0 if played else passes + 1
    return Played(state, photo, "stopped")


# --- reading, with faults ------------------------------------------------------------------


def neighbour(tile: Tile, max_pip: int, rnd: random.Random) -> Tile:
    """`tile` with one half read one pip off, within the set."""
    halves = [tile.low, tile.high]
    side = rnd.randrange(2)
    step = rnd.choice((-1, 1))
    value = halves[side] + step
    if not 0 <= value <= max_pip:
        value = halves[side] - step
    halves[side] = value
    return Tile.of(*halves)


def read_round(played: Played, rates: FaultRates, rnd: random.Random) -> Readings:
    """The photos of `played` with faults injected (module docstring)."""
    state = played.state
    n = state.max_pip or state.variant.set
    hands = [list(p.hand) for p in state.players]
    table = [tile for tile, _where in state.layout.table_tiles()]
    faults: set[str] = set()
    if played.foul_photo and rnd.random() < rates.stale_after_foul:
        name, old = played.foul_photo
        seat = state.names.index(name)
        if sorted(old) != sorted(hands[seat]):
            hands[seat] = list(old)
            faults.add(STALE)
    if rnd.random() < rates.cheat:
        faults |= _cheat(hands, table, rnd)
    for hand in hands:
        if hand and rnd.random() < rates.missed_tile:
            hand.pop(rnd.randrange(len(hand)))
            faults.add(MISSED)
    stock = set(state.boneyard_tiles or ())
    misreads: list[bool] = []  # per misread: into a tile of the stock (hidden)
    right = 0
    for tiles in (*hands, table):
        for i, tile in enumerate(tiles):
            if rnd.random() < rates.misread:
                tiles[i] = neighbour(tile, n, rnd)
                faults.add(MISREAD)
                misreads.append(tiles[i] in stock)
            else:
                right += 1
    in_view = rnd.random() < rates.boneyard_in_view
    # The reader's doubts, drawn last: the readings above do not move with their rates.
    asked = [rnd.random() < rates.misread_asks for _ in misreads]
    needless = sum(rnd.random() < rates.right_doubtful for _ in range(right))
    return Readings(
        hands=tuple(tuple(hand) for hand in hands),
        table=tuple(table),
        face_down=state.boneyard if in_view else 0,
        in_view=in_view,
        faults=frozenset(faults),
        hidden_misreads=sum(misreads),
        misreads_asked=sum(asked),
        hidden_asked=sum(a and h for a, h in zip(asked, misreads, strict=True)),
        needless_doubts=needless,
    )


def _cheat(hands: list[list[Tile]], table: list[Tile], rnd: random.Random) -> set[str]:
    """One player claims a light tile that lies elsewhere in place of their heaviest, or
    hides their heaviest. Changes `hands` in place."""
    seats = [i for i, hand in enumerate(hands) if hand]
    if not seats:
        return set()
    seat = rnd.choice(seats)
    heaviest = max(hands[seat], key=lambda tile: (tile.pips, tile))
    hands[seat].remove(heaviest)
    if rnd.random() < 0.5:
        elsewhere = table + [t for i, hand in enumerate(hands) if i != seat for t in hand]
        if elsewhere:
            hands[seat].append(min(elsewhere, key=lambda tile: (tile.pips, tile)))
    return {CHEAT}


# --- the policies ---------------------------------------------------------------------------


def outcome(verdict: Verdict) -> tuple:
    """What a ruling decides: the status, and for a block the winner, ties and points."""
    if verdict.blocked:
        points = tuple(sorted(verdict.points.items()))
        return ("blocked", verdict.winner, tuple(verdict.tied), points)
    if verdict.went_out:
        return ("went-out", tuple(verdict.went_out))
    return ("playing",)


def read_state(
    state: GameState, readings: Readings, boneyard: int, clamp: bool = False
) -> GameState:
    """The game state `dominocam round` builds from the readings: the hands as read, the
    layout's open ends (and hub) without its tiles, the boneyard as given (`clamp`: no more
    than the tiles the hands leave, as `dominocam round` now judges).

    Raises:
        UserInputError: the readings make no valid state (a tile in two hands, a boneyard
            larger than the tiles left).
    """
    players = tuple(
        replace(p, hand=hand) for p, hand in zip(state.players, readings.hands, strict=True)
    )
    lines = tuple(replace(line, tiles=(), root=None) for line in state.layout.lines)
    layout = replace(state.layout, lines=lines)
    if clamp:
        held = {tile for hand in readings.hands for tile in hand}
        hub = {tile for tile, _where in layout.table_tiles()}
        free = len(full_set(state.max_pip or state.variant.set)) - len(held | hub)
        boneyard = min(boneyard, max(0, free))
    return replace(state, players=players, layout=layout, boneyard=boneyard, boneyard_tiles=None)


def rule_today(state: GameState, readings: Readings) -> Ruling:
    """Before the ledger: the readings as they are, the boneyard = the face-down tiles."""
    try:
        verdict = check(read_state(state, readings, readings.face_down))
    except UserInputError:
        return Ruling(ERROR)
    return Ruling(RULED, outcome(verdict))


def rule_with_ledger(state: GameState, readings: Readings, boneyard: BoneyardReport) -> Ruling:
    """`dominocam round` with the ledger: hold when it does not add up, or when a block in a
    game that draws turns on a boneyard nobody counted; else rule on the readings."""
    face_down = FaceDown.STOCK if readings.in_view else FaceDown.UNSORTED
    ledger = reconcile(
        state.variant,
        [
            HandReport.pending(p.name, hand)
            for p, hand in zip(state.players, readings.hands, strict=True)
        ],
        TableReport(readings.table, readings.face_down, face_down),
        boneyard,
        max_pip=state.max_pip,
    )
    # As `dominocam round`: the count counted or entered, else 0 as a stand-in only.
    count = judged_boneyard(ledger)
    try:
        verdict: Verdict | None = check(read_state(state, readings, count, clamp=True))
    except UserInputError:
        verdict = None
    if verdict_hold(ledger, verdict) or verdict is None:
        return Ruling(HELD)
    return Ruling(RULED, outcome(verdict))


def simulate_round(index: int, seed: int, rates: FaultRates) -> RoundResult:
    """Round `index` of the run `seed`: dealt, played, read and ruled (reproducible alone)."""
    rnd = random.Random(f"round-simulation-{seed}-{index}")
    variant = get_variant(rnd.choice(variant_names()))
    counts = [c for c in variant.player_counts if c <= MAX_PLAYERS]
    players = rnd.choice(counts)
    played = play_round(deal(variant, players, rnd), rates, rnd)
    readings = read_round(played, rates, rnd)
    state = played.state
    truth = outcome(check(state))
    faults = set(readings.faults)
    if variant.drawable(readings.face_down) != variant.drawable(state.boneyard):
        faults.add(BONEYARD)
    blind = {
        "today": rule_today(state, readings),
        "ledger": rule_with_ledger(state, readings, BoneyardReport.unknown()),
        "ledger+count": rule_with_ledger(state, readings, BoneyardReport.entered(state.boneyard)),
    }
    # A photo that asks holds every ruling until a person has checked it (`dominocam round`:
    # "uncertain" whatever the verdict; the dashboard: the host checks the table, each
    # owner confirms their hand).
    rulings = {name: heed_doubts(ruling, readings) for name, ruling in blind.items()}
    changed = False
    if readings.hidden_misreads:
        try:
            as_read = check(read_state(state, readings, state.boneyard, clamp=True))
            changed = outcome(as_read) != truth
        except UserInputError:
            changed = True
    return RoundResult(
        variant=variant.name,
        players=players,
        end=played.end,
        truth=truth,
        faults=frozenset(faults),
        hidden_misreads=readings.hidden_misreads,
        hidden_changed=changed,
        hidden_asked=readings.hidden_asked,
        asks=readings.asks,
        needless_only=readings.asks and not readings.misreads_asked,
        rulings=rulings,
        blind=blind,
    )


def heed_doubts(ruling: Ruling, readings: Readings) -> Ruling:
    """`ruling` as given when the photos ask a person: held (an error stays an error)."""
    if readings.asks and ruling.kind == RULED:
        return Ruling(HELD)
    return ruling


# --- the report -----------------------------------------------------------------------------


def command(rounds: int, seed: int, rates: FaultRates) -> str:
    """The command line that makes these figures again."""
    said = f"python -m studies.round_simulation --rounds {rounds} --seed {seed}"
    if rates.misread_asks != MISREAD_ASKS_SYNTHETIC:
        said += f" --misread-asks {rates.misread_asks:g}"
    if rates.right_doubtful != RIGHT_DOUBTFUL_SYNTHETIC:
        said += f" --right-doubtful {rates.right_doubtful:g}"
    return said


def rate(k: int, n: int) -> dict[str, object]:
    """k of n with its Wilson 95% interval."""
    low, high = wilson(k, n) if n else (0.0, 1.0)
    return {"k": k, "n": n, "rate": k / n if n else None, "low": low, "high": high}


def summarize(results: Sequence[RoundResult], seed: int, rates: FaultRates) -> dict:
    """The figures of a run, as JSON-able values."""
    total = len(results)
    policies = {}
    for name in POLICIES:
        kinds = Counter(r.rulings[name].kind for r in results)
        held = [r for r in results if r.rulings[name].kind == HELD]
        without = [r for r in held if not r.faults & set(READING_FAULTS)]
        policies[name] = {
            "wrong": rate(sum(r.wrong[name] for r in results), total),
            "wrong_without_doubts": rate(sum(r.wrong_blind[name] for r in results), total),
            "held": rate(len(held), total),
            "held_without_doubts": sum(r.blind[name].kind == HELD for r in results),
            "held_for_a_doubt_alone": sum(
                r.blind[name].kind == RULED and r.rulings[name].kind == HELD for r in results
            ),
            "held_with_a_reading_fault": len(held) - len(without),
            "held_without": len(without),
            "held_without_for_a_needless_doubt": sum(
                r.needless_only and r.blind[name].kind == RULED for r in without
            ),
            "held_without_by_truth": dict(sorted(Counter(r.truth[0] for r in without).items())),
            "errors": kinds[ERROR],
            "ruled": kinds[RULED],
        }
    by_fault = {}
    for kind in (*FAULT_KINDS, "none"):
        rows = [r for r in results if (kind in r.faults if kind != "none" else not r.faults)]
        by_fault[kind] = {
            "rounds": len(rows),
            **{
                name: {
                    "wrong": sum(r.wrong[name] for r in rows),
                    "held": sum(r.rulings[name].kind == HELD for r in rows),
                    "errors": sum(r.rulings[name].kind == ERROR for r in rows),
                }
                for name in POLICIES
            },
        }
    hidden = [r for r in results if r.hidden_misreads]
    changed = [r for r in hidden if r.hidden_changed]
    # A confident misread into a hidden tile: none of the round's hidden misreads asks.
    confident = [r for r in changed if r.hidden_asked < r.hidden_misreads]
    asking = [r for r in results if r.asks]
    truths = Counter(r.truth[0] for r in results)
    return {
        "command": command(total, seed, rates),
        "rounds": total,
        "seed": seed,
        "rates": rates.__dict__,
        "variants": dict(sorted(Counter(r.variant for r in results).items())),
        "players": dict(sorted(Counter(r.players for r in results).items())),
        "ends": dict(sorted(Counter(r.end for r in results).items())),
        "truth": dict(sorted(truths.items())),
        "faults": {kind: by_fault[kind]["rounds"] for kind in (*FAULT_KINDS, "none")},
        "policies": policies,
        "by_fault": by_fault,
        "doubts": {
            "misread_asks": rates.misread_asks,
            "misread_asks_real": MISREAD_ASKS_REAL,
            "measured": {
                "misread_asks_synthetic": rate(*MISREAD_ASKS_SYNTHETIC_KN),
                "misread_asks_real": rate(*MISREAD_ASKS_REAL_KN),
                "misread_doubtful_synthetic": rate(*MISREAD_DOUBTFUL_SYNTHETIC_KN),
                "misread_doubtful_real": rate(*MISREAD_DOUBTFUL_REAL_KN),
                "right_doubtful_synthetic": rate(*RIGHT_DOUBTFUL_SYNTHETIC_KN),
                "right_doubtful_real": rate(*RIGHT_DOUBTFUL_REAL_KN),
            },
            "right_doubtful": rates.right_doubtful,
            "right_doubtful_real": RIGHT_DOUBTFUL_REAL,
            "rounds_asking": rate(len(asking), total),
            "rounds_asking_for_a_misread": sum(not r.needless_only for r in asking),
            "rounds_asking_only_needlessly": sum(r.needless_only for r in asking),
        },
        "uncatchable": {
            "rounds_with_a_misread_into_a_hidden_tile": len(hidden),
            "changed_the_ruling": rate(len(changed), len(hidden)),
            "of_those_not_asked": len(confident),
            "ruled_wrongly_by_ledger+count": sum(r.wrong["ledger+count"] for r in changed),
            "ruled_wrongly_by_ledger": sum(r.wrong["ledger"] for r in changed),
            "ruled_wrongly_without_doubts_by_ledger+count": sum(
                r.wrong_blind["ledger+count"] for r in changed
            ),
            "ruled_wrongly_without_doubts_by_ledger": sum(r.wrong_blind["ledger"] for r in changed),
            "unchanged_and_ruled_right_by_ledger+count": sum(
                not r.wrong_blind["ledger+count"] for r in hidden if not r.hidden_changed
            ),
        },
        "wrong_without_doubts_by_variant": {
            variant: {
                name: sum(r.wrong_blind[name] for r in results if r.variant == variant)
                for name in POLICIES
            }
            for variant in sorted({r.variant for r in results})
        },
        "wrong_by_variant": {
            variant: {
                name: sum(r.wrong[name] for r in results if r.variant == variant)
                for name in POLICIES
            }
            for variant in sorted({r.variant for r in results})
        },
    }


def _percent(figure: dict) -> str:
    if not figure["n"]:
        return "n/a"
    return (
        f"{figure['k']} ({100 * figure['rate']:.2f}%, "
        f"95% CI {100 * figure['low']:.2f}-{100 * figure['high']:.2f}%)"
    )


def format_report(summary: dict) -> str:
    """The figures as a plain-text table."""
    doubts = summary["doubts"]
    lines = [
        f"Round simulation: {summary['rounds']} rounds, seed {summary['seed']}",
        "  variants: " + ", ".join(f"{k} {v}" for k, v in summary["variants"].items()),
        "  players: " + ", ".join(f"{k}: {v}" for k, v in summary["players"].items()),
        "  play ended: " + ", ".join(f"{k} {v}" for k, v in summary["ends"].items()),
        "  TRUE rulings: " + ", ".join(f"{k} {v}" for k, v in summary["truth"].items()),
        "  faults (rounds): "
        + ", ".join(f"{FAULT_TITLES[k]} {summary['faults'][k]}" for k in FAULT_KINDS)
        + f", none {summary['faults']['none']}",
        "",
        f"  the reader's doubts: a misread's photo asks with p = {doubts['misread_asks']:.3f} "
        f"(synthetic; real {doubts['misread_asks_real']:.3f}), a tile read right is doubtful "
        f"with p = {doubts['right_doubtful']:.4f} (real {doubts['right_doubtful_real']:.4f}); "
        f"rounds that ask: {_percent(doubts['rounds_asking'])}, "
        f"{doubts['rounds_asking_only_needlessly']} of them only for tiles read right",
        "",
        f"{'policy':<36} {'scored wrongly, no question':<38} held for the host",
    ]
    for name in POLICIES:
        row = summary["policies"][name]
        held = (
            f"{_percent(row['held'])}: {row['held_with_a_reading_fault']} with a reading "
            f"fault, {row['held_without']} without ({row['held_without_for_a_needless_doubt']} "
            "for a needless doubt alone)"
        )
        error = f"; an error (exit 2) in {row['errors']}" if row["errors"] else ""
        lines.append(f"{POLICY_TITLES[name]:<36} {_percent(row['wrong']):<38} {held}{error}")
    lines.append("With a reader that never doubts (before the doubts were modelled):")
    for name in POLICIES:
        row = summary["policies"][name]
        lines.append(
            f"  {POLICY_TITLES[name]:<34} {_percent(row['wrong_without_doubts']):<38} "
            f"{row['held_without_doubts']} held"
        )
    for name in POLICIES:
        truths = summary["policies"][name]["held_without_by_truth"]
        if truths:
            said = ", ".join(f"{k} {v}" for k, v in truths.items())
            lines.append(f"  {name}: held without a reading fault, by the TRUE ruling: {said}")
    lines += ["", "By fault (a round may have several):"]
    head = f"{'fault':<34} {'rounds':>6}"
    for name in POLICIES:
        head += f" {name + ' wrong':>19} {'held':>6}"
    lines.append(head)
    for kind in (*FAULT_KINDS, "none"):
        row = summary["by_fault"][kind]
        line = f"{FAULT_TITLES.get(kind, 'no fault'):<34} {row['rounds']:>6}"
        for name in POLICIES:
            line += f" {row[name]['wrong']:>19} {row[name]['held']:>6}"
        lines.append(line)
    lines += ["", "Wrong rulings by variant:"]
    for variant, row in summary["wrong_by_variant"].items():
        lines.append(f"  {variant:<14} " + ", ".join(f"{k} {v}" for k, v in row.items()))
    hidden = summary["uncatchable"]
    lines += [
        "",
        "Uncatchable by counting: a misread into a tile in no other place (the boneyard or the "
        "sleeping tiles):",
        f"  rounds with one: {hidden['rounds_with_a_misread_into_a_hidden_tile']}; it changed "
        f"the ruling (true boneyard) in {_percent(hidden['changed_the_ruling'])};",
        f"  {hidden['of_those_not_asked']} of those had a hidden misread whose photo asked "
        "nothing (a confident misread);",
        f"  of those, ruled wrongly by the ledger policy {hidden['ruled_wrongly_by_ledger']}, "
        f"by the ledger with the count {hidden['ruled_wrongly_by_ledger+count']} (a reader "
        f"that never doubts: {hidden['ruled_wrongly_without_doubts_by_ledger']}, "
        f"{hidden['ruled_wrongly_without_doubts_by_ledger+count']});",
        f"  of the rounds where it changed nothing, ruled right by the ledger with the count "
        f"(never doubting) {hidden['unchanged_and_ruled_right_by_ledger+count']} of "
        f"{hidden['rounds_with_a_misread_into_a_hidden_tile'] - len_changed(hidden)}.",
    ]
    return "\n".join(lines)


def len_changed(hidden: dict) -> int:
    """The rounds whose hidden misread changed the ruling (`summarize`'s `uncatchable`)."""
    return int(hidden["changed_the_ruling"]["k"])


def run(rounds: int, seed: int, rates: FaultRates, progress: Iterable[int]) -> dict:
    """Simulate `rounds` rounds (iterating `progress`, e.g. a tqdm range) and summarize."""
    results = [simulate_round(index, seed, rates) for index in progress]
    return summarize(results, seed, rates)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m studies.round_simulation",
        description=(
            "Simulate random rounds of every variant, read them with faults, and count the "
            "rounds each policy scores wrongly without a question: today's code, the ledger, "
            "and the ledger with the host's boneyard count (issue 32)."
        ),
    )
    parser.add_argument("--rounds", type=int, default=10000, help="rounds (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--misread-asks",
        type=float,
        default=MISREAD_ASKS_SYNTHETIC,
        metavar="P",
        help=(
            "probability that a misread's photo asks a person (default "
            f"{MISREAD_ASKS_SYNTHETIC:.3f}, measured on synthetic pictures; real "
            f"{MISREAD_ASKS_REAL:.3f})"
        ),
    )
    parser.add_argument(
        "--right-doubtful",
        type=float,
        default=RIGHT_DOUBTFUL_SYNTHETIC,
        metavar="P",
        help=(
            "probability that a tile read right is marked doubtful (default "
            f"{RIGHT_DOUBTFUL_SYNTHETIC:.4f}, synthetic; real {RIGHT_DOUBTFUL_REAL:.4f})"
        ),
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        print("dominocam: error: --rounds must be at least 1", file=sys.stderr)
        return 2
    if not (0.0 <= args.misread_asks <= 1.0 and 0.0 <= args.right_doubtful <= 1.0):
        print("dominocam: error: a probability must lie in 0..1", file=sys.stderr)
        return 2
    from tqdm import tqdm

    progress = tqdm(
        range(args.rounds), desc="rounds", unit="round", disable=args.quiet, file=sys.stderr
    )
    rates = FaultRates(misread_asks=args.misread_asks, right_doubtful=args.right_doubtful)
    summary = run(args.rounds, args.seed, rates, progress)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(format_report(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
