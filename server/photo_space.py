"""How much photo a game, and each player in it, may keep on disk.

One player link could fill the disk: every photo sent was kept, 19 MB at a time. Now

* only what the audit needs is kept: the table photo of each round, the photo behind each
  hand as it was confirmed, and the pending photo a player has not confirmed yet; a pending
  photo replaced by a newer one, or dropped, was never part of a hand and is deleted
  (`dominocam.server.api` deletes the file the game functions say was replaced), and so is a table
  photo replaced by a newer one;
* the photos of a game (`PHOTO_BYTES_PER_GAME`) and of each player's hands in it
  (`PHOTO_BYTES_PER_PLAYER`) are capped; a photo that would pass a cap is refused (507) with
  what to do instead: enter the tiles by hand. None lifts a cap.

Usage is what the game's folder holds on disk (`game-N/`), a player's being the files
named `hand-PLAYERID-…`, so a file left over by an older version counts too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dominocam.i18n import _
from dominocam.server.uploads import UploadError

MIB = 1024 * 1024
# HTTP 507 Insufficient Storage: the server cannot keep what the request needs stored.
NO_ROOM = 507


@dataclass(frozen=True)
class PhotoSpace:
    """The caps, in bytes (None: no cap)."""

    per_game: int | None
    per_player: int | None

    def __post_init__(self) -> None:
        for cap in (self.per_game, self.per_player):
            if cap is not None and (not isinstance(cap, int) or cap < 0):
                raise ValueError(f"a photo cap is a number of bytes >= 0 or None, got {cap!r}")


def hand_prefix(player_id: int) -> str:
    """The start of the name of every photo of a player's hands (`uploads.store`)."""
    return f"hand-{player_id}-"


def bytes_used(folder: Path, prefix: str = "") -> int:
    """Bytes of the files in `folder` whose names start with `prefix` (0 without it)."""
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    return sum(
        _entry_size(entry)
        for entry in entries
        if entry.name.startswith(prefix) and entry.is_file(follow_symlinks=False)
    )


def _entry_size(entry: os.DirEntry[str]) -> int:
    """The size of a listed file, 0 when it is gone since: another upload may delete the photo
    it replaces between the listing and this look."""
    try:
        return entry.stat().st_size
    except FileNotFoundError:
        return 0


def _size(folder: Path, name: str | None) -> int:
    if not name:
        return 0
    try:
        return (folder / name).stat().st_size
    except FileNotFoundError:
        return 0


def _megabytes(size: int) -> str:
    return f"{size / MIB:.0f}"


def check_room(
    folder: Path,
    space: PhotoSpace,
    new_bytes: int,
    player_id: int | None = None,
    replacing: str | None = None,
) -> None:
    """Refuse a photo of `new_bytes` that would pass a cap; `replacing` is the photo it will
    replace (deleted once it is stored, so not counted).

    Raises:
        UploadError: 507, saying whose space is used and what to do instead.
    """
    freed = _size(folder, replacing)
    if player_id is not None and space.per_player is not None:
        used = bytes_used(folder, hand_prefix(player_id)) - freed
        if used + new_bytes > space.per_player:
            raise UploadError(
                _(
                    "your hand photos in this game have used your photo space ({limit} MB): "
                    "enter your tiles by hand instead; the host can allow more "
                    "(PHOTO_BYTES_PER_PLAYER)"
                ).format(limit=_megabytes(space.per_player)),
                "player_photo_space_used",
                NO_ROOM,
                limit_bytes=space.per_player,
            )
    if space.per_game is not None:
        used = bytes_used(folder) - freed
        if used + new_bytes > space.per_game:
            raise UploadError(
                _(
                    "this game has used its photo space ({limit} MB): enter the tiles by hand "
                    "instead of sending photos; the host can allow more (PHOTO_BYTES_PER_GAME)"
                ).format(limit=_megabytes(space.per_game)),
                "game_photo_space_used",
                NO_ROOM,
                limit_bytes=space.per_game,
            )


def discard(folder: Path, name: str | None) -> None:
    """Delete a photo nothing keeps any more (a plain file name inside `folder`)."""
    if name and Path(name).name == name:
        (folder / name).unlink(missing_ok=True)
