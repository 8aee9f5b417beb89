"""`dominocam serve`: the dashboard on http://127.0.0.1:5000 (cheap to import: Flask loads
inside the command)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the table dashboard (game setup, uploads, block check, overlay)",
        description=(
            "Run the table dashboard. On first start it prints the admin token once; the game "
            "state lives in SQLite (instance/dominocam.sqlite3 unless --db) and survives "
            "restarts. A demo game is created when the database has none."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument(
        "--camera", default=None, help="live camera: device index (0), video file or RTSP/HTTP URL"
    )
    parser.add_argument("--db", default=None, help="SQLite file or sqlite:///PATH URL")
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
        "--tournament",
        metavar="CONFIG",
        default=None,
        help="serve a tournament's event (YAML/TOML/JSON) from PostgreSQL and Redis instead of "
        "one table (docs/tournament.md)",
    )
    parser.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    if getattr(args, "tournament", None):
        from tournament.cli import serve_tournament

        return serve_tournament(args)
    from werkzeug.serving import make_server

    from dominocam.errors import UserInputError
    from server import create_app

    config: dict[str, object] = {"DEMO": bool(args.demo)}
    if args.db:
        config["DATABASE"] = args.db
    if args.camera is not None:
        config["CAMERA"] = args.camera
    if args.reset_token:
        _reset_token(args.db)
    try:
        app = create_app(config)
    except RuntimeError as error:
        raise UserInputError(str(error)) from error
    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as error:
        raise UserInputError(f"cannot listen on {args.host}:{args.port}: {error}") from error
    print(f"DominoCam dashboard on http://{args.host}:{args.port}/  (Ctrl+C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        camera = app.extensions.get("dominocam.camera")
        if camera is not None:
            camera.stop()
    print("stopped", file=sys.stderr)
    return 0


def _reset_token(db: str | None) -> None:
    from server import _announce_token, auth, create_app

    token = auth.new_token()
    create_app({"DATABASE": db, "ADMIN_TOKEN": token} if db else {"ADMIN_TOKEN": token})
    _announce_token(token)


def main(argv: list[str] | None = None) -> int:
    """`python -m server.cli [serve options]`: the same as `dominocam serve`."""
    parser = argparse.ArgumentParser(prog="python -m server.cli")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
