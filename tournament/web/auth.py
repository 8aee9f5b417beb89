"""Who a request is: the token it carries (`Authorization: Bearer TOKEN`; pages: in their
path) and the actor it belongs to. A wrong token counts against the address in Redis
(`dominocam.tournament.guard`), shared by every web process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import request

from dominocam.i18n import _
from dominocam.tournament import store
from dominocam.tournament.web.services import event_id, guard, pool


class Denied(PermissionError):
    """A token that does not open this (HTTP 403), with the refusal's stable `code` and
    `params` (as `dominocam.errors.Refused`)."""

    def __init__(self, message: str, code: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class NoCredentials(Denied):
    """No token was sent (HTTP 401; a wrong one is a Denied, 403)."""


@dataclass(frozen=True)
class Actor:
    """Who a token is: the event `director` (the admin token), a table's `host`, or a
    `player`. The director and a table's host both act as the host of that table."""

    kind: str
    table: str | None = None
    player: store.Player | None = None

    def hosts(self, table_id: str) -> bool:
        return self.kind == "director" or (self.kind == "host" and self.table == table_id)


def bearer() -> str:
    """The request's token (401 without one)."""
    header = request.headers.get("Authorization", "")
    if not header.startswith("Bearer ") or not header[7:].strip():
        raise NoCredentials(_("send 'Authorization: Bearer TOKEN'"), "no_token")
    return header[7:].strip()


def who(token: str) -> Actor:
    """The actor a token belongs to; a wrong one counts against the address."""
    address = request.remote_addr or "unknown"
    guard().check(address)
    event = event_id()
    with pool().connection() as conn:
        if store.is_admin(conn, event, token):
            return Actor("director")
        table_id = store.host_table(conn, event, token)
        if table_id is not None:
            return Actor("host", table_id)
        player = store.player_by_token(conn, event, token)
    if player is not None:
        return Actor("player", player.table_id, player)
    guard().failed(address)
    raise Denied(_("this token is not valid for the event"), "wrong_token")


def require_admin() -> None:
    if who(bearer()).kind != "director":
        raise Denied(_("this needs the event director's token"), "director_required")


def require_host(table_id: str) -> Actor:
    actor = who(bearer())
    if not actor.hosts(table_id):
        raise Denied(
            _("this needs the host of table {table} or the director").format(table=table_id),
            "host_required",
            table=table_id,
        )
    return actor


def require_player() -> store.Player:
    actor = who(bearer())
    if actor.player is None:
        raise Denied(_("this needs a player's link"), "player_link_required")
    return actor.player
