"""`dominocam serve`: the dashboard, served by waitress on port 5000, to phones on the local
network when this computer is on a private one (`--host auto`), else to this computer only
(cheap to import: Flask and waitress load inside the command)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from dominocam.arguments import number_type
from dominocam.errors import UserInputError
from dominocam.server import _announce_token, auth, create_app, serving, storage

# A port a server can listen on; 0 (any free port) is refused too: the address printed and
# given to phones must be the one asked for.
port_number = number_type(int, lambda value: 1 <= value <= 65535, "must be from 1 to 65535")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the table dashboard (game setup, uploads, block check, overlay)",
        description=(
            "Run the table dashboard. On first start it prints the admin token once; the game "
            "state lives in SQLite in the user's data folder (e.g. "
            "~/.local/share/dominocam/dominocam.sqlite3; --instance or --db choose another) "
            "and survives restarts and reinstalls. A demo game is created when the database "
            "has none."
        ),
    )
    parser.add_argument(
        "--host",
        default="auto",
        help=(
            "address to listen on: auto (the default) serves the local network (0.0.0.0) when "
            "this computer's address is a private one (home, club), else this computer only; "
            "127.0.0.1: this computer only (a shared or untrusted network); 0.0.0.0: every "
            "network this computer is on"
        ),
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=5000,
        help="port, 1 to 65535 (default 5000); a taken one stops with a message",
    )
    parser.add_argument(
        "--public-url",
        default=None,
        help=(
            "the address phones open, for player links and QR codes (e.g. "
            "http://192.168.1.20:5000); default: this machine's LAN address"
        ),
    )
    parser.add_argument(
        "--camera", default=None, help="live camera: device index (0), video file or RTSP/HTTP URL"
    )
    parser.add_argument(
        "--instance",
        metavar="DIR",
        default=None,
        help=(
            "the folder of config.py, the database and the photos (default: "
            "$DOMINOCAM_INSTANCE, else the user's data folder, e.g. ~/.local/share/dominocam)"
        ),
    )
    parser.add_argument(
        "--db", default=None, help="SQLite file or sqlite:///PATH URL (default: in --instance)"
    )
    parser.add_argument(
        "--demo",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="create a demo game when the database has none (default on)",
    )
    parser.add_argument(
        "--reset-token",
        action="store_true",
        help="make a new admin token (printed once); old tokens and sessions stop working",
    )
    parser.add_argument(
        "--reset-passphrase",
        action="store_true",
        help="forget the host's passphrase and end every session; /first-run opens again on "
        "this computer",
    )
    parser.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    # Tournament mode, the layer above, adds `--tournament CONFIG` to this command and sets
    # `serve_tournament` (tournament.cli.register): the server never imports it.
    if getattr(args, "tournament", None):
        return int(args.serve_tournament(args))

    # Everything the server writes (database, WAL, photos, the link key) is for its owner.
    os.umask(0o077)
    host = serving.choose_host(args.host)
    config: dict[str, object] = {
        "DEMO": bool(args.demo),
        "LISTEN_HOST": host,
        "LISTEN_PORT": args.port,
    }
    if args.public_url:
        config["PUBLIC_URL"] = serving.check_public_url(args.public_url)
    # Before anything is written or started: a taken port is the usual failed start.
    serving.check_address_free(host, args.port)
    storage = _storage_config(args)
    config.update(storage)
    if args.reset_token:
        _reset_token(storage)
    if getattr(args, "reset_passphrase", False):
        _reset_passphrase(storage)
    try:
        app = create_app(config)
    except RuntimeError as error:
        raise UserInputError(str(error)) from error
    try:
        server = serving.create_server(app, host, args.port)
        app.config["LISTEN_PORT"] = server.effective_port
        print(_listening_message(app, host, server.effective_port, args.host), flush=True)
        if not serving.is_loopback(host):
            print(
                f"WARNING: listening beyond this computer ({host}): anyone on this network "
                "can open the table page and the overlay; the admin pages need the passphrase "
                "or the admin token, and a hand its player's link. On a shared network (a "
                "cafe, a hotel, an office) start with --host 127.0.0.1 instead "
                "(docs/server.md, Serving phones on the local network).",
                file=sys.stderr,
                flush=True,
            )
        earlier = app.extensions.get("dominocam.earlier_instance")
        if earlier is not None:
            warning = _earlier_instance_warning(earlier, app.config["INSTANCE"])
            print(warning, file=sys.stderr, flush=True)
        try:
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            serving.stop_server(server)
    finally:
        camera = app.extensions.get("dominocam.camera")
        if camera is not None:
            camera.stop()
    print("stopped", file=sys.stderr)
    return 0


def _storage_config(args: argparse.Namespace) -> dict[str, object]:
    """The settings of `--instance` and `--db` that were given (the others stay layered)."""
    given = {"INSTANCE": getattr(args, "instance", None), "DATABASE": args.db}
    return {key: value for key, value in given.items() if value}


def _listening_message(app: Any, host: str, port: int, asked: str | None = None) -> str:
    """What `serve` prints on start: where the dashboard is, where phones open it, and where
    the games are kept. `asked` is the `--host` given (`auto` chose `host`)."""
    shown = f"[{host}]" if ":" in host else host
    local = "127.0.0.1" if host in ("0.0.0.0", "::") else shown
    lines = [f"DominoCam dashboard on http://{local}:{port}/  (Ctrl+C stops)"]
    phones = serving.phone_base_url(app.config, f"http://{local}:{port}/")
    if serving.phones_can_reach(phones):
        lines.append(f"Phones on this network open {phones}/ (player links and QR codes use it)")
    elif serving.is_loopback(host) and asked == serving.AUTO_HOST:
        lines.append(
            "Only this computer can open it: it is on no private network (no network, or a "
            "public address). For phones, join the table's network (a home or club Wi-Fi, a "
            "phone's hotspot) and start again, or start with --host 0.0.0.0 on a network you "
            "trust; player links stay the same"
        )
    elif serving.is_loopback(host):
        lines.append(
            "Only this computer can open it: for phones, restart with --host 0.0.0.0 "
            "(and --public-url if they reach this machine by another address); player links "
            "stay the same"
        )
    else:
        lines.append("No LAN address found: give the one phones use with --public-url")
    lines.append(_storage_message(app.config))
    return "\n".join(lines)


def _storage_message(config: Any) -> str:
    """Where the games and photos are kept, as full paths (what to back up, or to find)."""
    database = str(config["DATABASE"])
    if database != ":memory:":
        database = os.path.abspath(database)
    photos = os.path.abspath(str(config["UPLOAD_FOLDER"]))
    return f"Games are kept in the database {database} (photos in {photos})"


def _earlier_instance_warning(earlier: Any, in_use: str) -> str:
    """The warning for a database (or config.py) an earlier version kept beside the code."""
    return (
        f"WARNING: an earlier version kept its games and settings in {earlier}; this start "
        f"uses {in_use} instead. To go on with them, stop this dashboard and move the files "
        f"of {earlier} into {in_use}, or start with --instance {earlier} "
        f"(DOMINOCAM_INSTANCE={earlier} make run)."
    )


def _reset_token(storage: dict[str, object]) -> None:
    token = auth.new_token()
    create_app({**storage, "ADMIN_TOKEN": token})
    _announce_token(token)


def _reset_passphrase(storage_config: dict[str, object]) -> None:
    app = create_app(storage_config)
    conn = storage.connect(app.config["DATABASE"])
    try:
        auth.clear_passphrase(conn)
    finally:
        conn.close()
    print(
        "dominocam: the passphrase is forgotten; set a new one at /first-run on this computer",
        file=sys.stderr,
    )
