"""The one error type every layer raises for bad input from a user.

The command line turns it into a one-line message and exit status 2, the API into
HTTP 400; anything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations

import json
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


def plain_value(value: Any, limit: int = 80) -> Any:
    """`value` as a refusal's parameter: a number, boolean, null or text as it is (text cut
    to `limit` characters); anything else (a list or object that was sent where it does not
    fit) as its JSON text, cut to `limit`."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return value[:limit]
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def with_context(error: UserInputError, message: str, **params: Any) -> Refused:
    """A refusal that says where `error` happened (`message`), keeping its code and
    parameters and adding `params` (e.g. which hand, which position)."""
    return Refused(
        message, getattr(error, "code", None), **{**getattr(error, "params", {}), **params}
    )
