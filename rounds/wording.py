"""The sentences the audit trail and a round's lock store, written from templates here and
shown in the reader's language.

An audit entry's text (and a lock's reason) is stored once, in English, when it happens,
and every page shows it to everybody. As with the photo reader's warnings
(vision.messages, docs/decisions/2026-12-01-warning-languages.md), each one is written from
an `N_`-marked template below and recognised again where shown (`shown`), its values (names,
tiles, points) kept as they are.
"""

from __future__ import annotations

from rules.i18n import N_
from vision.messages import NO_OPEN_ENDS, shown_from

# server.game.hands
HOST_CHANGED_HAND = N_(
    "the host changed {name}'s confirmed hand: {before} ({before_pips} pips) became {after} "
    "({after_pips} pips)"
)
PLAYER_CHANGED_HAND = N_(
    "{who} changed {name}'s confirmed hand: {before} ({before_pips} pips) became {after} "
    "({after_pips} pips)"
)
HOST_CHANGED_HAND_PUBLIC = N_(
    "the host changed {name}'s confirmed hand ({before} tiles, now {after})"
)
PLAYER_CHANGED_HAND_PUBLIC = N_(
    "{who} changed {name}'s confirmed hand ({before} tiles, now {after})"
)
# server.game.rulings (the lock's reasons, the audit entries)
# server.game.hands (for the host alone: never public, not even after the round)
TYPED_OVER_READING = N_(
    "{who} typed {name}'s tiles instead of the photo's reading: the photo read {reading}, "
    "the hand is now {typed}"
)
PROPOSED_A_BLOCK = N_("{name} proposed a block")
CALLED_DOMINO = N_("{name} called domino")
HANDS_LOCKED = N_("hands locked: {text}")
HOST_UNLOCKED = N_("the host unlocked the hands")
RULES_REFUSED = N_("the rules engine refused the round: {error}")
TILE_NEEDS_CHECKING = N_("a tile needs checking before a ruling")
HELD_BLOCK = N_(
    "Blocked: every player confirmed {name}'s block. The round is scored once the host confirms."
)
HELD_DOMINO = N_("{name} called domino. The round is scored once the host confirms.")
HOST_CANCELLED = N_("the host cancelled: {text}")
# server.game.review (the round's ledger)
HELD_BLOCK_CHECKING = N_(
    "{name} proposed a block. The table host checks the round before it is ruled."
)
HELD_DOMINO_CHECKING = N_(
    "{name} called domino. The table host checks the round before it is scored."
)
HELD_FOR_HOST = N_("the ruling waits for the table host's check")
HOST_OVERRIDE = N_("the host rules the round although it does not add up")
# server.game.review
HOST_CHECKED_TABLE = N_("the host checked the table")
# server.game.undo
ROUND_REOPENED = N_("the round was reopened")
HOST_REOPENED = N_("the host reopened round {number} (its points {points} left the scoreboard)")
HOST_CORRECTED = N_("the host corrected round {number}'s points: {before} became {after}")
HOST_RENAMED = N_("the host renamed {old} to {new}")
HOST_CHANGED_SEATS = N_("the host changed the seats: {names}")
# A round's points when nobody scored (the `points`, `before`, `after` above).
NO_POINTS = N_("no points")
# What entries stored before NO_POINTS wrote instead (shown as vision.messages' "none").
LEGACY_NO_POINTS = NO_OPEN_ENDS

ALL: tuple[str, ...] = (
    HOST_CHANGED_HAND, PLAYER_CHANGED_HAND, HOST_CHANGED_HAND_PUBLIC,
    PLAYER_CHANGED_HAND_PUBLIC, TYPED_OVER_READING, PROPOSED_A_BLOCK, CALLED_DOMINO,
    HANDS_LOCKED, HOST_UNLOCKED,
    RULES_REFUSED, TILE_NEEDS_CHECKING, HELD_BLOCK, HELD_DOMINO, HOST_CANCELLED,
    HELD_BLOCK_CHECKING, HELD_DOMINO_CHECKING, HELD_FOR_HOST, HOST_OVERRIDE,
    HOST_CHECKED_TABLE, ROUND_REOPENED, HOST_REOPENED, HOST_CORRECTED, HOST_RENAMED,
    HOST_CHANGED_SEATS, NO_POINTS,
)  # fmt: skip
# Longest first: "the host changed ..." before "{who} changed ...".
TEMPLATES: tuple[str, ...] = (*sorted(ALL, key=len, reverse=True), LEGACY_NO_POINTS)
# A field that holds another stored sentence (a lock's reason, a held ruling) or words of
# this module (a round's points: NO_POINTS).
NESTED = frozenset({"text", "points", "before", "after"})


def shown(text: str) -> str:
    """A stored audit or lock sentence in the current language (as it is when no template
    wrote it: an entry stored before these templates)."""
    return shown_from(text, TEMPLATES, NESTED)
