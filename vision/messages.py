"""The English templates of the vision layer's warnings and of the live camera's events.

A warning is data: a code with its parameters (`dominocam.vision.notes.Note`), produced where it is
known from one template here (`notes.note(messages.CUT_BY_BORDER, tile=3)`); the template
writes the English text the Scene's `warnings` hold, and, translated, the host's details
(`notes.detail_text`). A player reads the sentence of its code (`notes.player_text`). The
templates are marked with `N_`, so `make messages` puts them in the catalogues. Nothing reads
a warning's text back: see docs/decisions/2026-12-01-warning-languages.md.

The live camera's event sentences (`dominocam.vision.track.event_text`, below) are data the same
way: each template has a code (`dominocam.rules.phrases.Template`), an event keeps its code and
parameters beside its English text, and pages write it in their reader's language
(`dominocam.rules.phrases.said`).
"""

from __future__ import annotations

from dominocam.i18n import N_
from dominocam.rules.phrases import Template

# vision.decode
HALF_ABOVE_SET = N_(
    "tile {tile}: a half read as {pips} pips, more than a double-{set_max} set has; read as "
    "its best value <= {set_max}"
)
TOO_MANY_TILES = N_(
    "{count} face-up tiles but a double-{set_max} set has only {available}: is the set size "
    "right (--set)? Tiles were read one by one"
)
READ_TWICE = N_(
    "tiles {other} and {tile} are both read {reading}, but a set has one {reading}: tile "
    "{tile} may be misread (it could be {alternative}, p={p_alternative:.2f}, against "
    "p={p:.2f} for {reading}): please check it"
)
READ_COLLIDES = N_(
    "tile {tile} read {reading} collides with another read: tile {tile} may be misread (it "
    "could be {alternative}, p={p_alternative:.2f}, against p={p:.2f} for {reading}): please "
    "check it"
)
READ_CHANGED = N_(
    "tile {tile} read {first} (p={p_first:.2f}) changed to {chosen} (p={p:.2f}): {why}"
)
# A read the halves it touches changed: their pooled evidence makes the new read the likelier,
# which the read on its own (the first p) does not show.
READ_CHANGED_TOGETHER = N_(
    "tile {tile} read {first} (p={p_first:.2f}) changed to {chosen}: {why}; with the halves "
    "it touches, {chosen} is the likelier (p={p:.2f} against {p_other:.2f} for {first})"
)
WENT_TO_TILE = N_(
    "{reading} went to tile {holder} in the most likely reading of all tiles together, and a "
    "set holds each tile once"
)
COLLIDED = N_("{reading} collided with another read, and a set holds each tile once")
MUST_MATCH_TILE = N_("a touching half must match tile {tiles}")
MUST_MATCH_TILES = N_("a touching half must match tiles {tiles}")
# vision.pipeline
NOT_READ = N_("{count} face-up tiles were not read: no reader model")
CUT_BY_BORDER = N_("tile {tile} is cut by the image border")
BACK_BOTH_HALVES = N_(
    "tile {tile}: the detector saw a face, but the reader sees a tile's back on both halves "
    "(p>={p:.2f}): counted face down"
)
# vision.confidence (a player's words: the reasons of `needs_review`)
MAY_BE_MISREAD_COULD_BE = N_(
    "Tile {tile} (#{id}) may be misread (it could be {other}): please check it"
)
MAY_BE_MISREAD = N_("Tile {tile} (#{id}) may be misread: please check it")
MAY_NOT_BE_A_TILE_COULD_BE = N_(
    "Tile {tile} (#{id}) may not be a tile, or may lie face up (it could be {other}): please "
    "check it"
)
MAY_NOT_BE_A_TILE = N_("Tile {tile} (#{id}) may not be a tile, or may lie face up: please check it")
FACE_DOWN_MAY_NOT_BE_A_TILE = N_(
    "The face-down tile #{id} may not be a tile, or may lie face up: please check it"
)
UNREAD_MAY_BE_MISREAD = N_("The unread tile #{id} may be misread: please check it")
CUT_BY_EDGE = N_(
    "Tile {tile} (#{id}) is cut by the edge of the picture: part of it may be hidden; please "
    "check it"
)
FACE_DOWN_CUT_BY_EDGE = N_(
    "The face-down tile #{id} is cut by the edge of the picture: part of it may be hidden; "
    "please check it"
)
UNREAD_CUT_BY_EDGE = N_(
    "The unread tile #{id} is cut by the edge of the picture: part of it may be hidden; "
    "please check it"
)
BOX_MAY_BE_A_TILE = N_(
    "A box at ({x:.0f}, {y:.0f}) was left out as probably not a tile, but it may be one "
    "(p={p:.2f}): please check it"
)
BOX_AT_OPEN_END = N_(
    "A box at ({x:.0f}, {y:.0f}) was left out as probably not a tile, but it lies against "
    "the open end {value} of tile #{id}, where a tile would change the ruling: please check it"
)
LAYOUT_DOUBTS = N_(
    "The lines on the table may not be what the picture shows (see the layout's doubts): "
    "please check them before a ruling"
)
# vision.layout (warnings, and the layout's doubts)
HALVES_DIFFER = N_(
    "tiles {a} and {b} touch with halves {x} and {y}, which do not match: they are not a "
    "played line (a misread, or tiles set down side by side)"
)
CLOSES_A_LOOP = N_(
    "tiles {a} and {b} match and touch but close a loop in the layout: a line's end lies "
    "against another part of it, so which one it was played on is a guess"
)
ROOT_CARRIES = N_("tile {tile} carries {count} lines but a {kind} layout's root offers {places}")
ENGINE_GUESS = N_(
    "which double is the engine is a guess: tile {root}, nearest the centre, rather than "
    "tile {rival}"
)
SPINNER_GUESS = N_(
    "which double is the spinner is a guess: tile {root}, nearest the centre, rather than "
    "tile {rival}"
)
NOTHING_PLAYED = N_(
    "nothing is played against anything: tile {tile} is taken as the layout's first tile"
)
PLAYED_APART = N_(
    "tiles {tiles} are played together apart from the layout: loose tiles that match, or a "
    "line broken by a missed tile"
)
TILE_BEYOND_END = N_(
    "tile {beyond} lies about one tile beyond the open end on tile {tile}: a tile may be "
    "missing between them"
)
END_CUT_BY_BORDER = N_(
    "the open end on tile {tile} is cut by the image border: the line may go on outside the picture"
)
NO_MATCH_AT_END = N_(
    "tiles {a} and {b} touch without matching at an open end: a misread, or a misplaced tile"
)

# server.table_scene (the live camera's Scene merged with a person's corrections)
CORRECTION_UNMATCHED = N_(
    "the correction of tile {tile} to {pips} was made on a photo the camera cannot match: "
    "check that tile"
)
DELETION_UNMATCHED = N_(
    "tile {tile} was deleted on a photo the camera cannot match: if the camera shows it "
    "again, delete it again"
)

ALL: tuple[str, ...] = (
    HALF_ABOVE_SET, TOO_MANY_TILES, READ_TWICE, READ_COLLIDES, READ_CHANGED,
    READ_CHANGED_TOGETHER, WENT_TO_TILE,
    COLLIDED, MUST_MATCH_TILE, MUST_MATCH_TILES, NOT_READ, CUT_BY_BORDER, BACK_BOTH_HALVES,
    MAY_BE_MISREAD_COULD_BE, MAY_BE_MISREAD, MAY_NOT_BE_A_TILE_COULD_BE, MAY_NOT_BE_A_TILE,
    FACE_DOWN_MAY_NOT_BE_A_TILE, UNREAD_MAY_BE_MISREAD, CUT_BY_EDGE, FACE_DOWN_CUT_BY_EDGE,
    UNREAD_CUT_BY_EDGE, BOX_MAY_BE_A_TILE, BOX_AT_OPEN_END, LAYOUT_DOUBTS, HALVES_DIFFER,
    CLOSES_A_LOOP, ROOT_CARRIES, ENGINE_GUESS, SPINNER_GUESS, NOTHING_PLAYED, PLAYED_APART,
    TILE_BEYOND_END, END_CUT_BY_BORDER, NO_MATCH_AT_END, CORRECTION_UNMATCHED,
    DELETION_UNMATCHED,
)  # fmt: skip

# vision.track: the live camera's moves, one sentence per event
# (`dominocam.vision.track.event_text`), each a `dominocam.rules.phrases.Template`: the event
# stores its English text and, beside it, the code and parameters (`TableEvent.words`) that
# pages write in their reader's language. The tile (`name`: its value `[a, b]`, or a phrase
# below), where it lies (`place`: `dominocam.rules.places.place_phrase`, "at the top right",
# never a line's number), the open ends (`ends`: the values, or NO_OPEN_ENDS) and a move to
# check (`event`) are parameters.
EVENT_PLAYED = Template("event_played", N_("{name} played (open ends: {ends})"), ("name",))
EVENT_PLAYED_AT = Template(
    "event_played_at", N_("{name} played {place} (open ends: {ends})"), ("name",)
)
EVENT_PLAYED_AT_END = Template(
    "event_played_at_end",
    N_("{name} played {place}, open end now {end} (open ends: {ends})"),
    ("name",),
)
EVENT_APPEARED = Template("event_appeared", N_("{name} appeared (open ends: {ends})"), ("name",))
EVENT_APPEARED_AT = Template(
    "event_appeared_at", N_("{name} appeared {place} (open ends: {ends})"), ("name",)
)
EVENT_APPEARED_AT_END = Template(
    "event_appeared_at_end",
    N_("{name} appeared {place}, open end now {end} (open ends: {ends})"),
    ("name",),
)
# Events stored before they said where a tile lies named its line by number: their codes stay
# known, so a round's old events are still written in each reader's language.
_EVENT_PLAYED_ON_LINE = Template(
    "event_played_on_line", N_("{name} played on line {line} (open ends: {ends})"), ("name",)
)
_EVENT_PLAYED_ON_LINE_END = Template(
    "event_played_on_line_end",
    N_("{name} played on line {line}, open end now {end} (open ends: {ends})"),
    ("name",),
)
_EVENT_APPEARED_ON_LINE = Template(
    "event_appeared_on_line", N_("{name} appeared on line {line} (open ends: {ends})"), ("name",)
)
_EVENT_APPEARED_ON_LINE_END = Template(
    "event_appeared_on_line_end",
    N_("{name} appeared on line {line}, open end now {end} (open ends: {ends})"),
    ("name",),
)
EVENT_REMOVED = Template("event_removed", N_("{name} removed (open ends: {ends})"), ("name",))
EVENT_READS_AT = Template(
    "event_reads_at", N_("the tile {place} now reads {name} (open ends: {ends})"), ("name",)
)
EVENT_NOW_READS = Template(
    "event_now_reads", N_("tile #{track} now reads {name} (open ends: {ends})"), ("name",)
)
EVENT_TO_CHECK = Template("event_to_check", N_("{event}: please check it"))
# server.game.camera_events: a person's correction of the tile stands over the camera's read.
EVENT_CORRECTION_STANDS = Template(
    "event_correction_stands", N_("{event}; a person's correction stands: {kept}"), ("kept",)
)
EVENT_DELETION_STANDS = Template(
    "event_deletion_stands", N_("{event}; a person's correction stands: deleted")
)
TILE_FACE_DOWN = Template("tile_face_down", N_("a face-down tile"))
TILE_UNREAD = Template("tile_unread", N_("an unread tile"))
TILE_NOT_SURE = Template("tile_not_sure", N_("a tile not read surely"))
TILE_NOT_SURE_MAYBE = Template(
    "tile_not_sure_maybe", N_("a tile not read surely (maybe {maybe})"), ("maybe",)
)
NO_OPEN_ENDS = Template("no_open_ends", N_("none"))

EVENT_ALL: tuple[Template, ...] = (
    EVENT_PLAYED, EVENT_PLAYED_AT, EVENT_PLAYED_AT_END, EVENT_APPEARED, EVENT_APPEARED_AT,
    EVENT_APPEARED_AT_END, EVENT_REMOVED, EVENT_READS_AT, EVENT_NOW_READS, EVENT_TO_CHECK,
    EVENT_CORRECTION_STANDS, EVENT_DELETION_STANDS, TILE_FACE_DOWN, TILE_UNREAD, TILE_NOT_SURE,
    TILE_NOT_SURE_MAYBE, NO_OPEN_ENDS, _EVENT_PLAYED_ON_LINE, _EVENT_PLAYED_ON_LINE_END,
    _EVENT_APPEARED_ON_LINE, _EVENT_APPEARED_ON_LINE_END,
)  # fmt: skip
