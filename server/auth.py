"""Who may do what: the table's admin token, the session cookie it buys, and player links.

* The admin token is made on first start, printed once, and stored only as an scrypt hash.
  Control endpoints accept it as `Authorization: Bearer TOKEN`, or a session cookie obtained
  by posting it to `/login`. Cookie-authenticated writes must also carry the header
  `X-DominoCam: 1` (a cross-site form cannot set it), which stops cross-site request forgery.
* Sessions are server-side: the (signed) cookie holds a random session id, the database only
  its SHA-256 (`admin_sessions`), so logging out, expiry (`ADMIN_SESSION_HOURS`) and a new
  admin token (`--reset-token`) end a session even where its cookie was copied, and a cookie
  forged with the signing key is refused (its id is in no row).
* A player's link carries `PLAYERID.CODE`: CODE is 144 bits of HMAC-SHA256, under the
  server's link key, of the player's random secret and link counter (`player_link_code`).
  The key is kept in a file of its own beside the database, owner-only (0600, `link_key`);
  the database keeps the secret and the counter. So the database alone cannot recreate a
  link (nor the key file alone), yet the page shows every link again after a restart.
  "New link" adds one to the player's counter: the old link stops working. A link made
  before this scheme (schema 6; only its SHA-256 was kept, `players.link_hash`) still works
  until "New link" replaces it, but cannot be shown again. A new key file (deleted, or
  another one) changes and so revokes every link.
* First start: on the computer that runs the server (a request from 127.0.0.1 or ::1 that
  calls it by a loopback name: 127.0.0.1, [::1], localhost), while no passphrase is set,
  `/first-run` lets the host choose a passphrase, stored like the token (scrypt hash only).
  `/login` then accepts the passphrase or the token; scripts keep using the token
  (`Authorization: Bearer` takes the token only).
* Guessing is limited: past `GUESS_LIMIT` wrong tokens (admin or player) in
  `GUESS_WINDOW_S` from one address, every token from it gets 429 until the window passes.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from flask import current_app, g, request, session

from dominocam.errors import Refused
from dominocam.i18n import _
from dominocam.server import storage
from dominocam.server.db import get_db
from dominocam.server.host_check import names_loopback

ADMIN_HASH_KEY = "admin_token_scrypt"
PASSPHRASE_HASH_KEY = "admin_passphrase_scrypt"
# A passphrase people type at the table: long enough not to be guessed in the guessing limit.
MIN_PASSPHRASE = 8
LOCAL_ADDRESSES = ("127.0.0.1", "::1")
SECRET_KEY_KEY = "secret_key"
CSRF_HEADER = "X-DominoCam"

# scrypt cost: about 30 ms and 16 MiB per check; results are cached per process.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}

F = TypeVar("F", bound=Callable[..., Any])


# Longest admin token looked at (ours are 32 characters): longer ones are simply wrong.
MAX_ADMIN_TOKEN = 256
# A player link token: an ASCII player id, a dot, the url-safe base64 secret.
PLAYER_TOKEN = re.compile(r"[0-9]{1,9}\.[A-Za-z0-9_-]{16,64}")


class AuthError(Exception):
    """A request without the right credentials; `status` is 401, 403 or 429 (with
    `retry_after` seconds, also in `params`). `code` and `params` are the refusal's stable
    code and its parameters, as `dominocam.errors.Refused` has them (the API's error JSON
    gives both)."""

    def __init__(
        self,
        message: str,
        code: str,
        status: int = 401,
        retry_after: int | None = None,
        **params: Any,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.retry_after = retry_after
        self.params = params if retry_after is None else {**params, "retry_after": retry_after}


class GuessLimiter:
    """Counts wrong tokens per client address in a sliding window (one per app)."""

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit = limit
        self.window_s = window_s
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        failures = self._failures.get(client, deque())
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        return failures

    def check(self, client: str) -> None:
        """Raises AuthError 429 while `client` is past the limit."""
        now = time.monotonic()
        with self._lock:
            failures = self._recent(client, now)
            if len(failures) >= self.limit:
                wait = int(failures[0] + self.window_s - now) + 1
                raise AuthError(
                    _("too many wrong tokens from this device; try again in {wait} s").format(
                        wait=wait
                    ),
                    "too_many_guesses",
                    429,
                    wait,
                )

    def failed(self, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            failures = self._recent(client, now)
            failures.append(now)
            self._failures[client] = failures
            if len(self._failures) > 10_000:  # forget addresses quiet for a window
                quiet = [
                    k for k, v in self._failures.items() if not v or v[-1] <= now - self.window_s
                ]
                for key in quiet:
                    del self._failures[key]


def mark_private() -> None:
    """This answer is for one person (an admin, a player's link, a login): browsers and
    proxies must not keep it (`Cache-Control: no-store`, set in `server.create_app`)."""
    g.private = True


def is_private() -> bool:
    return bool(g.get("private"))


def _limiter() -> GuessLimiter:
    return current_app.extensions["dominocam.guesses"]


def _client() -> str:
    return request.remote_addr or "unknown"


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

    With `token` given (tests, `--reset-token`), that token replaces any other stored one.
    A new token ends every admin session.
    """
    with storage.transaction(conn):
        stored = storage.get_setting(conn, ADMIN_HASH_KEY)
        if stored is not None and (token is None or check_token_hash(token, stored)):
            return None
        plain = token or new_token()
        storage.set_setting(conn, ADMIN_HASH_KEY, hash_token(plain))
        conn.execute("DELETE FROM admin_sessions")
    _verified_cache.clear()
    return plain


def secret_key(conn: sqlite3.Connection) -> str:
    """The key that signs session cookies, made once per database (a forged cookie still
    needs a session id from `admin_sessions`)."""
    return storage.setting_or_create(conn, SECRET_KEY_KEY, lambda: secrets.token_hex(32))


# Verified tokens, by (stored hash, sha256 of the token): scrypt is deliberately slow.
_verified_cache: set[tuple[str, str]] = set()


def is_admin_token(conn: sqlite3.Connection, token: str) -> bool:
    stored = storage.get_setting(conn, ADMIN_HASH_KEY)
    if not stored or not token or len(token) > MAX_ADMIN_TOKEN:
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


def has_passphrase(conn: sqlite3.Connection) -> bool:
    return storage.get_setting(conn, PASSPHRASE_HASH_KEY) is not None


def is_passphrase(conn: sqlite3.Connection, text: str) -> bool:
    stored = storage.get_setting(conn, PASSPHRASE_HASH_KEY)
    if not stored or not text or len(text) > MAX_ADMIN_TOKEN:
        return False
    key = (stored, hashlib.sha256(text.encode()).hexdigest())
    if key in _verified_cache:
        return True
    if check_token_hash(text, stored):
        if len(_verified_cache) > 64:
            _verified_cache.clear()
        _verified_cache.add(key)
        return True
    return False


def request_is_local() -> bool:
    """True for a request from this computer that calls the dashboard by a loopback name
    (127.0.0.1, [::1], localhost): not a phone on the network, nor a page whose name was
    rebound to 127.0.0.1 (server.host_check), nor a reverse proxy's visitor (a proxy on this
    computer connects from 127.0.0.1 but passes the name its visitors used)."""
    return request.remote_addr in LOCAL_ADDRESSES and names_loopback(
        request.environ.get("HTTP_HOST")
    )


def first_run_open(conn: sqlite3.Connection) -> bool:
    """The first-run page answers only this computer (`request_is_local`), and only while
    no passphrase is set."""
    return request_is_local() and not has_passphrase(conn)


def set_passphrase(conn: sqlite3.Connection, passphrase: str, repeated: str) -> None:
    """Store the first passphrase (scrypt hash only).

    Raises:
        AuthError: 403 when the page is closed (not this computer, or already set).
        UserInputError: too short, too long, or the two entries differ.
    """
    if passphrase != repeated:
        raise Refused(
            _("the two passphrases differ: type the same one twice"), "passphrases_differ"
        )
    if len(passphrase) < MIN_PASSPHRASE:
        raise Refused(
            _("the passphrase needs at least {min_passphrase} characters").format(
                min_passphrase=MIN_PASSPHRASE
            ),
            "passphrase_too_short",
            minimum=MIN_PASSPHRASE,
        )
    if len(passphrase) > MAX_ADMIN_TOKEN:
        raise Refused(
            _("the passphrase may have at most {max_admin_token} characters").format(
                max_admin_token=MAX_ADMIN_TOKEN
            ),
            "passphrase_too_long",
            maximum=MAX_ADMIN_TOKEN,
        )
    with storage.transaction(conn):
        # Checked inside the write: two first-run forms sent at once set one passphrase.
        if not request_is_local() or has_passphrase(conn):
            raise AuthError(
                _("a passphrase is already set: log in with it at /login"),
                "passphrase_already_set",
                403,
            )
        storage.set_setting(conn, PASSPHRASE_HASH_KEY, hash_token(passphrase))


def clear_passphrase(conn: sqlite3.Connection) -> None:
    """Forget the passphrase and end every session (`dominocam serve --reset-passphrase`):
    the first-run page opens again on this computer."""
    with storage.transaction(conn):
        conn.execute("DELETE FROM settings WHERE key = ?", (PASSPHRASE_HASH_KEY,))
        conn.execute("DELETE FROM admin_sessions")
    _verified_cache.clear()


def check_login_secret(conn: sqlite3.Connection, secret: str) -> None:
    """Accept the admin token or the host's passphrase (the login form and `/api/login`),
    counting a wrong one against this client's guesses.

    Raises:
        AuthError: 403 for a wrong one, 429 past the guessing limit.
    """
    mark_private()
    _limiter().check(_client())
    if not (is_admin_token(conn, secret) or is_passphrase(conn, secret)):
        _limiter().failed(_client())
        raise AuthError(_("the passphrase or admin token is wrong"), "wrong_login", 403)


def check_admin_token(conn: sqlite3.Connection, token: str) -> None:
    """Accept the admin token, counting a wrong one against this client's guesses.

    Raises:
        AuthError: 403 for a wrong token, 429 past the guessing limit.
    """
    _limiter().check(_client())
    if not is_admin_token(conn, token):
        _limiter().failed(_client())
        raise AuthError(_("the admin token is wrong"), "wrong_admin_token", 403)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def start_session(conn: sqlite3.Connection) -> None:
    """Log this browser in: a new server-side session, its id in the signed cookie."""
    sid = secrets.token_urlsafe(32)
    hours = float(current_app.config["ADMIN_SESSION_HOURS"])
    created = time.time()
    with storage.transaction(conn):
        conn.execute("DELETE FROM admin_sessions WHERE expires_at < ?", (created,))
        conn.execute(
            "INSERT INTO admin_sessions (id_hash, created_at, expires_at) VALUES (?, ?, ?)",
            (_digest(sid), created, created + hours * 3600),
        )
    session.clear()
    session["sid"] = sid
    session.permanent = True


def end_session(conn: sqlite3.Connection) -> None:
    """Log out: the session row goes, so a copy of the cookie stops working too."""
    mark_private()
    sid = session.get("sid")
    if isinstance(sid, str):
        with storage.transaction(conn):
            conn.execute("DELETE FROM admin_sessions WHERE id_hash = ?", (_digest(sid),))
    session.clear()


def _session_is_live(conn: sqlite3.Connection) -> bool:
    sid = session.get("sid")
    if not isinstance(sid, str):
        return False
    row = conn.execute(
        "SELECT 1 FROM admin_sessions WHERE id_hash = ? AND expires_at > ?",
        (_digest(sid), time.time()),
    ).fetchone()
    return row is not None


def request_is_admin(conn: sqlite3.Connection) -> bool:
    """True when this request carries the admin token or a live admin session cookie.

    Raises:
        AuthError: a wrong token (403; 429 past the guessing limit), or a cookie-
            authenticated write without the anti-forgery header.
    """
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        mark_private()
        check_admin_token(conn, header[len("Bearer ") :].strip())
        return True
    if _session_is_live(conn):
        mark_private()
        if request.method not in ("GET", "HEAD", "OPTIONS") and not request.headers.get(
            CSRF_HEADER
        ):
            raise AuthError(
                _("cookie-authenticated writes need the header {csrf_header}: 1").format(
                    csrf_header=CSRF_HEADER
                ),
                "csrf_header_missing",
                403,
                header=CSRF_HEADER,
            )
        return True
    return False


def admin_required(view: F) -> F:
    """Decorator: 401 without credentials, 403 with wrong ones."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        mark_private()
        if not request_is_admin(get_db()):
            raise AuthError(
                _(
                    "this needs the table's admin token: send 'Authorization: Bearer TOKEN' or "
                    "log in at /login"
                ),
                "admin_required",
            )
        g.is_admin = True
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


# --- player links -----------------------------------------------------------------------------

# The link key: 32 random bytes, hex, in a file of its own (owner-only) beside the database.
LINK_KEY_BYTES = 32


def link_key_path(database: str) -> str | None:
    """The link key's file for a database: NAME-links.key beside NAME.sqlite3 (None for an
    in-memory database, whose key lives as long as the process)."""
    if database == ":memory:":
        return None
    path = Path(database)
    return str(path.with_name(f"{path.stem}-links.key"))


def link_key(path: str | None) -> bytes:
    """The server's link key, read from `path`, or made there (mode 0600) when it is not
    there yet. A file readable by others is made owner-only, as the database is.

    Raises:
        RuntimeError: the file is there but holds no key (say, truncated): it is left as
            it is, since a new key would revoke every player's link.
    """
    if path is None:
        return secrets.token_bytes(LINK_KEY_BYTES)
    target = Path(path)
    if not target.exists():
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Written whole under another name, then linked in place: a second server starting
        # at the same moment reads the first one's key instead of replacing it.
        temporary = target.with_name(f"{target.name}.{secrets.token_hex(4)}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "w") as out:
                out.write(secrets.token_hex(LINK_KEY_BYTES) + "\n")
                out.flush()
                os.fsync(out.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
    if target.stat().st_mode & 0o077:
        os.chmod(target, 0o600)
    text = target.read_text(encoding="ascii", errors="replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise RuntimeError(
            f"the player-link key {target} holds no key: restore it from a backup, or delete "
            "it to make a new one (every player's link then changes: show the new QR codes)"
        )
    return key


def _link_key() -> bytes:
    return current_app.extensions["dominocam.link_key"]


def player_link_code(key: bytes, player_id: int, secret: str, counter: int) -> str:
    """The part of a player's link after `PLAYERID.`: 24 url-safe characters (144 bits) of
    HMAC-SHA256(key, "PLAYERID.SECRET.COUNTER")."""
    digest = hmac.new(key, f"{player_id}.{secret}.{counter}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def _derived_link(player: sqlite3.Row) -> str | None:
    """The player's link token derived from the key, or None without a secret."""
    if player["link_secret"] is None:
        return None
    player_id = int(player["id"])
    code = player_link_code(
        _link_key(), player_id, player["link_secret"], int(player["link_counter"])
    )
    return f"{player_id}.{code}"


def issue_player_link(conn: sqlite3.Connection, player_id: int) -> str:
    """A new link token for a player ("New link"), revoking the previous one: the player's
    counter goes up by one (a player without a secret gets one; an old-style link's hash
    is dropped)."""
    with storage.transaction(conn):
        conn.execute(
            "UPDATE players SET link_secret = COALESCE(link_secret, ?), "
            "link_counter = CASE WHEN link_secret IS NULL THEN 0 ELSE link_counter + 1 END, "
            "link_hash = NULL WHERE id = ?",
            (secrets.token_urlsafe(24), player_id),
        )
        row = conn.execute("SELECT * FROM players WHERE id = ?", (player_id,)).fetchone()
    token = _derived_link(row)
    assert token is not None
    return token


def shown_player_link(conn: sqlite3.Connection, player: sqlite3.Row) -> str | None:
    """The player's link token, to show (made now for a player who has none yet). None for
    a link made before links were derived (schema 6): it still works, but only "New link"
    shows one."""
    token = _derived_link(player)
    if token is not None:
        return token
    if player["link_hash"] is None:
        return issue_player_link(conn, int(player["id"]))
    return None


def player_from_token(conn: sqlite3.Connection, token: str) -> sqlite3.Row:
    """The player row a link token belongs to.

    Raises:
        AuthError: 403 for a malformed, forged or revoked token (any text: Unicode digits,
            a megabyte of it), 429 past the guessing limit.
    """
    mark_private()
    _limiter().check(_client())
    row = None
    if PLAYER_TOKEN.fullmatch(token):
        row = conn.execute(
            "SELECT * FROM players WHERE id = ?", (int(token.partition(".")[0]),)
        ).fetchone()
    if row is None or not _link_matches(row, token):
        _limiter().failed(_client())
        raise AuthError(_("this player link is not valid"), "bad_player_link", 403)
    return row


def _link_matches(row: sqlite3.Row, token: str) -> bool:
    derived = _derived_link(row)
    if derived is not None:
        return hmac.compare_digest(derived, token)
    # A link made before schema 6: only its SHA-256 was kept.
    return hmac.compare_digest(_digest(token), row["link_hash"] or "")
