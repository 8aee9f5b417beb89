"""Who may do what: the table's admin token, the session cookie it buys, and player links.

* The admin token is made on first start, printed once, and stored only as an scrypt hash.
  Control endpoints accept it as `Authorization: Bearer TOKEN`, or a session cookie obtained
  by posting it to `/login`. Cookie-authenticated writes must also carry the header
  `X-DominoCam: 1` (a cross-site form cannot set it), which stops cross-site request forgery.
* A player's link carries `PLAYERID.MAC`, an HMAC of the game, the player and a per-player salt
  under the server's secret key: it is valid for that player of that game only, survives a
  restart, and rotating the salt revokes it.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from flask import current_app, g, request, session

from server import storage

ADMIN_HASH_KEY = "admin_token_scrypt"
SECRET_KEY_KEY = "secret_key"
CSRF_HEADER = "X-DominoCam"

# scrypt cost: about 30 ms and 16 MiB per check; results are cached per process.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}

F = TypeVar("F", bound=Callable[..., Any])


class AuthError(Exception):
    """A request without the right credentials; `status` is 401 or 403."""

    def __init__(self, message: str, status: int = 401) -> None:
        super().__init__(message)
        self.status = status


def new_token() -> str:
    """A fresh admin token: 32 url-safe characters (192 bits)."""
    return secrets.token_urlsafe(24)


def hash_token(token: str, salt: bytes | None = None) -> str:
    """`scrypt$SALT$HASH` (base64) of a token."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(token.encode(), salt=salt, maxmem=64 * 1024 * 1024, **_SCRYPT)
    return f"scrypt${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def check_token_hash(token: str, stored: str) -> bool:
    try:
        scheme, salt_b64, digest_b64 = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    expected = hash_token(token, base64.b64decode(salt_b64))
    return hmac.compare_digest(expected, stored) and bool(digest_b64)


def ensure_admin_token(conn: sqlite3.Connection, token: str | None = None) -> str | None:
    """Create the admin token if the database has none; return it (plain) when created.

    With `token` given (tests, `--reset-token`), that token replaces any stored one.
    """
    with storage.transaction(conn):
        stored = storage.get_setting(conn, ADMIN_HASH_KEY)
        if stored is not None and token is None:
            return None
        plain = token or new_token()
        storage.set_setting(conn, ADMIN_HASH_KEY, hash_token(plain))
    _verified_cache.clear()
    return plain


def secret_key(conn: sqlite3.Connection) -> str:
    """The key that signs session cookies and player links, made once per database."""
    return storage.setting_or_create(conn, SECRET_KEY_KEY, lambda: secrets.token_hex(32))


# Verified tokens, by (stored hash, sha256 of the token): scrypt is deliberately slow.
_verified_cache: set[tuple[str, str]] = set()


def is_admin_token(conn: sqlite3.Connection, token: str) -> bool:
    stored = storage.get_setting(conn, ADMIN_HASH_KEY)
    if not stored or not token:
        return False
    key = (stored, hashlib.sha256(token.encode()).hexdigest())
    if key in _verified_cache:
        return True
    if check_token_hash(token, stored):
        if len(_verified_cache) > 64:
            _verified_cache.clear()
        _verified_cache.add(key)
        return True
    return False


def admin_epoch(conn: sqlite3.Connection) -> str:
    """Changes whenever the admin token changes, so old session cookies stop working."""
    stored = storage.get_setting(conn, ADMIN_HASH_KEY) or ""
    return hashlib.sha256(stored.encode()).hexdigest()[:16]


def request_is_admin(conn: sqlite3.Connection) -> bool:
    """True when this request carries the admin token or a valid admin session cookie.

    Raises:
        AuthError: a cookie-authenticated write without the anti-forgery header.
    """
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        if is_admin_token(conn, header[len("Bearer ") :].strip()):
            return True
        raise AuthError("the admin token is wrong", 403)
    if session.get("admin") == admin_epoch(conn):
        if request.method not in ("GET", "HEAD", "OPTIONS") and not request.headers.get(
            CSRF_HEADER
        ):
            raise AuthError(f"cookie-authenticated writes need the header {CSRF_HEADER}: 1", 403)
        return True
    return False


def admin_required(view: F) -> F:
    """Decorator: 401 without credentials, 403 with wrong ones."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        from server.db import get_db

        if not request_is_admin(get_db()):
            raise AuthError(
                "this needs the table's admin token: send 'Authorization: Bearer TOKEN' "
                "or log in at /login"
            )
        g.is_admin = True
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


# --- player links -----------------------------------------------------------------------------


def player_token(game_id: int, player_id: int, salt: str) -> str:
    """The capability in a player's link: `PLAYERID.MAC`."""
    key = current_app.config["SECRET_KEY"].encode()
    message = f"player:{game_id}:{player_id}:{salt}".encode()
    mac = hmac.new(key, message, hashlib.sha256).digest()[:18]
    return f"{player_id}.{base64.urlsafe_b64encode(mac).decode().rstrip('=')}"


def player_from_token(conn: sqlite3.Connection, token: str) -> sqlite3.Row:
    """The player row a link token belongs to.

    Raises:
        AuthError: 403 for a malformed, forged or revoked token.
    """
    pid_text, _, _mac = token.partition(".")
    if not pid_text.isdigit() or not _mac:
        raise AuthError("this player link is not valid", 403)
    row = conn.execute("SELECT * FROM players WHERE id = ?", (int(pid_text),)).fetchone()
    if row is None:
        raise AuthError("this player link is not valid", 403)
    expected = player_token(row["game_id"], row["id"], row["salt"])
    if not hmac.compare_digest(expected, token):
        raise AuthError("this player link is not valid", 403)
    return row
