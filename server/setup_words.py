"""The setup page's words: each variant by its name, a one-line description and where its
rules come from; each setting as a question with plain choices; and which settings matter
for which variant.

The values the page sends to the API stay the engine's codes (`block`, `lowest-hand`,
`no-score`, ...): only what a player reads is worded here, in the request's language. A
setting that cannot change anything in a variant (the spinner's arms in the block game, the
points target of a game played one round per double) is not asked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dominocam.i18n import N_, _, format_number
from dominocam.rules import variants as rules_variants
from dominocam.rules.variants import SETTINGS, VARIANTS, Variant

# Each setting as the question a host answers. (Whole-number settings are answered with a
# number; the rest with the words of CHOICES.)
QUESTIONS: Mapping[str, str] = {
    "play": N_("Where may a player play?"),
    "double_cover": N_("How many tiles must go on a new double before play goes on elsewhere?"),
    "spinner_arms": N_("How many lines may grow from the spinner?"),
    "spinner_first": N_("Must every line of the spinner be started before play goes elsewhere?"),
    "draw": N_("What does a player who cannot play do?"),
    "reserve": N_("How many tiles stay in the boneyard and are never drawn?"),
    "block_winner": N_("Who wins a blocked game?"),
    "points": N_("What does the winner of a blocked game score?"),
    "rounding": N_("Are the points rounded?"),
    "bonus": N_("How many bonus points does the winner of a blocked game get?"),
    "tie": N_("What happens when players tie for the fewest pips?"),
    "double_blank": N_("How many points does the double blank (0-0) count in a hand?"),
    "game_end": N_("When does the game end?"),
    "target": N_("How many points win the game?"),
}

# The plain words of each choice, by setting and code.
CHOICES: Mapping[str, Mapping[str, str]] = {
    "play": {
        "any-line": N_("On any open end"),
        "trains": N_("On their own train, the Mexican train, or a train with a marker"),
    },
    "draw": {
        "none": N_("Passes: nobody draws"),
        "until-playable": N_("Draws until they can play"),
        "one-then-pass": N_("Draws one tile, and passes if it does not fit"),
    },
    "block_winner": {
        "lowest-hand": N_("The player with the fewest pips in hand"),
        "lowest-team": N_("The team with the fewest pips in hand"),
        "no-double": N_("The fewest pips in a hand holding no double"),
        "blocker": N_("The player who blocked the game"),
    },
    "points": {
        "others": N_("The pips left in the other players' hands"),
        "others-minus-own": N_("The others' pips minus the winner's own"),
        "losing-team": N_("The pips of the losing team"),
        "all-hands": N_("The pips of every hand, the winner's too"),
        "penalty": N_("Nothing: every player scores their own pips, and the lowest total wins"),
        "none": N_("Only the bonus points"),
    },
    "rounding": {
        "none": N_("No, the pips as they are"),
        "nearest-5": N_("Yes, the total to the nearest 5"),
        "nearest-5-each": N_("Yes, each hand to the nearest 5"),
    },
    "tie": {
        "no-score": N_("Nobody scores"),
        "split": N_("They share the points"),
        "lightest-tile": N_("The one holding the lightest tile wins"),
        "void": N_("The hand does not count and the next player leads"),
        "leader": N_("The one seated first from the player who led wins"),
    },
    "game_end": {
        "target": N_("When a player reaches the points target"),
        "descending-doubles": N_("After one round per double, from the highest down to 0-0"),
    },
}
YES_NO: Mapping[bool, str] = {True: N_("Yes"), False: N_("No")}


@dataclass(frozen=True)
class When:
    """When a setting matters: for the variants of `layouts` (all when empty), and only while
    the setting `depends_on` holds none of the values in `not_when` (the page hides it as the
    host changes that setting)."""

    layouts: frozenset[str] = frozenset()
    depends_on: str | None = None
    not_when: tuple[str, ...] = ()


# A played line grows from a spinner only in the spinner and Chicken Foot layouts; trains
# and covered doubles belong to the games grown from an engine.
RELEVANCE: Mapping[str, When] = {
    "play": When(layouts=frozenset({"mexican"})),
    "double_cover": When(layouts=frozenset({"mexican", "chicken"})),
    "spinner_arms": When(layouts=frozenset({"spinner", "chicken"})),
    "spinner_first": When(layouts=frozenset({"spinner", "chicken"})),
    "reserve": When(depends_on="draw", not_when=("none",)),
    "block_winner": When(depends_on="points", not_when=("penalty",)),
    "rounding": When(depends_on="points", not_when=("penalty", "none")),
    "bonus": When(depends_on="points", not_when=("penalty",)),
    "tie": When(depends_on="points", not_when=("penalty",)),
    "target": When(depends_on="game_end", not_when=("descending-doubles",)),
}

# Where each variant's rules come from, as a player would say it.
ORIGINS: Mapping[str, str] = {
    "block": N_("The block game as the classic rule books (Hoyle) and the usual rule sites "
                "give it."),
    "draw": N_("The draw game as the usual rule sites give it."),
    "all-fives": N_("All Fives (Muggins) as the classic card and domino rule sites give it."),
    "mexican-train": N_("Mexican Train as it is played at home and in clubs in the "
                        "Americas, from the usual rule sheets."),
    "chicken-foot": N_("Chicken Foot as the usual rule sheets give it."),
    "partnership": N_("The partnership game of Latin America and Spain, four players in "
                      "two pairs."),
    "bergen": N_("Bergen as the usual rule sites give it."),
    "seed": N_("DominoCam's own rule for the blocked game, the one it was built on."),
}  # fmt: skip
# A source written as a web address (`pagat.com/tile/...`) is named by its site.
SITE = re.compile(r"\b((?:[a-z0-9-]+\.)+(?:com|net|org|nl|za))\b", re.I)


def origin_sites(variant: Variant) -> list[str]:
    """The web sites the variant's defaults cite (`dominocam.rules.variants`), in order, by name."""
    found: dict[str, None] = {}
    for source in variant.sources.values():
        for site in SITE.findall(source):
            found[site.lower().removeprefix("www.")] = None
        if "Wikipedia" in source:
            found["Wikipedia"] = None
    return list(found)


def _value_words(key: str, value: object) -> str:
    if isinstance(value, bool):
        return _(YES_NO[value])
    if isinstance(value, int):
        return format_number(value)
    return _(CHOICES[key][str(value)])


def matters(key: str, variant: Variant) -> bool:
    """Whether the setup page asks `key` for `variant` (its layout; RELEVANCE)."""
    when = RELEVANCE.get(key, When())
    return not when.layouts or variant.layout in when.layouts


def setting_words(key: str, variant: Variant) -> dict[str, Any]:
    """One setting of `variant` as the setup page asks it, in the current language."""
    setting = SETTINGS[key]
    default = getattr(variant, key)
    when = RELEVANCE.get(key, When())
    return {
        "key": key,
        "question": _(QUESTIONS[key]),
        "kind": setting.kind,
        "choices": [{"value": c, "words": _(CHOICES[key][c])} for c in setting.choices],
        "minimum": setting.minimum,
        "maximum": setting.maximum,
        "default": default,
        "default_words": _value_words(key, default),
        "depends_on": when.depends_on,
        "not_when": list(when.not_when),
    }


def variant_words(variant: Variant) -> dict[str, Any]:
    """A variant as the setup page shows it: name, description, origin, settings asked."""
    return {
        "name": variant.name,
        "title": _(variant.title),
        "description": _(variant.description),
        "origin": _(ORIGINS[variant.name]),
        "sites": origin_sites(variant),
        "set": variant.set,
        "teams": bool(variant.team_scoring),
        "settings": [setting_words(k, variant) for k in SETTINGS if matters(k, variant)],
    }


def setup_variants() -> list[dict[str, Any]]:
    """Every variant for the setup page, in the engine's order (the block game first)."""
    return [variant_words(v) for v in VARIANTS.values()]


def variant_title(name: str) -> str:
    """A variant's name in the current language (its code when the engine lost it)."""
    variant = rules_variants.VARIANTS.get(name)
    return _(variant.title) if variant else name
