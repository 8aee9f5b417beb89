"""The types of the fields of a JSON request body, checked before any field is used.

Python turns any value into a boolean or a number without a word (`bool("false")` is True,
`int(True)` is 1), so a field used unchecked lets `"false"` stand for true. Each endpoint
names the type of each field it reads (`Field`), and `checked` refuses a body whose fields
are of another JSON type, with a message that names the field, the type it needs and what
was sent (HTTP 400). Fields not named are ignored; nested values (tiles, lines, points) are
checked by the parsers that read them.

Shared by the single-table API (`dominocam.server.api`) and tournament mode
(`dominocam.tournament.web`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, overload

from dominocam.errors import Refused
from dominocam.i18n import N_, _

# SQLite (and PostgreSQL's bigint) keep whole numbers of 64 bits.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _is_whole(value: object) -> bool:
    return (
        isinstance(value, int) and not isinstance(value, bool) and INT64_MIN <= value <= INT64_MAX
    )


def _is_number(value: object) -> bool:
    # json.loads reads NaN and Infinity, which no JSON reader in a browser accepts back.
    if isinstance(value, float):
        return math.isfinite(value)
    return _is_whole(value)


@dataclass(frozen=True)
class JsonType:
    """A JSON type: `words` say it to a person (marked for translation), `accepts` tells
    whether a decoded value is of it."""

    words: str
    accepts: Callable[[object], bool]
    name: str = ""  # the JSON type's name in a refusal's parameters ("boolean")


BOOLEAN = JsonType(
    N_("true or false (a JSON boolean, without quotes)"),
    lambda v: isinstance(v, bool),
    "boolean",
)
INTEGER = JsonType(N_("a whole number (a JSON number, without quotes)"), _is_whole, "integer")
NUMBER = JsonType(N_("a number (a JSON number, without quotes)"), _is_number, "number")
STRING = JsonType(N_("text (a JSON string)"), lambda v: isinstance(v, str), "string")
ARRAY = JsonType(N_("a list (a JSON array)"), lambda v: isinstance(v, list), "array")
OBJECT = JsonType(N_("an object (a JSON object)"), lambda v: isinstance(v, dict), "object")


@dataclass(frozen=True)
class Field:
    """One field of a body: its type, whether it must be sent, and whether `null` stands
    for leaving it out."""

    type: JsonType
    required: bool = False
    nullable: bool = False


def required(kind: JsonType) -> Field:
    return Field(kind, required=True)


def optional(kind: JsonType, nullable: bool = False) -> Field:
    return Field(kind, nullable=nullable)


def shown(value: object) -> str:
    """A value as it was sent (JSON, so a string keeps its quotes), cut short."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def check_field(body: Mapping[str, Any], name: str, field: Field) -> None:
    """Raises UserInputError when `body[name]` is missing but required, or of another type."""
    if name not in body or (body[name] is None and field.nullable):
        if field.required:
            raise Refused(
                _("send '{field}': {kind}").format(field=name, kind=_(field.type.words)),
                "missing_field",
                field=name,
                type=field.type.name,
            )
        return
    value = body[name]
    if not field.type.accepts(value):
        raise Refused(
            _("'{field}' must be {kind}, got {value}").format(
                field=name, kind=_(field.type.words), value=shown(value)
            ),
            "wrong_type",
            field=name,
            type=field.type.name,
        )


def checked(body: Mapping[str, Any], fields: Mapping[str, Field]) -> Mapping[str, Any]:
    """`body` once every field named in `fields` is of its type (see `check_field`)."""
    for name, field in fields.items():
        check_field(body, name, field)
    return body


def query_flag(value: str | None, name: str) -> bool:
    """A yes/no query parameter: absent, "", "0" or "false" is no; "1" or "true" is yes.

    Raises:
        UserInputError: any other text (`?confirm=no` is not silently a yes).
    """
    if value is None or value.lower() in ("", "0", "false"):
        return False
    if value.lower() in ("1", "true"):
        return True
    raise Refused(
        _("'{field}' must be true or false (1 or 0), got {value}").format(
            field=name, value=shown(value)
        ),
        "wrong_type",
        field=name,
        type="boolean",
    )


@overload
def query_int(value: str | None, name: str, default: int) -> int: ...


@overload
def query_int(value: str | None, name: str, default: None = None) -> int | None: ...


def query_int(value: str | None, name: str, default: int | None = None) -> int | None:
    """A whole-number query parameter (`?since=`), `default` when absent.

    Raises:
        UserInputError: not a whole number, or past 64-bit integers.
    """
    if value is None or value == "":
        return default
    text = value.strip()
    digits = text[1:] if text[:1] in "+-" else text
    number = int(text) if digits.isascii() and digits.isdigit() else None
    if number is None or not INT64_MIN <= number <= INT64_MAX:
        raise Refused(
            _("'{field}' must be a whole number from {low} to {high}, got {value}").format(
                field=name, low=INT64_MIN, high=INT64_MAX, value=shown(value)
            ),
            "wrong_type",
            field=name,
            type="integer",
        )
    return number
