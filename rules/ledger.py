"""The round's ledger: where every tile of the set is, and what does not add up (issue 32).

Each photo and each hand is read alone, so a referee that reads every photo well can still
score a round wrongly: a tile missed in one hand, or read as a tile that another hand holds,
looks right in its own photo. The ledger puts the readings of one round side by side and
counts them against the set, the way players do when a score is disputed.

A tile of a double-n set (N = (n+1)(n+2)/2 tiles) is in exactly one place: face up on the
table; in a player's hand, read from its photo (`confirmed` by the player, or `pending`: read
but not yet confirmed, still a claim that counts); or hidden, its identity unknown - in the
stock of undealt tiles (the boneyard of a game that draws, the sleeping tiles of one that
never draws: `Variant.undealt`), in a hand known only by its count, or among face-down tiles
on the table.

What counting proves, and nothing more (the problem codes are `ProblemCode`):

* A tile read in two places (the table twice, two hands, the table and a hand) is an error
  of some reading; so is a tile with a half above n.
* The places' known counts cannot add up to more than N, and the face-up and face-down
  tiles of one photo are different tiles (up + down <= N).
* When every count is known from its own source (every hand's count, the stock counted,
  entered or fixed by the deal, no face-down tile of unsaid place), they must add up to N
  exactly; when they fall short, and no hidden place is left to hold the tiles seen nowhere,
  those tiles are named: "28 tiles in the set, 27 seen: 4-6 is nowhere".
* A hand cannot hold more than it was dealt plus everything it could have drawn; the stock
  only shrinks from the deal, and in a game that never draws it stays what the deal left.
* The boneyard is derived from the other places when they are all known, bounded when
  some are not, and "unknown" otherwise: never 0 by default, because the blocked game's
  condition 2 ("the boneyard cannot supply a tile", docs/rules.md, the blocked game) must be known,
  not assumed.

A table that was not read (its lines entered by hand, by their open ends:
`TableReport.unknown()`) is one more hidden place: it may hold any tile read nowhere else, and
any number of them, so only the readings that were made are checked (a tile twice, a hand
above its deal, more tiles than the set) and nothing closes.

What counting cannot catch: a tile misread as one that is in no other place (still hidden
in the stock or an unread hand) leaves every count right, and so does any error that an
unknown count absorbs (a hand read only in part, a boneyard nobody counted). `Ledger.closes`
says when every count was checked against the set.

The result carries machine codes and typed values, no words: the server turns them into
messages, and filters them first, because a problem can name the tiles of another player's
hand (`Holder.pending` and `Holder.player` say whose).

    # Draw, 2 players dealt 7 each; 3 tiles played, none drawn yet.
    ledger = reconcile(
        get_variant("draw"),
        hands=[HandReport.confirmed("Ana", ana_5_tiles), HandReport.unknown("Ben", count=6)],
        table=TableReport(face_up=played_3_tiles),
        boneyard=BoneyardReport.counted(14),
    )
    ledger.adds_up, ledger.closes    # True, True: 3 + 5 + 6 + 14 = 28
    ledger.places[Tile(4, 6)]         # Place(SEEN, (Holder(HAND, "Ana"),)) or UNSEEN in ...
    ledger.boneyard, ledger.nothing_to_draw, ledger.problems, ledger.to_dict()
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from dominocam.errors import Refused, UserInputError
from dominocam.rules.tiles import SUPPORTED_SETS, Tile, full_set, set_size
from dominocam.rules.variants import Variant


class HandStatus(StrEnum):
    """How much is known of a hand."""

    CONFIRMED = "confirmed"  # read from its photo and confirmed by the player
    PENDING = "pending"  # read from its photo, not yet confirmed: a claim all the same
    UNKNOWN = "unknown"  # not read: at most its count is known


class FaceDown(StrEnum):
    """What the face-down tiles of the table photo are."""

    # Not said: each may be a tile of a hand laid down, of the stock in view, or a tile
    # apart from every place; so they bound the total instead of adding to it.
    UNSORTED = "unsorted"
    STOCK = "stock"  # the stock lies in view: these are all its tiles, its count


class CountSource(StrEnum):
    """Where a count of the stock (the boneyard or the sleeping tiles) comes from."""

    COUNTED = "counted"  # counted in a photo (or the stock's face-down tiles on the table)
    ENTERED = "entered"  # entered by the host
    DEAL = "deal"  # fixed by the deal: the sleeping tiles of a game that never draws
    DERIVED = "derived"  # the set less every other place, all of them known
    NONE = "none"  # the variant has no such stock (no boneyard in Block, no sleeping in Draw)
    UNKNOWN = "unknown"


class HolderKind(StrEnum):
    """The kinds of place a tile can be in."""

    TABLE = "table"  # face up on the table
    HAND = "hand"  # a player's hand
    BONEYARD = "boneyard"
    SLEEPING = "sleeping"
    FACE_DOWN = "face-down"  # among face-down tiles on the table, apart from every other place


class PlaceStatus(StrEnum):
    """What the ledger knows of one tile of the set."""

    SEEN = "seen"  # read in exactly one place
    TWICE = "twice"  # read in two or more places: a reading is wrong
    UNSEEN = "unseen"  # read nowhere; `Place.holders` are the hidden places that may hold it
    NOWHERE = "nowhere"  # read nowhere, and no hidden place is left to hold it


class ProblemCode(StrEnum):
    """What does not add up. `Problem.expected` and `Problem.found` are tile counts."""

    TILE_TWICE = "tile-twice"  # one tile read in two places (`holders`: all of them)
    TILE_OUTSIDE_SET = "tile-outside-set"  # a half above the set's n (`expected`: n)
    TILE_NOWHERE = "tile-nowhere"  # `tiles` are in no place; `expected`: N, `found`: tiles seen
    TOO_MANY_TILES = "too-many-tiles"  # the places hold more than N (`found`: at least this)
    TOO_FEW_TILES = "too-few-tiles"  # every count known, they hold fewer than N (`found`)
    HAND_COUNT_DIFFERS = "hand-count-differs"  # a photo shows `found` of the `expected` held
    HAND_ABOVE_DEAL = "hand-above-deal"  # more than dealt plus drawable (`expected`: at most)
    STOCK_COUNTS_DIFFER = "stock-counts-differ"  # report `expected`, face-down stock `found`
    BONEYARD_ABOVE_DEAL = "boneyard-above-deal"  # more than the deal left (`expected`)
    SLEEPING_NOT_AS_DEALT = "sleeping-not-as-dealt"  # not what the deal set aside (`expected`)


def _tiles(value: Iterable[Tile], where: str) -> tuple[Tile, ...]:
    # Lists are accepted for convenience and frozen here, so that a result never aliases input.
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise UserInputError(f"{where} must be a list of tiles, got {value!r}")
    tiles = tuple(value)
    if not all(isinstance(tile, Tile) for tile in tiles):
        raise UserInputError(f"{where} must hold only Tile values")
    return tiles


def _count(value: object, where: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise UserInputError(f"{where} must be a whole number of tiles >= 0, got {value!r}")
    return value


# --- what the caller knows ----------------------------------------------------------------------


@dataclass(frozen=True)
class HandReport:
    """One player's hand as far as it is known.

    Build it with `HandReport.confirmed`, `.pending` or `.unknown`.

    Attributes:
        player: the player's name.
        status: `HandStatus`.
        tiles: the tiles read from the hand's photo (none for an unknown hand).
        count: how many tiles the hand holds when known apart from its photo (the player
            said so, the camera counted the tiles); None for a read hand means "as many as
            read", for an unknown hand "not known".
    """

    player: str
    status: HandStatus
    tiles: tuple[Tile, ...] = ()
    count: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.player, str) or not self.player.strip():
            raise UserInputError(f"a hand needs its player's name (text), got {self.player!r}")
        object.__setattr__(self, "status", HandStatus(self.status))
        object.__setattr__(self, "tiles", _tiles(self.tiles, f"{self.player}'s hand"))
        _count(self.count, f"{self.player}'s hand count")
        if self.status is HandStatus.UNKNOWN and self.tiles:
            raise UserInputError(f"{self.player}'s hand is unknown but lists tiles")

    @classmethod
    def confirmed(cls, player: str, tiles: Iterable[Tile], count: int | None = None) -> HandReport:
        """A hand read from its photo and confirmed by the player."""
        return cls(player, HandStatus.CONFIRMED, tuple(tiles), count)

    @classmethod
    def pending(cls, player: str, tiles: Iterable[Tile], count: int | None = None) -> HandReport:
        """A hand read from its photo, not yet confirmed by the player."""
        return cls(player, HandStatus.PENDING, tuple(tiles), count)

    @classmethod
    def unknown(cls, player: str, count: int | None = None) -> HandReport:
        """A hand not read: only its count, when known."""
        return cls(player, HandStatus.UNKNOWN, (), count)

    @property
    def held(self) -> int | None:
        """How many tiles the hand holds, None when not known.

        A photo showing more tiles than the given count wins: those tiles were seen.
        """
        if self.status is HandStatus.UNKNOWN:
            return self.count
        return len(self.tiles) if self.count is None else max(self.count, len(self.tiles))

    @property
    def hidden(self) -> int | None:
        """Tiles the hand holds that were not read (None: not known how many)."""
        held = self.held
        return None if held is None else held - len(self.tiles)

    def holder(self) -> Holder:
        return Holder(HolderKind.HAND, self.player, self.status is HandStatus.PENDING)


@dataclass(frozen=True)
class TableReport:
    """The table photo, or no photo at all (`TableReport.unknown()`).

    Attributes:
        face_up: the face-up tiles read, each once per tile seen (the layout, the hub).
        face_down: how many face-down tiles the photo shows.
        face_down_are: what those are (`FaceDown`): unsaid, or the stock lying in view.
        known: False when the table was not read (its lines were entered by hand, by their
            open ends): it may hold any tile read nowhere else, and any number of them, so
            the total cannot close.
    """

    face_up: tuple[Tile, ...] = ()
    face_down: int = 0
    face_down_are: FaceDown = FaceDown.UNSORTED
    known: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "face_up", _tiles(self.face_up, "the table's face-up tiles"))
        if _count(self.face_down, "the table's face-down count") is None:
            raise UserInputError("the table's face-down count must be a number (0 for none)")
        object.__setattr__(self, "face_down_are", FaceDown(self.face_down_are))
        if not self.known and (self.face_up or self.face_down):
            raise UserInputError("a table that was not read lists no tiles")

    @classmethod
    def unknown(cls) -> TableReport:
        """A table that was not read: no photo, the lines entered by hand."""
        return cls(known=False)


@dataclass(frozen=True)
class BoneyardReport:
    """The boneyard's count as the caller knows it.

    In a game that never draws, the count is of the sleeping tiles (the tiles left after the
    deal), as `GameState.boneyard` counts them.

    Attributes:
        source: `CountSource.COUNTED`, `ENTERED` or `UNKNOWN`.
        count: the number of tiles; None exactly when the source is `UNKNOWN`.
    """

    source: CountSource = CountSource.UNKNOWN
    count: int | None = None

    def __post_init__(self) -> None:
        source = CountSource(self.source)
        object.__setattr__(self, "source", source)
        if source not in (CountSource.COUNTED, CountSource.ENTERED, CountSource.UNKNOWN):
            raise UserInputError(f"a boneyard report is counted, entered or unknown, not {source}")
        _count(self.count, "the boneyard count")
        if (self.count is None) != (source is CountSource.UNKNOWN):
            raise UserInputError("a counted or entered boneyard needs its count; unknown has none")

    @classmethod
    def counted(cls, count: int) -> BoneyardReport:
        return cls(CountSource.COUNTED, count)

    @classmethod
    def entered(cls, count: int) -> BoneyardReport:
        return cls(CountSource.ENTERED, count)

    @classmethod
    def unknown(cls) -> BoneyardReport:
        return cls()


# --- what the ledger says -----------------------------------------------------------------------


@dataclass(frozen=True)
class Holder:
    """A place a tile is in (or may be in).

    Attributes:
        kind: `HolderKind`.
        player: whose hand, for `HolderKind.HAND` only.
        pending: the hand is pending (read, not yet confirmed): the server tells a claim
            apart from a confirmed hand before it shows anything to players.
    """

    kind: HolderKind
    player: str | None = None
    pending: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", HolderKind(self.kind))
        if (self.player is not None) != (self.kind is HolderKind.HAND):
            raise ValueError("a hand names its player, and only a hand does")
        if self.pending and self.kind is not HolderKind.HAND:
            raise ValueError("only a hand can be pending")

    def to_dict(self) -> dict[str, object]:
        return {"kind": str(self.kind), "player": self.player, "pending": self.pending}


TABLE = Holder(HolderKind.TABLE)


@dataclass(frozen=True)
class Place:
    """Where one tile of the set is.

    Attributes:
        status: `PlaceStatus`.
        holders: `SEEN`: the one place it was read; `TWICE`: every place it was read, in
            reading order (the table first, then the hands in seat order); `UNSEEN`: the
            hidden places that may hold it; `NOWHERE`: none.
    """

    status: PlaceStatus
    holders: tuple[Holder, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", PlaceStatus(self.status))
        count = len(self.holders)
        valid = {
            PlaceStatus.SEEN: count == 1,
            PlaceStatus.TWICE: count >= 2,
            PlaceStatus.UNSEEN: count >= 1,
            PlaceStatus.NOWHERE: count == 0,
        }[self.status]
        if not valid:
            raise ValueError(f"a {self.status} tile cannot have {count} holders")

    def to_dict(self) -> dict[str, object]:
        return {"status": str(self.status), "holders": [h.to_dict() for h in self.holders]}


@dataclass(frozen=True)
class StockCount:
    """The count of a stock: the boneyard, or the sleeping tiles.

    Attributes:
        source: `CountSource` of the count (`UNKNOWN` when it is not known exactly).
        count: the number of tiles, or None when not known exactly.
        at_least: a proven lower bound (the count itself when known).
        at_most: a proven upper bound (the count itself when known), None when unbounded.
    """

    source: CountSource
    count: int | None = None
    at_least: int = 0
    at_most: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", CountSource(self.source))
        if (self.count is None) != (self.source is CountSource.UNKNOWN):
            raise ValueError("a stock's count is None exactly when its source is unknown")
        if self.count is not None and not self.at_least == self.count == self.at_most:
            raise ValueError("a known count is its own bounds")
        if self.at_least < 0 or (self.at_most is not None and self.at_most < self.at_least):
            raise ValueError(f"bad bounds {self.at_least}..{self.at_most}")

    @classmethod
    def exact(cls, count: int, source: CountSource) -> StockCount:
        return cls(source, count, count, count)

    @classmethod
    def bounded(cls, at_least: int, at_most: int | None) -> StockCount:
        """A derived count: exact when its bounds meet, else unknown within them."""
        if at_most is not None and at_least == at_most:
            return cls.exact(at_least, CountSource.DERIVED)
        return cls(CountSource.UNKNOWN, None, at_least, at_most)

    @property
    def known(self) -> bool:
        return self.count is not None

    @property
    def known_empty(self) -> bool:
        """True only when the stock is known to hold no tile."""
        return self.count == 0

    def to_dict(self) -> dict[str, object]:
        return {
            "known": self.known,
            "count": self.count,
            "source": str(self.source),
            "at_least": self.at_least,
            "at_most": self.at_most,
        }


@dataclass(frozen=True)
class Problem:
    """One thing that does not add up.

    Attributes:
        code: `ProblemCode`.
        tiles: the tiles concerned, sorted (may be empty: a count problem).
        holders: the places concerned (a pending hand is marked: `Holder.pending`).
        expected: the count the set, the deal or a report calls for, when there is one.
        found: the count found instead.
    """

    code: ProblemCode
    tiles: tuple[Tile, ...] = ()
    holders: tuple[Holder, ...] = ()
    expected: int | None = None
    found: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", ProblemCode(self.code))
        object.__setattr__(self, "tiles", tuple(sorted(_tiles(self.tiles, "a problem's tiles"))))
        if not all(isinstance(h, Holder) for h in self.holders):
            raise ValueError("a problem's holders must be Holder values")

    @property
    def players(self) -> tuple[str, ...]:
        """The players whose hands the problem names, in order, each once."""
        return tuple(dict.fromkeys(h.player for h in self.holders if h.player is not None))

    @property
    def involves_pending(self) -> bool:
        """True when a pending (unconfirmed) hand is among the holders."""
        return any(h.pending for h in self.holders)

    def to_dict(self) -> dict[str, object]:
        return {
            "code": str(self.code),
            "tiles": [t.as_list() for t in self.tiles],
            "holders": [h.to_dict() for h in self.holders],
            "expected": self.expected,
            "found": self.found,
        }


@dataclass(frozen=True)
class Deal:
    """The deal the round started from.

    Attributes:
        players: how many hands were dealt.
        hand_size: tiles dealt to each, None when not known (the variant has no row for
            this many players and the caller gave none).
        stock: tiles left after the deal (N - players * hand_size), None when not known.
            An engine double set aside before the deal (some Mexican Train rules) is one of
            these: so `stock` bounds the boneyard from above in every reading of the rules.
        draws: the undealt tiles are a boneyard drawn from (else they sleep: `undealt`).
        reserve: boneyard tiles never drawn (`Variant.reserve`).
    """

    players: int
    hand_size: int | None
    stock: int | None
    draws: bool
    reserve: int

    @property
    def undealt(self) -> str:
        """`boneyard` or `sleeping`, as `Variant.undealt`."""
        return "boneyard" if self.draws else "sleeping"

    @property
    def most_in_hand(self) -> int | None:
        """The most tiles a hand can hold: dealt, plus every drawable tile in a draw game."""
        if self.hand_size is None or self.stock is None:
            return None
        return self.hand_size + (max(0, self.stock - self.reserve) if self.draws else 0)

    def to_dict(self) -> dict[str, object]:
        return {
            "players": self.players,
            "hand_size": self.hand_size,
            "stock": self.stock,
            "undealt": self.undealt,
            "reserve": self.reserve,
        }


@dataclass(frozen=True)
class Ledger:
    """Where every tile of the set is, and what does not add up.

    Attributes:
        max_pip: n of the double-n set.
        deal: the deal the counts were checked against.
        places: every tile of the set -> its `Place`, in the set's order.
        boneyard: the boneyard's count (`CountSource.NONE`, 0, in a game that never draws).
        sleeping: the sleeping tiles' count (`CountSource.NONE`, 0, in a game that draws).
        problems: what does not add up, empty when nothing was found.
        closes: every place's count was known from its own source (the table read, no
            hand of unknown count, a stock counted, entered or fixed by the deal, no
            face-down tile of unsaid place), so the total was checked exactly against the set.
        pending: the players whose pending (unconfirmed) hands were counted as read.
        table_known: the table was read (`TableReport.known`); when not, it is one of the
            hidden places of every tile read nowhere.
    """

    max_pip: int
    deal: Deal
    places: Mapping[Tile, Place]
    boneyard: StockCount
    sleeping: StockCount
    problems: tuple[Problem, ...] = ()
    closes: bool = False
    pending: tuple[str, ...] = field(default=())
    table_known: bool = True

    def __post_init__(self) -> None:
        if list(self.places) != full_set(self.max_pip):
            raise ValueError("a ledger places every tile of its set, in order")
        object.__setattr__(self, "places", MappingProxyType(dict(self.places)))

    @property
    def set_size(self) -> int:
        return set_size(self.max_pip)

    @property
    def adds_up(self) -> bool:
        """Nothing contradicts: no problem was found. With `closes`, the round is proven to
        add up; without it, some count was not known and could hide an error."""
        return not self.problems

    def tiles_with(self, status: PlaceStatus) -> tuple[Tile, ...]:
        return tuple(tile for tile, place in self.places.items() if place.status is status)

    @property
    def unseen(self) -> tuple[Tile, ...]:
        """The tiles read nowhere (hidden, or nowhere at all), in the set's order."""
        return tuple(
            tile
            for tile, place in self.places.items()
            if place.status in (PlaceStatus.UNSEEN, PlaceStatus.NOWHERE)
        )

    @property
    def boneyard_known_empty(self) -> bool:
        """The boneyard is known to hold no tile, and the round adds up (the count of a
        ledger with problems is not trusted). Block has no boneyard: True."""
        return self.adds_up and self.boneyard.known_empty

    @property
    def nothing_to_draw(self) -> bool:
        """Known that no tile can be drawn: the blocked game's condition 2 (docs/rules.md,
        the blocked game) - the boneyard holds at most the variant's reserve, or the game
        never draws."""
        most = self.boneyard.at_most
        return self.adds_up and most is not None and most <= self.deal.reserve

    def to_dict(self) -> dict[str, object]:
        """The JSON form: machine codes and numbers only, tiles as `[low, high]`."""
        return {
            "set": self.max_pip,
            "set_size": self.set_size,
            "adds_up": self.adds_up,
            "closes": self.closes,
            "table_known": self.table_known,
            "deal": self.deal.to_dict(),
            "boneyard": self.boneyard.to_dict(),
            "sleeping": self.sleeping.to_dict(),
            "boneyard_known_empty": self.boneyard_known_empty,
            "nothing_to_draw": self.nothing_to_draw,
            "pending": list(self.pending),
            "problems": [p.to_dict() for p in self.problems],
            "places": [
                {"tile": tile.as_list(), **place.to_dict()} for tile, place in self.places.items()
            ],
        }


# --- the reconciliation ------------------------------------------------------------------------


def reconcile(
    variant: Variant,
    hands: Sequence[HandReport],
    table: TableReport,
    boneyard: BoneyardReport | None = None,
    *,
    max_pip: int | None = None,
    hand_size: int | None = None,
) -> Ledger:
    """Put one round's readings side by side and count them against the set.

    Args:
        variant: the variant (its drawing rule, reserve and deal).
        hands: every hand dealt this round, in seat order (each name once).
        table: the table photo's tiles.
        boneyard: the boneyard's count as reported; unknown when None.
        max_pip: n of the double-n set, when not the variant's usual set.
        hand_size: tiles dealt to each player, when not the variant's (sources differ by
            one or two tiles).

    Returns:
        The `Ledger`.

    Raises:
        UserInputError: a set the product does not support, fewer than two hands, a name
            given twice, or a deal that needs more tiles than the set holds.
    """
    n = variant.set if max_pip is None else max_pip
    if n not in SUPPORTED_SETS:
        valid = ", ".join(str(size) for size in SUPPORTED_SETS)
        raise Refused(
            f"unknown set double-{n}; valid sets: {valid}",
            "unknown_set",
            set=n,
            valid=list(SUPPORTED_SETS),
        )
    seats = _checked_hands(hands)
    report = BoneyardReport.unknown() if boneyard is None else boneyard
    deal = make_deal(variant, len(seats), n, hand_size)

    readings = [(tile, TABLE) for tile in table.face_up]
    readings += [(tile, hand.holder()) for hand in seats for tile in hand.tiles]
    read_in = _holders_by_tile(readings, n)

    problems = _outside_set(readings, n) + _read_twice(read_in) + _hand_problems(seats, deal)
    given, stock_problems = _given_stock(report, table, deal)
    totals, derive_problems = _totals(seats, table, given, deal, set_size(n))
    may_hold = _hidden_places(seats, totals.stock, deal, totals.room_apart, table.known)
    problems += stock_problems + derive_problems
    problems += _total_problems(totals, set_size(n), nameable=not may_hold)

    places, nowhere = _places(n, read_in, may_hold)
    if nowhere:
        seen = set_size(n) - len(nowhere)
        problems.append(Problem(ProblemCode.TILE_NOWHERE, nowhere, (), set_size(n), seen))

    none = StockCount.exact(0, CountSource.NONE)
    return Ledger(
        max_pip=n,
        deal=deal,
        places=places,
        boneyard=totals.stock if deal.draws else none,
        sleeping=none if deal.draws else totals.stock,
        problems=tuple(problems),
        closes=totals.closes,
        pending=tuple(h.player for h in seats if h.status is HandStatus.PENDING),
        table_known=table.known,
    )


def make_deal(variant: Variant, players: int, max_pip: int, hand_size: int | None = None) -> Deal:
    """The deal of `variant` to `players` from a double-`max_pip` set.

    Raises:
        UserInputError: `hand_size` is not a whole number >= 1, or the deal needs more tiles
            than the set holds.
    """
    total = set_size(max_pip)
    if hand_size is not None:
        if _count(hand_size, "hand_size") == 0:
            raise Refused("hand_size must be at least 1", "bad_deal")
        if hand_size * players > total:
            raise Refused(
                f"dealing {hand_size} tiles to {players} players needs {hand_size * players}, "
                f"more than the {total} of a double-{max_pip} set",
                "deal_too_big",
                deal=hand_size,
                players=players,
                needed=hand_size * players,
                set_size=total,
                set=max_pip,
            )
        size: int | None = hand_size
    else:
        try:
            size = variant.hand_size(players)
        except UserInputError:
            size = None  # no row for this many players: the deal is not known
        # The variant's row is for its usual set; on a smaller set it may not fit.
        if size is not None and size * players > total:
            size = None
    stock = None if size is None else total - size * players
    return Deal(players, size, stock, variant.undealt == "boneyard", variant.reserve)


def _checked_hands(hands: Sequence[HandReport]) -> tuple[HandReport, ...]:
    hands = tuple(hands)
    if not all(isinstance(hand, HandReport) for hand in hands):
        raise UserInputError("hands must be HandReport values")
    if len(hands) < 2:
        raise Refused(
            f"a round needs at least 2 hands, got {len(hands)}", "too_few_players", count=len(hands)
        )
    names = [hand.player for hand in hands]
    for name in names:
        if names.count(name) > 1:
            raise Refused(
                f"two hands are {name!r}'s; each player has one hand", "duplicate_player", name=name
            )
    return hands


def _holders_by_tile(readings: list[tuple[Tile, Holder]], max_pip: int) -> dict[Tile, list[Holder]]:
    """Each tile of the set that was read -> where, in reading order."""
    read_in: dict[Tile, list[Holder]] = {}
    for tile, holder in readings:
        if tile.high <= max_pip:
            read_in.setdefault(tile, []).append(holder)
    return read_in


def _outside_set(readings: list[tuple[Tile, Holder]], max_pip: int) -> list[Problem]:
    code = ProblemCode.TILE_OUTSIDE_SET
    return [Problem(code, (t,), (h,), max_pip, t.high) for t, h in readings if t.high > max_pip]


def _read_twice(read_in: Mapping[Tile, list[Holder]]) -> list[Problem]:
    return [
        Problem(ProblemCode.TILE_TWICE, (tile,), tuple(holders), 1, len(holders))
        for tile, holders in sorted(read_in.items())
        if len(holders) > 1
    ]


def _hand_problems(hands: tuple[HandReport, ...], deal: Deal) -> list[Problem]:
    problems = []
    most = deal.most_in_hand
    for hand in hands:
        read = hand.status is not HandStatus.UNKNOWN
        if read and hand.count is not None and hand.count != len(hand.tiles):
            code = ProblemCode.HAND_COUNT_DIFFERS
            problems.append(Problem(code, (), (hand.holder(),), hand.count, len(hand.tiles)))
        held = hand.held
        if most is not None and held is not None and held > most:
            problems.append(Problem(ProblemCode.HAND_ABOVE_DEAL, (), (hand.holder(),), most, held))
    return problems


def _stock_holder(deal: Deal) -> Holder:
    return Holder(HolderKind.BONEYARD if deal.draws else HolderKind.SLEEPING)


def _given_stock(
    report: BoneyardReport, table: TableReport, deal: Deal
) -> tuple[StockCount | None, list[Problem]]:
    """The stock's count from a source of its own (a report, the stock in view, or the deal
    of a game that never draws), with what contradicts it; None when there is none."""
    counts: list[tuple[int, CountSource]] = []
    if report.count is not None:
        counts.append((report.count, report.source))
    if table.face_down_are is FaceDown.STOCK:
        counts.append((table.face_down, CountSource.COUNTED))
    holder = _stock_holder(deal)
    problems = []
    if len(counts) == 2 and counts[0][0] != counts[1][0]:
        problems.append(
            Problem(ProblemCode.STOCK_COUNTS_DIFFER, (), (holder,), counts[0][0], counts[1][0])
        )
    if deal.stock is not None:
        for count in dict.fromkeys(count for count, _ in counts):
            if deal.draws and count > deal.stock:
                code = ProblemCode.BONEYARD_ABOVE_DEAL
            elif not deal.draws and count != deal.stock:
                code = ProblemCode.SLEEPING_NOT_AS_DEALT
            else:
                continue
            problems.append(Problem(code, (), (holder,), deal.stock, count))
    if counts:
        # The report first: a person counted or entered it for this very purpose.
        return StockCount.exact(*counts[0]), problems
    if not deal.draws and deal.stock is not None:
        return StockCount.exact(deal.stock, CountSource.DEAL), problems
    return None, problems


@dataclass(frozen=True)
class _Totals:
    """What the counts prove about the total, before it is compared with the set.

    Attributes:
        at_least: the fewest tiles the places can hold together.
        at_most: the most they can hold (None: a hand's count and the deal are unknown).
        room_apart: the most face-down tiles that may lie apart from every other place.
        stock: the stock's count, given or derived.
        closes: every count was known from its own source, with no face-down tile unsorted.
    """

    at_least: int
    at_most: int | None
    room_apart: int
    stock: StockCount
    closes: bool


def _totals(
    hands: tuple[HandReport, ...],
    table: TableReport,
    given: StockCount | None,
    deal: Deal,
    total: int,
) -> tuple[_Totals, list[Problem]]:
    """Bound the places' total, and derive the stock when no source gives it."""
    up = len(table.face_up)
    # A hand of unknown count holds at least none and at most what the deal allows.
    held_low = sum(hand.held or 0 for hand in hands)
    most = deal.most_in_hand
    counts = [hand.held if hand.held is not None else most for hand in hands]
    held_high = None if None in counts else sum(c for c in counts if c is not None)
    # Face-down tiles of unsaid place may be counted elsewhere already (a hand laid down,
    # the stock in view) or lie apart: they widen the total instead of adding to it.
    unsorted = table.face_down if table.face_down_are is FaceDown.UNSORTED else 0
    given_count = 0 if given is None or given.count is None else given.count
    counted_low = up + held_low + given_count
    room_apart = max(0, min(unsorted, total - counted_low))
    problems: list[Problem] = []
    if given is not None:
        stock = given
    else:
        # A table not read may hold any number of tiles: the stock has no floor but 0.
        lowest = 0
        if held_high is not None and table.known:
            lowest = total - up - held_high - unsorted
        stock, problems = _derived_stock(lowest, total - up - held_low, deal)
    # The photo's face-up and face-down tiles are different tiles, and the places' counts
    # are disjoint: either sum is a floor for the set.
    at_least = max(counted_low, up + table.face_down)
    at_most = None
    if table.known and held_high is not None and stock.at_most is not None:
        at_most = up + held_high + stock.at_most + room_apart
    closes = (
        table.known
        and all(hand.held is not None for hand in hands)
        and given is not None
        and not unsorted
    )
    return _Totals(at_least, at_most, room_apart, stock, closes), problems


def _derived_stock(lowest: int, highest: int, deal: Deal) -> tuple[StockCount, list[Problem]]:
    """The stock as the set less every other place: between `lowest` and `highest`.

    Exact when every hand is known and no face-down tile may lie apart; bounded by the
    deal's stock (the boneyard only shrinks). Only a boneyard is ever derived: the sleeping
    tiles of a known deal are the deal's (`_given_stock`).
    """
    if highest < 0:
        return StockCount(CountSource.UNKNOWN), []  # too many tiles: nothing to derive
    low = max(0, lowest)
    high = highest
    if deal.stock is not None:
        if low > deal.stock:
            code = ProblemCode.BONEYARD_ABOVE_DEAL
            problem = Problem(code, (), (_stock_holder(deal),), deal.stock, low)
            return StockCount(CountSource.UNKNOWN), [problem]
        high = min(high, deal.stock)
    return StockCount.bounded(low, high), []


def _total_problems(totals: _Totals, total: int, nameable: bool) -> list[Problem]:
    """The places hold more tiles than the set, or provably fewer. When no hidden place is
    left (`nameable`), the tiles short are named instead (TILE_NOWHERE)."""
    if totals.at_least > total:
        return [Problem(ProblemCode.TOO_MANY_TILES, (), (), total, totals.at_least)]
    if totals.at_most is not None and totals.at_most < total and not nameable:
        return [Problem(ProblemCode.TOO_FEW_TILES, (), (), total, totals.at_most)]
    return []


def _hidden_places(
    hands: tuple[HandReport, ...],
    stock: StockCount,
    deal: Deal,
    room_apart: int,
    table_known: bool,
) -> tuple[Holder, ...]:
    """The places that may hold a tile read nowhere (a table not read first)."""
    may_hold = [] if table_known else [TABLE]
    may_hold += [hand.holder() for hand in hands if hand.hidden is None or hand.hidden > 0]
    if stock.at_most is None or stock.at_most > 0:
        may_hold.append(_stock_holder(deal))
    if room_apart:
        may_hold.append(Holder(HolderKind.FACE_DOWN))
    return tuple(may_hold)


def _places(
    max_pip: int, read_in: Mapping[Tile, list[Holder]], may_hold: tuple[Holder, ...]
) -> tuple[dict[Tile, Place], tuple[Tile, ...]]:
    """Every tile's place, and the tiles proven to be nowhere: with no hidden place left,
    every tile read nowhere is missing."""
    places: dict[Tile, Place] = {}
    nowhere = []
    for tile in full_set(max_pip):
        holders = read_in.get(tile, [])
        if len(holders) == 1:
            places[tile] = Place(PlaceStatus.SEEN, tuple(holders))
        elif holders:
            places[tile] = Place(PlaceStatus.TWICE, tuple(holders))
        elif may_hold:
            places[tile] = Place(PlaceStatus.UNSEEN, may_hold)
        else:
            places[tile] = Place(PlaceStatus.NOWHERE)
            nowhere.append(tile)
    return places, tuple(nowhere)


__all__ = [
    "BoneyardReport",
    "CountSource",
    "Deal",
    "FaceDown",
    "HandReport",
    "HandStatus",
    "Holder",
    "HolderKind",
    "Ledger",
    "Place",
    "PlaceStatus",
    "Problem",
    "ProblemCode",
    "StockCount",
    "TableReport",
    "make_deal",
    "reconcile",
]
