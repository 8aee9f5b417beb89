"""The pages: table view, setup, correction screen, player links, phone hand page, login.

Pages are plain HTML rendered by Jinja with small scripts under static/ that talk to the JSON
API; no build step and nothing fetched from the internet.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for

from dominocam.errors import UserInputError
from dominocam.i18n import _
from dominocam.server import auth, engine, game, setup_words
from dominocam.server.db import get_db
from dominocam.server.redirects import same_site_path
from dominocam.server.serving import is_loopback, phone_base_url, phones_can_reach

bp = Blueprint("dashboard", __name__)


def _is_admin() -> bool:
    try:
        return auth.request_is_admin(get_db())
    except auth.AuthError:
        return False


@bp.get("/")
def index() -> Any:
    gid = game.current_game_id(get_db())
    if gid is None:
        return redirect(url_for("dashboard.setup"))
    return redirect(url_for("dashboard.table", game_id=gid))


@bp.get("/games/<int:game_id>")
def table(game_id: int) -> Any:
    game.get_game(get_db(), game_id)
    camera = current_app.extensions.get("dominocam.camera")
    phones = phone_base_url(current_app.config, request.host_url)
    return render_template(
        "table.html",
        game_id=game_id,
        admin=_is_admin(),
        phone_url=f"{phones}/",
        phones_can_reach=phones_can_reach(phones),
        models=engine.models_status(),
        camera=camera.status() if camera else None,
    )


@bp.get("/games/<int:game_id>/print")
def print_view(game_id: int) -> Any:
    """The scoreboard and the ended rounds' hands on a page made for paper (public, like the
    table page: it shows only ended rounds)."""
    conn = get_db()
    return render_template(
        "print.html",
        game_id=game_id,
        admin=_is_admin(),
        game=game.get_game(conn, game_id),
        board=game.scoreboard(conn, game_id),
        history=game.round_history(conn, game_id),
    )


@bp.get("/games/<int:game_id>/correct")
def correct(game_id: int) -> Any:
    game.get_game(get_db(), game_id)
    if not _is_admin():
        return redirect(url_for("dashboard.login", next=request.path))
    return render_template("correct.html", game_id=game_id, admin=True)


@bp.get("/games/<int:game_id>/players")
def player_links(game_id: int) -> Any:
    game.get_game(get_db(), game_id)
    if not _is_admin():
        return redirect(url_for("dashboard.login", next=request.path))
    phones = phone_base_url(current_app.config, request.host_url)
    listen = current_app.config.get("LISTEN_HOST")
    return render_template(
        "players.html",
        game_id=game_id,
        admin=True,
        phone_url=f"{phones}/",
        phones_can_reach=phones_can_reach(phones),
        serves_this_computer_only=bool(listen) and is_loopback(str(listen)),
    )


@bp.get("/setup")
def setup() -> Any:
    if not _is_admin():
        return redirect(url_for("dashboard.login", next=request.path))
    return render_template(
        "setup.html",
        admin=True,
        games=game.list_games(get_db()),
        variants=setup_words.setup_variants(),
    )


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    auth.mark_private()
    error = None
    target = same_site_path(request.values.get("next"))
    if request.method == "POST":
        try:
            auth.check_login_secret(get_db(), request.form.get("token", "").strip())
        except auth.AuthError as refused:
            if refused.status == 429:
                raise
            error = _(
                "That passphrase or token is wrong. The token was printed once in the terminal "
                "on first start."
            )
        else:
            auth.start_session(get_db())
            return redirect(target)
    page = render_template(
        "login.html", error=error, next=target, first_run=auth.first_run_open(get_db())
    )
    return page, 403 if error else 200


@bp.route("/first-run", methods=["GET", "POST"])
def first_run() -> Any:
    """The host sets a passphrase, on this computer only, while none is set (auth module)."""
    auth.mark_private()
    conn = get_db()
    if not auth.first_run_open(conn):
        why = (
            _("A passphrase is already set: log in with it.")
            if auth.has_passphrase(conn)
            else _(
                "The first-run page opens only on the computer that runs DominoCam "
                "(http://127.0.0.1 there). Log in with the admin token instead."
            )
        )
        return render_template("first_run.html", closed=why), 403
    error = None
    if request.method == "POST":
        # A form from another site cannot know this session's nonce (cross-site forgery).
        nonce = session.get("first_run_nonce")
        sent = request.form.get("nonce", "")
        if not isinstance(nonce, str) or not hmac.compare_digest(nonce, sent):
            error = _("This form has expired: it was sent again below, please retry.")
        else:
            try:
                auth.set_passphrase(
                    conn,
                    request.form.get("passphrase", "").strip(),
                    request.form.get("repeat", "").strip(),
                )
            except UserInputError as refused:
                error = f"{str(refused)[0].upper()}{str(refused)[1:]}."
            else:
                session.pop("first_run_nonce", None)
                auth.start_session(conn)
                return redirect(same_site_path(request.form.get("next")))
    session["first_run_nonce"] = secrets.token_urlsafe(24)
    page = render_template(
        "first_run.html",
        closed=None,
        error=error,
        nonce=session["first_run_nonce"],
        minimum=auth.MIN_PASSPHRASE,
        next=same_site_path(request.values.get("next")),
    )
    return page, 400 if error else 200


@bp.post("/logout")
def logout() -> Any:
    auth.end_session(get_db())
    return redirect(url_for("dashboard.index"))


@bp.get("/hand/<token>")
def hand(token: str) -> Any:
    player = auth.player_from_token(get_db(), token)
    return render_template("hand.html", token=token, player_name=player["name"])
