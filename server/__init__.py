"""The Flask dashboard: game setup, uploads, live camera, block checks, overlay, scoreboard.

`create_app(test_config=None)` builds the app. Configuration is layered: the defaults below,
then `config.py` in the instance folder, then `DOMINOCAM_*` environment variables (values
parsed as JSON where they can be, e.g. `DOMINOCAM_MAX_IMAGE_PIXELS=20000000`), then
`test_config`.

The instance folder holds what the dashboard keeps between starts: `config.py`, the SQLite
database (which also keeps the session key and the admin token's hash), the key player
links are derived from (`dominocam-links.key`, server.auth) and the uploaded photos. It is
the user's data folder (`instance_folder`), outside the code and its virtual environment, so
that reinstalling loses no game.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

import platformdirs
from flask import Flask, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from dominocam.errors import UserInputError
from dominocam.i18n import _
from dominocam.server import auth, retention, storage
from dominocam.server.db import close_db, get_db
from dominocam.server.events import Broker
from dominocam.server.host_check import allowed_names, host_allowed

# The variable that chooses the instance folder (`dominocam serve --instance DIR` too).
INSTANCE_ENV = "DOMINOCAM_INSTANCE"
# The files of the instance folder that earlier versions kept inside the code or its virtual
# environment (Flask's own instance folder), looked for to warn that they are not used.
INSTANCE_FILES = ("dominocam.sqlite3", "config.py")

DEFAULTS: dict[str, Any] = {
    # The instance folder (config.py, the database, photos): DOMINOCAM_INSTANCE or the test
    # dict (config.py cannot set it: it is read from there); default: the user's data folder,
    # e.g. ~/.local/share/dominocam. create_app sets it to the folder in use.
    "INSTANCE": None,
    # SQLite file (a path or sqlite:///PATH); default: INSTANCE/dominocam.sqlite3
    "DATABASE": None,
    # Where uploaded photos are kept (never under static/); default: INSTANCE/uploads for the
    # default database, else the folder NAME-uploads beside the database file NAME.
    "UPLOAD_FOLDER": None,
    # Photos of a game are deleted this many days after it finished (0: at once, None: never).
    "PHOTO_RETENTION_DAYS": 30,
    # Bytes of photos one game may keep, and one player's hand photos in it (None: no cap);
    # a photo past either is refused (507) and the tiles are entered by hand (photo_space).
    "PHOTO_BYTES_PER_GAME": 1024 * 1024 * 1024,
    "PHOTO_BYTES_PER_PLAYER": 100 * 1024 * 1024,
    # Largest request body (bytes) and largest decoded image (width*height pixels).
    "MAX_CONTENT_LENGTH": 20 * 1024 * 1024,
    "MAX_IMAGE_PIXELS": 50_000_000,
    # Largest image decoded at full size: a bigger JPEG is decoded at 1/2, 1/4 or 1/8 scale
    # (the reader works on far fewer pixels), a bigger PNG or WebP is refused (413).
    "MAX_DECODE_PIXELS": 16_000_000,
    # Photos decoded and read at once; more uploads wait their turn (memory stays bounded).
    "DECODES_AT_ONCE": 2,
    # How long an upload waits for its turn before a 503 "busy".
    "PHOTO_WAIT_S": 60.0,
    # The address phones open (player links, QR codes), e.g. "http://192.168.1.20:5000";
    # default: this machine's LAN address when the server listens beyond loopback.
    "PUBLIC_URL": None,
    # Where `dominocam serve` listens (set by it; the links use them).
    "LISTEN_HOST": None,
    "LISTEN_PORT": None,
    # The file of the key that player links are derived from (server.auth); default:
    # NAME-links.key beside the database NAME.sqlite3, made on first start, owner-only.
    "LINK_KEY_FILE": None,
    # The session-cookie key; default: made once and kept in the database.
    "SECRET_KEY": None,
    # A fixed admin token (tests, kiosks); default: generated on first start, printed once.
    "ADMIN_TOKEN": None,
    # Live camera: an index ("0"), a file or an RTSP/HTTP URL; None for none.
    "CAMERA": None,
    "CAMERA_INFER_INTERVAL_S": 1.0,
    # Create a demo game when the database has none (always on for `dominocam serve`).
    "DEMO": False,
    # Injected photo reader `(pixels, kind, set_max) -> scene dict`; None uses vision.
    "SCENE_PROVIDER": None,
    # SSE: heartbeat, database poll interval, and stream length before the browser reconnects.
    "SSE_HEARTBEAT_S": 15.0,
    "SSE_POLL_S": 2.0,
    "SSE_MAX_S": 300.0,
    # Event streams at once in all (503 past it) and from one client address (429 past it).
    # Each open stream holds one server thread (server.serving sizes the pool from these).
    "SSE_MAX_STREAMS": 1000,
    "SSE_MAX_PER_CLIENT": 8,
    # Live camera MJPEG viewers at once (503 past it); each holds a server thread too.
    "CAMERA_MAX_STREAMS": 8,
    # Server threads for everything but streams.
    "WORKER_THREADS": 16,
    # Connections one client address may hold at once (a browser opens about 6, plus one per
    # event stream; None: no bound; raise it behind a reverse proxy, whose connections all
    # come from one address), and seconds before a connection with no request is closed.
    "CONNECTIONS_PER_CLIENT": 32,
    "IDLE_TIMEOUT_S": 30,
    # An admin login lasts this long (a game night), unless logged out or the token changes.
    "ADMIN_SESSION_HOURS": 12.0,
    "PERMANENT_SESSION_LIFETIME": 12 * 3600,
    # Names (besides IP addresses, localhost, --host, the --public-url host and this
    # computer's name) that requests may call the dashboard by, e.g. a reverse proxy's
    # ["dominos.club.example"]; any other Host header is refused (DNS rebinding).
    "ALLOWED_HOSTS": [],
    # Wrong tokens (admin or player link) one address may try per window before 429.
    "GUESS_LIMIT": 20,
    "GUESS_WINDOW_S": 60.0,
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
}


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The dashboard application (see the module docstring for configuration)."""
    from dominocam.server.camera import start_camera

    explicit = (test_config or {}).get("INSTANCE") or os.environ.get(INSTANCE_ENV)
    instance = instance_folder(explicit)
    app = Flask(__name__, instance_path=str(instance), instance_relative_config=True)
    app.config.from_mapping(DEFAULTS)
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("DOMINOCAM")
    if test_config:
        app.config.from_mapping(test_config)
    # The folder in use, not DOMINOCAM_INSTANCE as from_prefixed_env parsed it (as JSON).
    app.config["INSTANCE"] = str(instance)
    if not explicit:
        app.extensions["dominocam.earlier_instance"] = earlier_instance(
            instance, Path(app.auto_find_instance_path())
        )

    database = app.config["DATABASE"] or str(instance / "dominocam.sqlite3")
    app.config["DATABASE"] = storage.database_path(str(database))
    app.config["UPLOAD_FOLDER"] = str(
        app.config["UPLOAD_FOLDER"] or uploads_beside(app.config["DATABASE"], instance)
    )
    if not app.config["LINK_KEY_FILE"] and app.config["DATABASE"] != ":memory:":
        app.config["LINK_KEY_FILE"] = auth.link_key_path(app.config["DATABASE"])
    app.extensions["dominocam.link_key"] = auth.link_key(app.config["LINK_KEY_FILE"])
    # OpenCV's own limit as a second fence behind the header check in server.uploads.
    os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(app.config["MAX_IMAGE_PIXELS"]))

    conn = storage.connect(app.config["DATABASE"])
    try:
        storage.migrate(conn)
        storage.restrict_to_owner(app.config["DATABASE"])
        _prune(app, conn)
        if not app.config["SECRET_KEY"]:
            app.config["SECRET_KEY"] = auth.secret_key(conn)
        new_token = auth.ensure_admin_token(conn, app.config["ADMIN_TOKEN"])
        if new_token and not app.config["ADMIN_TOKEN"]:
            app.extensions["dominocam.new_admin_token"] = new_token
            if not app.testing:
                _announce_token(new_token)
        if app.config["DEMO"]:
            from dominocam.server.demo import ensure_demo_game

            with app.app_context():
                ensure_demo_game(conn)
    finally:
        conn.close()

    app.extensions["dominocam.broker"] = Broker(
        app.config["DATABASE"],
        _public_state,
        poll_s=float(app.config["SSE_POLL_S"]),
        max_streams=int(app.config["SSE_MAX_STREAMS"]),
        max_per_client=int(app.config["SSE_MAX_PER_CLIENT"]),
    )
    app.extensions["dominocam.photo_slots"] = threading.BoundedSemaphore(
        int(app.config["DECODES_AT_ONCE"])
    )
    # Checking a game's photo space and storing a photo go together (server.photo_space).
    app.extensions["dominocam.photo_space"] = threading.Lock()
    app.extensions["dominocam.guesses"] = auth.GuessLimiter(
        int(app.config["GUESS_LIMIT"]), float(app.config["GUESS_WINDOW_S"])
    )
    app.extensions["dominocam.camera_viewers"] = threading.BoundedSemaphore(
        int(app.config["CAMERA_MAX_STREAMS"])
    )
    app.teardown_appcontext(close_db)

    from dominocam.server import api, dashboard, i18n, overlay

    # Ids in paths beyond SQLite's 64-bit integers match no route (404), instead of failing
    # in the database.
    app.url_map.converters["int"] = Int64Converter

    app.register_blueprint(api.bp)
    app.register_blueprint(dashboard.bp)
    app.register_blueprint(overlay.bp)
    i18n.init_app(app)
    _register_errors(app)
    _refuse_other_hosts(app)

    @app.after_request
    def _after(response: Any) -> Any:
        if request.method not in ("GET", "HEAD", "OPTIONS") and response.status_code < 400:
            app.extensions["dominocam.broker"].notify()
            if time.time() - app.extensions["dominocam.pruned_at"] > retention.PRUNE_EVERY_S:
                _prune(app, get_db())
        if auth.is_private():  # an admin's, a player's or a login's answer: kept nowhere
            response.headers["Cache-Control"] = "no-store"
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        _security_headers(response.headers, overlay=request.path == "/overlay")
        return response

    if app.config["CAMERA"] not in (None, ""):
        start_camera(app)
    return app


# Everything the pages load is their own (no inline script or style, nothing from outside).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "media-src 'self' blob: mediastream:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors {ancestors}"
)


def _security_headers(headers: Any, overlay: bool) -> None:
    """CSP and framing rules. Only the overlay may be framed, by anyone: it shows what the
    table shows and has no control to trick a click on (OBS's Browser Source opens it as a
    page of its own, which no framing rule affects; a streaming site's page may frame it).
    Everything else refuses every frame (clickjacking), in both header forms."""
    headers.setdefault(
        "Content-Security-Policy",
        CONTENT_SECURITY_POLICY.format(ancestors="*" if overlay else "'none'"),
    )
    if not overlay:
        headers.setdefault("X-Frame-Options", "DENY")


def instance_folder(explicit: str | os.PathLike[str] | None) -> Path:
    """The instance folder: `explicit` (INSTANCE, DOMINOCAM_INSTANCE, `--instance`) when
    given, else the user's data folder by the platform's conventions: $XDG_DATA_HOME/dominocam
    or ~/.local/share/dominocam on Linux, ~/Library/Application Support/dominocam on macOS,
    %LOCALAPPDATA%\\dominocam on Windows (no vendor folder: appauthor=False). An absolute path;
    created only when something is written there."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    return platformdirs.user_data_path("dominocam", appauthor=False)


def earlier_instance(in_use: Path, earlier: Path) -> Path | None:
    """`earlier` (Flask's instance folder beside the code, where versions before the user data
    folder kept their database: the checkout's instance/ or the virtual environment's
    var/server-instance) when it holds a database or config.py that `in_use` is not; None
    otherwise. It is reported, never moved: a dashboard of the earlier version may still be
    running on it (the port it holds is a common reason to start another one)."""
    if earlier.resolve() == in_use.resolve():
        return None
    return earlier if any((earlier / name).is_file() for name in INSTANCE_FILES) else None


def uploads_beside(database: str, instance: Path) -> Path:
    """The photo folder of a database: INSTANCE/uploads for the default one, else NAME-uploads
    beside the database file NAME.sqlite3, so that two databases never share `game-N`."""
    default = instance / "dominocam.sqlite3"
    if database == ":memory:" or Path(database).resolve() == default.resolve():
        return instance / "uploads"
    path = Path(database)
    return path.with_name(f"{path.stem}-uploads")


def _prune(app: Flask, conn: Any) -> None:
    """Apply the photo retention policy (server.retention)."""
    app.extensions["dominocam.pruned_at"] = time.time()
    retention.prune_photos(
        conn, app.config["UPLOAD_FOLDER"], app.config["PHOTO_RETENTION_DAYS"], time.time()
    )


def _refuse_other_hosts(app: Flask) -> None:
    """Every request must call the dashboard by a name it answers to (server.host_check:
    DNS rebinding). Registered after the language is chosen, so the 400 is in it."""
    names = allowed_names(
        app.config["LISTEN_HOST"], app.config["PUBLIC_URL"], app.config["ALLOWED_HOSTS"]
    )

    @app.before_request
    def _host() -> Any:
        host = request.environ.get("HTTP_HOST")
        if host_allowed(host, names):
            return None
        message = _(
            "this dashboard does not answer to the name {host}: open it by its address (as "
            "`dominocam serve` prints it) or by the name given with --public-url"
        ).format(host=repr(str(host)[:80]))
        return _error(message, 400, "unknown_host", {"host": str(host)[:80]})


def _public_state(conn: Any, game_id: int) -> dict[str, Any]:
    from dominocam.server import game

    return game.public_state(conn, game_id)


def _announce_token(token: str) -> None:
    bar = "=" * 64
    print(
        f"\n{bar}\n DominoCam admin token (shown once, stored hashed):\n\n    {token}\n\n"
        f" Log in at /login with it (scripts: Authorization: Bearer TOKEN), or choose a\n"
        f" passphrase at /first-run in a browser on this computer.\n"
        f" Lost it? Restart with `dominocam serve --reset-token`.\n"
        f"{bar}\n",
        file=sys.stderr,
        flush=True,
    )


class Int64Converter(IntegerConverter):
    """`<int:...>` limited to what SQLite (and PostgreSQL's bigint) stores: a larger number
    in a path matches no route, a 404 (tournament mode uses it too)."""

    def __init__(self, map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", 2**63 - 1)
        super().__init__(map, *args, **kwargs)


def _wants_json() -> bool:
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "application/json"


def _error(
    message: str, status: int, code: str | None = None, params: dict[str, Any] | None = None
) -> Any:
    """The error page, or for the API `{"error", "status", "code", "params"}`: the message
    in the request's language, and a refusal's stable code and parameters
    (`dominocam.errors.Refused`; `code` null, `params` {} for other errors)."""
    if _wants_json():
        body = {"error": message, "status": status, "code": code, "params": params or {}}
        return jsonify(body), status

    return render_template("error.html", message=message, status=status), status


def _register_errors(app: Flask) -> None:
    from dominocam.server.auth import AuthError
    from dominocam.server.engine import EngineUnavailable
    from dominocam.server.events import StreamRefused
    from dominocam.server.game import Conflict, NotFound
    from dominocam.server.serving import http_code
    from dominocam.server.uploads import UploadError

    @app.errorhandler(UserInputError)
    def _user_input(error: UserInputError) -> Any:
        status = 400
        if isinstance(error, NotFound):
            status = 404
        elif isinstance(error, Conflict):
            status = 409
        elif isinstance(error, UploadError):
            status = error.status
        return _error(
            str(error), status, getattr(error, "code", None), getattr(error, "params", None)
        )

    @app.errorhandler(StreamRefused)
    def _refused(error: StreamRefused) -> Any:
        return _error(str(error), error.status, error.code, error.params)

    @app.errorhandler(AuthError)
    def _auth(error: AuthError) -> Any:
        response = make_response(_error(str(error), error.status, error.code, error.params))
        if error.retry_after is not None:
            response.headers["Retry-After"] = str(error.retry_after)
        return response

    @app.errorhandler(EngineUnavailable)
    def _unavailable(error: EngineUnavailable) -> Any:
        return _error(str(error), 503, error.code, error.params)

    @app.errorhandler(OverflowError)
    def _overflow(_exception: OverflowError) -> Any:
        # A number in the query string past SQLite's 64-bit integers (`?since=1e30` digits).
        return _error(_("a number in the request is too large"), 400, "number_too_large")

    @app.errorhandler(sqlite3.OperationalError)
    def _database(error: sqlite3.OperationalError) -> Any:
        # Another program (a backup, a second dashboard) holds the database past the
        # connection's 30 s wait: the request may be sent again. Anything else is a bug.
        primary = getattr(error, "sqlite_errorcode", 0) & 0xFF  # SQLITE_BUSY_SNAPSHOT is BUSY
        if primary not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            raise error
        app.logger.warning("database busy: %s", error)
        return _error(
            _("the database is busy (another program holds it); try again in a moment"),
            503,
            "database_busy",
        )

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Any:
        status = error.code or 500
        megabytes = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        known: dict[int, tuple[str, str, dict[str, Any]]] = {
            413: (
                _("the upload is larger than {megabytes} MB; send a smaller photo").format(
                    megabytes=megabytes
                ),
                "too_large",
                {"megabytes": megabytes},
            ),
            404: (_("not found"), "not_found", {}),
            405: (
                _("{method} is not allowed here").format(method=request.method),
                "method_not_allowed",
                {"method": request.method},
            ),
        }
        message, code, params = known.get(
            status, (error.description or "error", http_code(status), {})
        )
        return _error(message, status, code, params)
