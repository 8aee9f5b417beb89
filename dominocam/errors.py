"""The one error type every layer raises for bad input from a user.

The command line turns it into a one-line message and exit status 2, the API into
HTTP 400; anything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations


class UserInputError(ValueError):
    """Input that cannot be used as given; the message says what is wrong and what to do."""
