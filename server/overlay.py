"""The OBS overlay: a transparent 1920x1080 page, laid out by its query string.

`/overlay?show=ends,scores,tiles&corner=br&game=ID`: `show` picks the panels (ends: the
layout's open ends; tiles: each player's tile count; scores: pip totals after the round and
the scoreboard, final scores once the game is over; events: the live camera's latest change),
`corner` places them (tl, tr, bl, br). Updates come by SSE, with polling of
`/api/state?since=` as the fallback.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

bp = Blueprint("overlay", __name__)

PANELS = ("ends", "tiles", "scores", "events")
CORNERS = ("tl", "tr", "bl", "br")


@bp.get("/overlay")
def overlay() -> Any:
    show = [p for p in request.args.get("show", "ends,tiles,scores").split(",") if p in PANELS]
    corner = request.args.get("corner", "br")
    if corner not in CORNERS:
        corner = "br"
    game_id = request.args.get("game", type=int)
    return render_template(
        "overlay.html", show=show or list(PANELS), corner=corner, game_id=game_id
    )
