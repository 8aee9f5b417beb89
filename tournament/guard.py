"""Token guessing is limited per address across every web process: the counter is in Redis.

The same limit as single-table mode (`dominocam.server.auth`): past `GUESS_LIMIT` wrong tokens
(director, table host or player) from one address in `GUESS_WINDOW_S`, every token from it
gets 429 with `Retry-After` until the window passes. The window is fixed, starting at the
address' first wrong token (a Redis `INCR` with an expiry): one round trip per check, and
the same answer whichever web process the address reaches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dominocam.i18n import _
from dominocam.tournament import frames

# As single-table mode (server/__init__.py DEFAULTS): a person mistyping never reaches it;
# a guesser gets 20 tries a minute against 144-bit secrets.
GUESS_LIMIT = 20
GUESS_WINDOW_S = 60


class TooManyGuesses(PermissionError):
    """HTTP 429: this address sent too many wrong tokens; `retry_after` seconds to wait."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            _("too many wrong tokens from this address; try again in {seconds} s").format(
                seconds=retry_after
            )
        )
        self.retry_after = retry_after
        # The refusal's stable code and parameters, as single-table mode's (server.auth).
        self.code = "too_many_guesses"
        self.params = {"retry_after": retry_after}


@dataclass(frozen=True)
class GuessGuard:
    """The per-address counter of wrong tokens of one event, in Redis."""

    client: Any
    event_id: int
    limit: int = GUESS_LIMIT
    window_s: int = GUESS_WINDOW_S

    def key(self, address: str) -> str:
        return f"{frames.PREFIX}:e{self.event_id}:guesses:{address}"

    def check(self, address: str) -> None:
        """Raises TooManyGuesses while `address` is past the limit."""
        pipe = self.client.pipeline()
        pipe.get(self.key(address))
        pipe.ttl(self.key(address))
        count, ttl = pipe.execute()
        if count is not None and int(count) >= self.limit:
            raise TooManyGuesses(max(1, int(ttl)))

    def failed(self, address: str) -> None:
        """Count one wrong token from `address` (the window starts at its first)."""
        pipe = self.client.pipeline()
        pipe.incr(self.key(address))
        pipe.expire(self.key(address), self.window_s, nx=True)
        pipe.execute()
