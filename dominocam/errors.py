"""The one error type every layer raises for bad input from a user.

The command line turns it into a one-line message and exit status 2, the API into
HTTP 400; anything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations

from typing import Any


class UserInputError(ValueError):
    """Input that cannot be used as given; the message says what is wrong and what to do."""


class Refused(UserInputError):
    """A refusal with a stable `code` and its `params` (plain JSON values) beside the message,
    so that a program need not read the words: the API's error JSON gives both (`code` null,
    `params` {} for a `UserInputError` that is not one)."""

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params
