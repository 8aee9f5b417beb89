"""Variants as data: every rule that differs between games is a named setting.

A `Variant` is a frozen record of settings (docs/rules.md, what varies: "every point is a
setting of a variant, never a constant in code"). Variants are looked up by name with
`get_variant(name)`; a typo raises `UserInputError` listing the valid names. A game state's
`rules` object overrides any setting with `Variant.with_overrides(...)`; an unknown setting or
a bad value is rejected with the valid options.

Settings (`SETTINGS` documents each; `Variant.to_json()` gives them as a dict):

* `play` - who may play where: `any-line` (any player on any open end) or `trains` (a
  player's own train, public lines and trains carrying a marker; Mexican Train).
* `double_cover` - tiles an open double needs before anything else may be played: 0 (no such
  rule), 1 (Mexican Train: cover the double), 3 (Chicken Foot: three toes).
* `spinner_arms`, `spinner_first` - how many lines may grow from the layout's spinner (2: a
  plain double in a line; 4: All Fives' spinner, Chicken Foot's centre) and whether all of
  them must be started before play elsewhere (Chicken Foot's centre, Double Bergen).
* `draw` - `none` (Block), `until-playable` (Draw, All Fives), `one-then-pass` (trains).
* `reserve` - boneyard tiles that can never be drawn (the last 2 in the Draw game).
* `block_winner` - `lowest-hand`, `lowest-team`, `no-double` (Bergen: a hand holding no
  double beats one holding a double), `blocker` (old Hoyle: the player who caused the block).
* `points` - `others` (the others' pips), `others-minus-own`, `losing-team`, `all-hands`,
  `penalty` (every player scores their own pips; lowest cumulative total wins), `none` (only
  the `bonus`); `rounding` (`none`, `nearest-5` of the total, `nearest-5-each` hand: 27 -> 25,
  28 -> 30) and `bonus` (fixed points for the winner, Bergen).
* `tie` - ties for the lowest count: `no-score`, `split`, `lightest-tile`, `void` (hand void,
  next player leads), `leader` (the tied player or team that led the round).
* `double_blank` - what the 0-0 counts in a hand (0; 25 or 50 as a house rule).
* `game_end`, `target` - how rounds add up to a game: `target` (first to `target` points) or
  `descending-doubles` (one round per double from n-n down to 0-0, lowest total wins).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from dominocam.errors import Refused, plain_value
from dominocam.i18n import N_, _
from dominocam.rules.tiles import SUPPORTED_SETS

# The shapes a layout takes on the table (`Variant.layout`), and those grown from an engine.
LAYOUT_KINDS: tuple[str, ...] = ("line", "spinner", "mexican", "chicken")
ENGINE_LAYOUTS: frozenset[str] = frozenset({"mexican", "chicken"})

PLAY_MODES: tuple[str, ...] = ("any-line", "trains")
DRAW_MODES: tuple[str, ...] = ("none", "until-playable", "one-then-pass")
BLOCK_WINNERS: tuple[str, ...] = ("lowest-hand", "lowest-team", "no-double", "blocker")
POINTS_MODES: tuple[str, ...] = (
    "others",
    "others-minus-own",
    "losing-team",
    "all-hands",
    "penalty",
    "none",
)
ROUNDING_MODES: tuple[str, ...] = ("none", "nearest-5", "nearest-5-each")
TIE_POLICIES: tuple[str, ...] = ("no-score", "split", "lightest-tile", "void", "leader")
GAME_ENDS: tuple[str, ...] = ("target", "descending-doubles")


@dataclass(frozen=True)
class Setting:
    """How one overridable setting is validated and described.

    Attributes:
        name: the key in the state's `rules` object (snake_case; `-` is accepted for `_`).
        help: one line for the documentation and `dominocam rules variants`.
        choices: the valid values of an enumerated setting, else empty.
        minimum: the least valid value of a whole-number setting.
        maximum: the greatest valid value of a whole-number setting, or None.
        kind: "choice", "int" or "bool".
    """

    name: str
    help: str
    kind: str
    choices: tuple[str, ...] = ()
    minimum: int = 0
    maximum: int | None = None

    def describe_valid(self) -> str:
        """The valid values, in words, for an error message."""
        if self.kind == "choice":
            return "valid: " + ", ".join(self.choices)
        if self.kind == "bool":
            return "valid: true, false"
        if self.maximum is None:
            return f"valid: a whole number >= {self.minimum}"
        return f"valid: a whole number from {self.minimum} to {self.maximum}"

    def validate(self, value: object, where: str = "rules") -> object:
        """`value` if it is valid for this setting.

        Raises:
            UserInputError: naming the setting and the valid values.
        """
        if self.kind == "choice":
            if isinstance(value, str) and value in self.choices:
                return value
        elif self.kind == "bool":
            if isinstance(value, bool):
                return value
        elif (
            isinstance(value, int)
            and not isinstance(value, bool)
            and value >= self.minimum
            and (self.maximum is None or value <= self.maximum)
        ):
            return value
        raise Refused(
            _("{where}.{setting}: {value!r} is not a valid value; {valid}").format(
                where=where, setting=self.name, value=value, valid=self.describe_valid()
            ),
            "bad_setting",
            setting=self.name,
            value=plain_value(value),
            **self.valid_params(),
        )

    def valid_params(self) -> dict[str, object]:
        """The valid values as a refusal's parameters: `kind` ("choice", "int", "bool"), and
        `choices`, or `minimum` and `maximum` (null: no upper bound)."""
        if self.kind == "choice":
            return {"kind": self.kind, "choices": list(self.choices)}
        if self.kind == "int":
            return {"kind": self.kind, "minimum": self.minimum, "maximum": self.maximum}
        return {"kind": self.kind}


SETTINGS: Mapping[str, Setting] = MappingProxyType(
    {
        s.name: s
        for s in (
            Setting(
                "play",
                N_("who may play where: any-line, or trains (own train, public, marked trains)"),
                "choice",
                PLAY_MODES,
            ),
            Setting(
                "double_cover",
                N_("tiles an open double needs before play elsewhere (0 none, 1 cover, 3 toes)"),
                "int",
                minimum=0,
                maximum=6,
            ),
            Setting(
                "spinner_arms",
                N_("lines that may grow from the layout's spinner (2 plain, 4 spinner)"),
                "int",
                minimum=1,
                maximum=8,
            ),
            Setting(
                "spinner_first",
                N_("every arm of the spinner must be started before play elsewhere"),
                "bool",
            ),
            Setting(
                "draw", N_("drawing: none, until-playable, one-then-pass"), "choice", DRAW_MODES
            ),
            Setting("reserve", N_("boneyard tiles that can never be drawn"), "int", minimum=0),
            Setting(
                "block_winner",
                N_("who wins a blocked round: lowest-hand, lowest-team, no-double, blocker"),
                "choice",
                BLOCK_WINNERS,
            ),
            Setting(
                "points",
                N_(
                    "points for a blocked round: others, others-minus-own, losing-team, "
                    "all-hands, penalty, none"
                ),
                "choice",
                POINTS_MODES,
            ),
            Setting(
                "rounding",
                N_("rounding of points: none, nearest-5 (the total), nearest-5-each (each hand)"),
                "choice",
                ROUNDING_MODES,
            ),
            Setting("bonus", N_("fixed points added for the winner of a blocked round"), "int"),
            Setting(
                "tie",
                N_("tie for the lowest count: no-score, split, lightest-tile, void, leader"),
                "choice",
                TIE_POLICIES,
            ),
            Setting("double_blank", N_("what the 0-0 counts in a hand (0, 25, 50)"), "int"),
            Setting(
                "game_end",
                N_("how rounds make a game: target (first to `target`), descending-doubles"),
                "choice",
                GAME_ENDS,
            ),
            Setting(
                "target", N_("points that win a game when game_end is target"), "int", minimum=1
            ),
        )
    }
)


@dataclass(frozen=True)
class Variant:
    """A named domino game: its defaults, every one a setting (see the module docstring).

    Attributes:
        name: the name a state's `variant` gives (`block`, `mexican-train`, ...).
        title: the game's usual name, for people.
        description: one sentence on the game.
        set: the double-n set the game is usually played with (a state's `set` overrides it).
        hand_sizes: `(fewest players, most players, tiles each)` rows for dealing; data for
            the synthetic generator and the round's ledger (`dominocam.rules.ledger`, which lets the
            caller override it: sources differ by one or two), never enforced on a game
            state (hands shrink during play). What is left after the deal is the boneyard or
            sleeping tiles (`undealt`).
        layout: the shape the played tiles take on the table, one of `LAYOUT_KINDS`: `line`
            (a line growing at two ends), `spinner` (a first double played on four sides),
            `mexican` (trains from a central engine), `chicken` (toes around each double).
            What `dominocam.vision.layout` rebuilds from a photo of this game.
        sources: where each default comes from, by setting name.
        play, double_cover, spinner_arms, spinner_first, draw, reserve, block_winner, points,
        rounding, bonus, tie, double_blank, game_end, target: the settings (`SETTINGS`).
    """

    name: str
    title: str
    description: str
    set: int
    play: str
    double_cover: int
    spinner_arms: int
    spinner_first: bool
    draw: str
    reserve: int
    block_winner: str
    points: str
    rounding: str
    bonus: int
    tie: str
    double_blank: int
    game_end: str
    target: int
    hand_sizes: tuple[tuple[int, int, int], ...] = ()
    layout: str = "line"
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ValueError("a variant needs a name")
        if self.set not in SUPPORTED_SETS:
            raise ValueError(f"variant {self.name}: unknown set double-{self.set}")
        for name, setting in SETTINGS.items():
            setting.validate(getattr(self, name), where=f"variant {self.name}")
        if self.layout not in LAYOUT_KINDS:
            raise ValueError(f"variant {self.name}: layout must be one of {LAYOUT_KINDS}")
        for row in self.hand_sizes:
            low, high, tiles = row
            if not 1 <= low <= high or tiles < 1:
                raise ValueError(f"variant {self.name}: bad hand_sizes row {row}")

    @property
    def settings(self) -> dict[str, object]:
        """The overridable settings and their values."""
        return {name: getattr(self, name) for name in SETTINGS}

    @property
    def engine_rounds(self) -> bool:
        """True when each round opens with an engine double, one lower each round (the
        games whose layout grows from a central engine: Mexican Train, Chicken Foot)."""
        return self.layout in ENGINE_LAYOUTS

    @property
    def team_scoring(self) -> bool:
        """True when a blocked round is won or scored by teams rather than players."""
        return self.block_winner == "lowest-team" or self.points == "losing-team"

    def drawable(self, boneyard: int) -> int:
        """How many of `boneyard` tiles may still be drawn (0 when the game never draws)."""
        if self.draw == "none":
            return 0
        return max(0, boneyard - self.reserve)

    @property
    def undealt(self) -> str:
        """What the tiles left after the deal are: `boneyard` or `sleeping`.

        A game that draws deals the rest as the boneyard, drawn from during play (docs/rules.md,
        what varies, "the boneyard"; its `reserve` tiles stay in it, never drawn). A game that
        never draws sets them aside, face down and out of play: "the remaining tiles are not
        used" (Block: onlinedominogames.com/block-dominoes; zpag.net). It follows from `draw`,
        so it is not a setting of its own: overriding `draw` changes it too.
        """
        return "sleeping" if self.draw == "none" else "boneyard"

    @property
    def player_counts(self) -> tuple[int, ...]:
        """Every number of players the variant deals for (`hand_sizes`), smallest first."""
        return tuple(
            sorted({count for low, high, _ in self.hand_sizes for count in range(low, high + 1)})
        )

    def hand_size(self, players: int) -> int:
        """Tiles dealt to each of `players` players.

        Raises:
            UserInputError: the variant is not played by that many players.
        """
        for low, high, tiles in self.hand_sizes:
            if low <= players <= high:
                return tiles
        counts = ", ".join(f"{lo}-{hi}" if lo != hi else str(lo) for lo, hi, _ in self.hand_sizes)
        raise Refused(
            f"{self.title} is dealt for {counts} players, not {players}",
            "players_not_dealt",
            variant=self.name,
            players=players,
            counts=[[lo, hi] for lo, hi, _ in self.hand_sizes],
        )

    def with_overrides(self, overrides: Mapping[str, object] | None) -> Variant:
        """This variant with some settings replaced (the state's `rules` object).

        Keys may use `-` or `_` (`double-blank` is `double_blank`).

        Raises:
            UserInputError: an unknown setting name or a bad value, listing the valid options.
        """
        if not overrides:
            return self
        if not isinstance(overrides, Mapping):
            raise Refused(
                f"rules must be an object of settings, got {type(overrides).__name__}",
                "rules_not_an_object",
            )
        changes: dict[str, Any] = {}
        for raw_key, value in overrides.items():
            key = str(raw_key).replace("-", "_")
            setting = SETTINGS.get(key)
            if setting is None:
                raise Refused(
                    f"rules: unknown setting {raw_key!r}{_suggest(key, SETTINGS)}; "
                    f"valid settings: {', '.join(SETTINGS)}",
                    "unknown_setting",
                    setting=plain_value(raw_key),
                    valid=list(SETTINGS),
                )
            changes[key] = setting.validate(value)
        return replace(self, **changes)

    def to_json(self) -> dict[str, object]:
        """The JSON form: name, title, set, every setting, hand sizes and sources."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "sources"}
        data["hand_sizes"] = [list(row) for row in self.hand_sizes]
        data["sources"] = dict(self.sources)
        return data


def _suggest(word: str, options: Mapping[str, object] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1)
    return " " + _("(did you mean {option!r}?)").format(option=close[0]) if close else ""


# --- the variants -----------------------------------------------------------------------------
# Each default carries its source. "docs/rules.md, what varies" is the table "What varies
# between variants" in docs/rules.md, the project's digest of published rule sheets; "the
# founding text" is the blocked-game rule there ("The blocked game").

PAGAT_BLOCK = "spaanszt.home.xs4all.nl/Domino/Block.html; zpag.net block game"
ONLINEDOMINO_BLOCK = "onlinedominogames.com/block-dominoes"
ONLINEDOMINO_DRAW = "onlinedominogames.com/draw-dominoes"

BLOCK = Variant(
    name="block",
    title=N_("Block"),
    description=N_("Two-ended line, no drawing: undealt tiles sit out."),
    set=6,  # double-6: docs/rules.md, what varies; zpag.net block game; spaanszt (Hoyle)
    play="any-line",  # line games: anyone on either end (docs/rules.md, "who may play where")
    double_cover=0,  # doubles are simply played crosswise (onlinedominogames.com: no spinner)
    spinner_arms=2,  # "there is no spinner ... a double can only be played at two ends"
    spinner_first=False,  # no spinner (onlinedominogames.com/block-dominoes)
    draw="none",  # "the remaining tiles are not used" (onlinedominogames.com; zpag.net)
    reserve=0,  # nothing is drawn, so nothing is reserved
    block_winner="lowest-hand",  # "the player with the least number of spots" (spaanszt)
    points="others",  # founding text; spaanszt: "points equal to the spots of all others"
    rounding="none",  # founding text: the others' counts as they are
    bonus=0,  # founding text: only the pips are awarded
    tie="no-score",  # onlinedominogames.com: "no winner ... no player is awarded any point"
    double_blank=0,  # docs/rules.md, what varies: 0 by default
    game_end="target",  # rounds are played to a points target (zpag.net)
    target=100,  # onlinedominogames.com, zpag.net, spaanszt: first to 100
    hand_sizes=((2, 2, 7), (3, 4, 5)),  # docs/rules.md, what varies (Hoyle, per spaanszt)
    sources={
        "set": "docs/rules.md, what varies; zpag.net/Jeux/Dominos/block_dominos_game.html",
        "play": "docs/rules.md, what varies (line games: anyone on any end)",
        "draw": f"{ONLINEDOMINO_BLOCK}; zpag.net (remaining tiles are not used)",
        "block_winner": f"founding text; {PAGAT_BLOCK}",
        "points": f"founding text; {PAGAT_BLOCK}",
        "tie": ONLINEDOMINO_BLOCK,
        "double_blank": "docs/rules.md, what varies",
        "target": f"{ONLINEDOMINO_BLOCK}; zpag.net",
        "hand_sizes": "docs/rules.md, what varies (Hoyle, per spaanszt)",
    },
)

DRAW = replace(
    BLOCK,
    name="draw",
    title=N_("Draw"),
    description=N_("Block with a boneyard: draw until you can play; the last 2 tiles stay."),
    draw="until-playable",  # onlinedominogames.com/draw-dominoes; docs/rules.md, what varies
    reserve=2,  # "last two tiles from the boneyard can not be drawn" (onlinedominogames.com);
    # lawngames.co.za: "most rules prescribe that two tiles need to remain in the stock"
    points="others-minus-own",  # onlinedominogames.com/draw-dominoes; gambiter.com (Double Draw)
    tie="no-score",  # onlinedominogames.com/draw-dominoes; gambiter.com: "nobody gets a score"
    sources={
        **BLOCK.sources,
        "draw": ONLINEDOMINO_DRAW,
        "reserve": f"{ONLINEDOMINO_DRAW}; lawngames.co.za (two tiles remain in the stock)",
        "points": f"{ONLINEDOMINO_DRAW}; gambiter.com/domino/western/double_draw.html",
        "tie": f"{ONLINEDOMINO_DRAW}; gambiter.com (double draw)",
    },
)

PAGAT_FIVES = "pagat.com/tile/wdom/all_fives.html"
WIKI_MUGGINS = "Wikipedia, Muggins"

ALL_FIVES = Variant(
    name="all-fives",
    title=N_("All Fives"),
    description=N_("Draw game with one spinner (the first double) played on four sides."),
    set=6,  # pagat: "the game uses a double six domino set"
    play="any-line",  # pagat: "a tile matching the free end of one of the tiles"
    double_cover=0,  # pagat: doubles are played crosswise, no cover rule
    spinner_arms=4,  # pagat: the first double is a spinner; sides first, then its ends
    spinner_first=False,  # pagat: sides first, then ends; no fill-first rule
    draw="until-playable",  # pagat: "draw tiles ... until he has a tile which will play"
    reserve=0,  # pagat: "... or the boneyard is empty"
    block_winner="lowest-hand",  # Wikipedia (Muggins): "the lightest hand wins"
    points="others",  # Wikipedia (Muggins): points "based on the pips in opponents' hands"
    rounding="nearest-5-each",  # Wikipedia (Muggins): "each opponent's hand is rounded to the
    # nearest multiple of five ... 25 for 27 pips ... 30 for 28"
    bonus=0,  # Wikipedia (Muggins): only the opponents' pips
    tie="no-score",  # Block/Draw sources; the Fives sources name no tie rule
    double_blank=0,  # docs/rules.md, what varies: 0 by default
    game_end="target",  # played to a points target (games.yahoo.com)
    target=100,  # games.yahoo.com dominoes rules: 100, 250 or 500
    layout="spinner",  # the first double is a spinner, played on its four sides
    hand_sizes=((2, 2, 9), (3, 3, 7), (4, 4, 5)),  # pagat All Fives, "The Deal"
    sources={
        "set": PAGAT_FIVES,
        "spinner_arms": PAGAT_FIVES,
        "draw": PAGAT_FIVES,
        "reserve": PAGAT_FIVES,
        "block_winner": WIKI_MUGGINS,
        "points": WIKI_MUGGINS,
        "rounding": f"{WIKI_MUGGINS} (27 -> 25, 28 -> 30); docs/rules.md, what varies",
        "tie": "no source names one; no-score as the Block and Draw sources",
        "target": "games.yahoo.com dominoes rules (100, 250 or 500)",
        "hand_sizes": PAGAT_FIVES,
    },
)

TRAINS_SRC = "docs/rules.md, what varies; reference.com Mexican Train"

MEXICAN_TRAIN = Variant(
    name="mexican-train",
    title=N_("Mexican Train"),
    description=N_("Engine hub, one train per player plus the public Mexican train."),
    set=12,  # docs/rules.md, what varies: double-12 Mexican Train; the engine is 12-12
    play="trains",  # own train, the Mexican train, trains with a marker (docs/rules.md)
    double_cover=1,  # "an unsatisfied double must be covered before anything else"
    spinner_arms=4,  # unused: the hub is the engine, one train per player
    spinner_first=False,  # unused: no spinner, the engine is the hub
    draw="one-then-pass",  # "draw one domino; if it cannot be played, place a marker and pass"
    # (reference.com and htuse.com Mexican Train rules; idahogoodsam.org)
    reserve=0,  # drawing goes on until the boneyard is empty
    block_winner="lowest-hand",  # informational only: there is no winner bonus
    points="penalty",  # docs/rules.md: "every player scores their own pips as a penalty"
    rounding="none",  # docs/rules.md, what varies: the pips themselves
    bonus=0,  # docs/rules.md, what varies: "no winner bonus"
    tie="no-score",  # irrelevant under penalty scoring: everyone scores their own pips
    double_blank=0,  # docs/rules.md, what varies: 0 by default (25 or 50 as house rules)
    game_end="descending-doubles",  # 13 rounds, engine 12-12 down to 0-0 (tablegameshub.com)
    target=1,  # unused with descending-doubles
    layout="mexican",  # trains grow from the engine double in the centre
    hand_sizes=((2, 4, 15), (5, 5, 14), (6, 6, 12), (7, 8, 10), (9, 10, 8)),  # docs/rules.md
    sources={
        "set": TRAINS_SRC,
        "play": f"{TRAINS_SRC} (a marker opens a train to everyone)",
        "double_cover": "idahogoodsam.org; htfbw.com (a double must be satisfied)",
        "draw": "reference.com; htuse.com; idahogoodsam.org (draw one, else mark and pass)",
        "points": "docs/rules.md, what varies (own pips as penalty; lowest cumulative total wins)",
        "block_winner": (
            "docs/rules.md, what varies (no winner bonus: the lowest hand is only named)"
        ),
        "double_blank": "docs/rules.md, what varies; tablegameshub.com (25 or 50 as house rules)",
        "game_end": "tablegameshub.com (double-12: 13 rounds, 12-12 down to blank)",
        "hand_sizes": "docs/rules.md, what varies (sources differ by one or two)",
    },
)

CHICKEN_SRC = "web.archive.org russellr Chicken Foot; onlinedominogames.com/chickenfoot-dominoes"

CHICKEN_FOOT = Variant(
    name="chicken-foot",
    title=N_("Chicken Foot"),
    description=N_("Centre double with four arms; every later double takes three toes first."),
    set=9,  # htfbw.com, russellr (archived): a double-nine set
    play="any-line",  # anyone may play on any toe (onlinedominogames.com)
    double_cover=3,  # "the next three plays must be made on this chicken foot" (russellr)
    spinner_arms=4,  # "matching tiles are required to be played on all four ends of it"
    # (onlinedominogames.com; htfbw.com); russellr plays six ("double chicken foot")
    spinner_first=True,  # "... before any other tile can be played" (onlinedominogames.com)
    draw="one-then-pass",  # "draw one tile ... either playing it or passing" (russellr)
    reserve=0,  # russellr: draw while the chicken yard has tiles
    block_winner="lowest-hand",  # informational only: no winner bonus
    points="penalty",  # "all players will score their respective hands" (docs/rules.md)
    rounding="none",  # docs/rules.md, what varies: the pips themselves
    bonus=0,  # docs/rules.md, what varies: "no winner bonus"
    tie="no-score",  # irrelevant under penalty scoring
    double_blank=0,  # docs/rules.md, what varies: 0 by default; htfbw.com and russellr count it 50
    game_end="descending-doubles",  # one round per double, highest first (Wikipedia)
    target=1,  # unused with descending-doubles
    layout="chicken",  # every double grows three toes before play goes on
    hand_sizes=((2, 2, 9), (3, 4, 7), (5, 8, 6)),  # htfbw.com (9 for two, 7 for three or
    # four); docs/rules.md gives none; 6 for more players as russellr's "six tiles each for eight"
    sources={
        "set": "htfbw.com; russellr (archived)",
        "double_cover": CHICKEN_SRC,
        "spinner_arms": "onlinedominogames.com; htfbw.com (russellr plays six)",
        "spinner_first": "onlinedominogames.com/chickenfoot-dominoes",
        "draw": CHICKEN_SRC,
        "points": f"{CHICKEN_SRC}; docs/rules.md, what varies",
        "block_winner": (
            "docs/rules.md, what varies (no winner bonus: the lowest hand is only named)"
        ),
        "double_blank": "docs/rules.md, what varies (htfbw.com and russellr count 50)",
        "game_end": "Wikipedia, Chicken foot (one round per double)",
        "hand_sizes": "htfbw.com; russellr (archived)",
    },
)

PARTNERSHIP_SRC = "gambiter.com/domino/western/partnership.html (pagat.com's Partnership text)"

PARTNERSHIP = replace(
    BLOCK,
    name="partnership",
    title=N_("Latin partnership"),
    description=N_("Four players in two fixed pairs, all 28 tiles dealt, block play."),
    block_winner="lowest-team",  # pagat/gambiter: "won by the team whose unplayed tiles have
    # the lower pip total"
    points="losing-team",  # pagat: "the winners score the pip total of the losing team";
    # eightygames.wordpress.com: some score all four hands (`all-hands`)
    tie="no-score",  # pagat: "if the teams have equal pip totals ... no score for that deal"
    target=100,  # pagat: "the first team that achieves a cumulative score of 100 points"
    hand_sizes=((4, 4, 7),),  # pagat: "all the tiles are dealt ... seven tiles each"
    sources={
        **BLOCK.sources,
        "block_winner": PARTNERSHIP_SRC,
        "points": f"{PARTNERSHIP_SRC}; eightygames.wordpress.com (all-hands variation)",
        "tie": PARTNERSHIP_SRC,
        "target": PARTNERSHIP_SRC,
        "hand_sizes": PARTNERSHIP_SRC,
    },
)

BERGEN_SRC = "puzzle-place.net/bergen.htm; domino-games.com Bergen"

BERGEN = replace(
    BLOCK,
    name="bergen",
    title=N_("Bergen"),
    description=N_("Draw game scored for matching ends; a blocked round scores a bonus."),
    draw="until-playable",  # gamecabinet.com (Celko, after Armanino); domino-games.com
    reserve=2,  # gamecabinet.com: "blocked when nobody can play and there are at least two
    # dominoes in the boneyard"; docs/rules.md, what varies (the last tiles are never drawn)
    block_winner="no-double",  # puzzle-place.net: "the lowest hand is the one with the lowest
    # number of spots which does not contain a double"; docs/rules.md, what varies
    points="none",  # only the bonus: the lowest hand "scores one point" (puzzle-place.net)
    bonus=1,  # puzzle-place.net, domino-games.com: one point (gamecabinet.com says 2)
    tie="no-score",  # onlinedominogames.com/bergen-dominoes: "nobody scores for that round"
    target=15,  # puzzle-place.net, domino-games.com: "fifteen points is game"
    hand_sizes=((2, 3, 6), (4, 4, 5)),  # domino-games.com; gamecabinet.com
    sources={
        **BLOCK.sources,
        "draw": "gamecabinet.com/rules/Bergen.html; domino-games.com",
        "reserve": "gamecabinet.com/rules/Bergen.html; docs/rules.md, what varies",
        "block_winner": f"{BERGEN_SRC}; docs/rules.md, what varies",
        "points": BERGEN_SRC,
        "bonus": f"{BERGEN_SRC} (gamecabinet.com: 2)",
        "tie": "onlinedominogames.com/bergen-dominoes",
        "target": BERGEN_SRC,
        "hand_sizes": "domino-games.com; gamecabinet.com",
    },
)

SEED = Variant(
    name="seed",
    title=N_("DominoCam's own rules"),
    description=N_(
        "Anyone plays on any line and draws until they can; the lowest hand takes the others' pips."
    ),
    set=12,  # the founding text's examples (an 11 end, 12-12) need a double-12 set
    play="any-line",  # founding text: "if even one player can extend even one line"
    double_cover=0,  # the founding text has no open-double rule
    spinner_arms=4,  # not in the founding text; a spinner, if given, as All Fives'
    spinner_first=False,  # founding text: any line may be extended
    draw="until-playable",  # founding text: "draws from the boneyard until they get a
    # playable tile or the boneyard runs out"
    reserve=0,  # founding text: blocked only "when the boneyard is empty"
    block_winner="lowest-hand",  # founding text: "the player whose remaining hand has the
    # lowest pip total"
    points="others",  # founding text: "awarded the sum of all other players' remaining counts"
    rounding="none",  # founding text: "the sum of all other players' counts"
    bonus=0,  # founding text: only that sum
    tie="no-score",  # the founding text leaves ties to the variant; no-score as Block/Draw
    double_blank=0,  # docs/rules.md, what varies: 0 by default
    game_end="target",  # not in the founding text; as Block and Draw
    target=100,  # not in the founding text; the Block/Draw sources' 100
    hand_sizes=((2, 4, 15), (5, 5, 14), (6, 6, 12), (7, 8, 10), (9, 10, 8)),  # not in the
    # founding text: docs/rules.md's double-12 deal (Mexican Train) as a stand-in
    sources={
        "set": "founding text (docs/rules.md, the blocked game: an 11 end, 5-10, 12-12)",
        "play": "founding text",
        "draw": "founding text",
        "reserve": "founding text",
        "block_winner": "founding text",
        "points": "founding text",
        "tie": "not in the founding text; no-score as the Block and Draw sources",
        "double_blank": "docs/rules.md, what varies",
        "target": "not in the founding text; 100 as the Block and Draw sources",
        "hand_sizes": "not in the founding text; docs/rules.md's double-12 deal",
    },
)

VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        v.name: v
        for v in (BLOCK, DRAW, ALL_FIVES, MEXICAN_TRAIN, CHICKEN_FOOT, PARTNERSHIP, BERGEN, SEED)
    }
)


def variant_names() -> tuple[str, ...]:
    """The names `get_variant` accepts, in documentation order."""
    return tuple(VARIANTS)


def get_variant(name: str, overrides: Mapping[str, object] | None = None) -> Variant:
    """The variant called `name` (case-insensitive, `_` or `-`), with optional overrides.

    Raises:
        UserInputError: an unknown name (the message lists the valid names) or a bad override.
    """
    if not isinstance(name, str):
        raise Refused(
            _("variant must be a name (text), got {name!r}; valid: {valid}").format(
                name=name, valid=", ".join(VARIANTS)
            ),
            "unknown_variant",
            variant=plain_value(name),
            valid=list(VARIANTS),
        )
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    variant = VARIANTS.get(key)
    if variant is None:
        raise Refused(
            _("unknown variant {name!r}{suggestion}; valid variants: {valid}").format(
                name=name, suggestion=_suggest(key, VARIANTS), valid=", ".join(VARIANTS)
            ),
            "unknown_variant",
            variant=plain_value(name),
            valid=list(VARIANTS),
        )
    return variant.with_overrides(overrides)


def settings_table() -> list[dict[str, object]]:
    """One row per variant with its settings: the data behind docs/rules.md's table."""
    return [{"variant": v.name, **v.settings} for v in VARIANTS.values()]


__all__ = [
    "SETTINGS",
    "VARIANTS",
    "Setting",
    "Variant",
    "get_variant",
    "settings_table",
    "variant_names",
]
