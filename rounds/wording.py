"""The sentences the audit trail and a round's lock store, written from templates here and
shown in the reader's language.

An audit entry's text (and a lock's reason) is stored once, in English, when it happens, and every
page shows it to everybody. Each template below is a `dominocam.rules.phrases.Template` with a code:
its `format` gives a `Phrase`, the English text holding its code and parameters (names, tiles,
points, a nested sentence such as the lock's reason), which the store keeps beside the text
(`dominocam.server.game.audit.record`: the entry's `words`; a round's `locked_words`) and pages
write in their reader's language (`dominocam.rules.phrases.said`). An entry stored before codes
shows its stored text.
"""

from __future__ import annotations

from dominocam.i18n import N_
from dominocam.rules.phrases import Template

# server.game.hands
HOST_CHANGED_HAND = Template(
    "host_changed_hand",
    N_(
        "the host changed {name}'s confirmed hand: {before} ({before_pips} pips) became {after} "
        "({after_pips} pips)"
    ),
)
PLAYER_CHANGED_HAND = Template(
    "player_changed_hand",
    N_(
        "{who} changed {name}'s confirmed hand: {before} ({before_pips} pips) became {after} "
        "({after_pips} pips)"
    ),
)
HOST_CHANGED_HAND_PUBLIC = Template(
    "host_changed_hand_public",
    N_("the host changed {name}'s confirmed hand ({before} tiles, now {after})"),
)
PLAYER_CHANGED_HAND_PUBLIC = Template(
    "player_changed_hand_public",
    N_("{who} changed {name}'s confirmed hand ({before} tiles, now {after})"),
)
# server.game.rulings (the lock's reasons, the audit entries)
# server.game.hands (for the host alone: never public, not even after the round)
TYPED_OVER_READING = Template(
    "typed_over_reading",
    N_(
        "{who} typed {name}'s tiles instead of the photo's reading: the photo read {reading}, "
        "the hand is now {typed}"
    ),
)
PROPOSED_A_BLOCK = Template("proposed_a_block", N_("{name} proposed a block"))
CALLED_DOMINO = Template("called_domino", N_("{name} called domino"))
HANDS_LOCKED = Template("hands_locked", N_("hands locked: {text}"))
HOST_UNLOCKED = Template("host_unlocked", N_("the host unlocked the hands"))
RULES_REFUSED = Template("rules_refused", N_("the rules engine refused the round: {error}"))
TILE_NEEDS_CHECKING = Template("tile_needs_checking", N_("a tile needs checking before a ruling"))
HELD_BLOCK = Template(
    "held_block",
    N_(
        "Blocked: every player confirmed {name}'s block. The round is scored once the host "
        "confirms."
    ),
)
HELD_DOMINO = Template(
    "held_domino", N_("{name} called domino. The round is scored once the host confirms.")
)
HOST_CANCELLED = Template("host_cancelled", N_("the host cancelled: {text}"))
# server.game.review (the round's ledger)
HELD_BLOCK_CHECKING = Template(
    "held_block_checking",
    N_("{name} proposed a block. The table host checks the round before it is ruled."),
)
HELD_DOMINO_CHECKING = Template(
    "held_domino_checking",
    N_("{name} called domino. The table host checks the round before it is scored."),
)
HELD_FOR_HOST = Template("held_for_host", N_("the ruling waits for the table host's check"))
HOST_OVERRIDE = Template(
    "host_override", N_("the host rules the round although it does not add up")
)
# server.game.review
HOST_CHECKED_TABLE = Template("host_checked_table", N_("the host checked the table"))
# server.game.undo
ROUND_REOPENED = Template("round_reopened", N_("the round was reopened"))
HOST_REOPENED = Template(
    "host_reopened",
    N_("the host reopened round {number} (its points {points} left the scoreboard)"),
)
HOST_CORRECTED = Template(
    "host_corrected", N_("the host corrected round {number}'s points: {before} became {after}")
)
HOST_RENAMED = Template("host_renamed", N_("the host renamed {old} to {new}"))
HOST_CHANGED_SEATS = Template("host_changed_seats", N_("the host changed the seats: {names}"))
# A round's points when nobody scored (the `points`, `before`, `after` above).
NO_POINTS = Template("no_points", N_("no points"))

ALL: tuple[Template, ...] = (
    HOST_CHANGED_HAND, PLAYER_CHANGED_HAND, HOST_CHANGED_HAND_PUBLIC,
    PLAYER_CHANGED_HAND_PUBLIC, TYPED_OVER_READING, PROPOSED_A_BLOCK, CALLED_DOMINO,
    HANDS_LOCKED, HOST_UNLOCKED,
    RULES_REFUSED, TILE_NEEDS_CHECKING, HELD_BLOCK, HELD_DOMINO, HOST_CANCELLED,
    HELD_BLOCK_CHECKING, HELD_DOMINO_CHECKING, HELD_FOR_HOST, HOST_OVERRIDE,
    HOST_CHECKED_TABLE, ROUND_REOPENED, HOST_REOPENED, HOST_CORRECTED, HOST_RENAMED,
    HOST_CHANGED_SEATS, NO_POINTS,
)  # fmt: skip
