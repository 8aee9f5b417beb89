"""A refusal with a code: what the server answers a request it will not do.

The message is in the request's language; beside it a stable `code` with its `params` (plain
JSON values), which the API's error JSON gives beside `error` (`server._error`), so that a
program need not read the words. `server.game.records.NotFound` (404) and `Conflict` (409)
are refusals too; a `UserInputError` that is not one has no code (`code: null` in the JSON).
"""

from __future__ import annotations

from typing import Any

from dominocam.errors import UserInputError


class Refused(UserInputError):
    """A request the server refuses, HTTP 400 (module docstring)."""

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params
