"""What a request sends: JSON bodies with typed fields (`dominocam.server.json_fields`, as
single-table mode), `?confirm=`, and JPEG photos."""

from __future__ import annotations

from typing import Any

from flask import request

from dominocam.errors import Refused
from dominocam.i18n import _
from dominocam.server.json_fields import (
    INTEGER,
    OBJECT,
    STRING,
    Field,
    checked,
    optional,
    query_flag,
)

MAX_FRAME_BYTES = 8 * 1024 * 1024
# The largest body read at all (a frame, or a JSON body): larger is 413, as JSON; waitress
# refuses one over twice this before reading it (tournament.cli.web_server).
MAX_BODY_BYTES = MAX_FRAME_BYTES + 1024 * 1024

REASON = optional(STRING, nullable=True)
TABLE_FIELDS = {
    "layout": optional(OBJECT, nullable=True),
    "boneyard": optional(INTEGER, nullable=True),
}


def confirm_query() -> bool:
    """`?confirm=1` (or true): the host confirms the ruling at once; `?confirm=false` does
    not, and any other text is a 400."""
    return query_flag(request.args.get("confirm"), "confirm")


def body_object(example: str, fields: dict[str, Field] | None = None) -> dict[str, Any]:
    """The JSON body ({} when none), each of `fields` of its JSON type
    (server.json_fields: `"false"` is no boolean; 400 naming the field)."""
    body = request.get_json(silent=True)
    if body is None and not request.get_data(cache=True):
        body = {}
    if not isinstance(body, dict):
        raise Refused(
            _("send a JSON object: {example}").format(example=example), "body_not_an_object"
        )
    checked(body, fields or {})
    return body


def jpeg_body() -> bytes:
    """The request's body, a JPEG of at most `MAX_FRAME_BYTES` (else a 400)."""
    if (request.content_length or 0) > MAX_FRAME_BYTES:
        raise _photo_too_large()
    body = request.get_data(cache=False)
    if len(body) > MAX_FRAME_BYTES:
        raise _photo_too_large()
    if not body.startswith(b"\xff\xd8\xff"):
        raise Refused(_("send the photo as a JPEG (Content-Type: image/jpeg)"), "not_a_jpeg")
    return body


def _photo_too_large() -> Refused:
    return Refused(
        _("a photo may be {size} MiB at most").format(size=MAX_FRAME_BYTES // 2**20),
        "photo_too_large",
        megabytes=MAX_FRAME_BYTES // 2**20,
    )
