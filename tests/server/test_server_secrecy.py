"""Hand secrecy: no answer to a player's link or to nobody, nothing on the public table, the
overlay or the event stream, names a tile of another player's hand before the round ends.

`test_random_actions_never_show_another_hand` drives random hands (overlapping ones too, the
"tile held twice" case) and random player actions through every endpoint a player link or no
credential reaches, errors and the SSE stream included; `test_every_open_endpoint_is_probed`
keeps that list complete as endpoints are added.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_factories import ADMIN, ADMIN_TOKEN, fake_scene, jpeg_bytes

from dominocam.server import create_app

NAMES = ("Ana", "Ben", "Caro", "Dev")
# The stand-in table photo shows 0-3 and 3-5 (public); hands are dealt from the rest.
TABLE_TILES = {(0, 3), (3, 5)}
DEAL = [(a, b) for a in range(7) for b in range(a, 7) if (a, b) not in TABLE_TILES]
# Keys under which a Scene, a hand or an outcome holds tiles.
TILE_KEYS = {"hand", "tiles", "pips", "tile", "pending", "before", "after", "playable"}
TILE_TEXT = re.compile(r"(?<![\w.])(\d{1,2})\s*[-|]\s*(\d{1,2})(?![\w.])")


class HandReader:
    """A stand-in reader: table photos as `fake_scene`, hand photos show `next_hand`."""

    def __init__(self) -> None:
        self.next_hand: list[list[int]] = []

    def __call__(self, pixels: Any, kind: str, set_max: int) -> dict[str, Any]:
        scene = fake_scene(pixels, kind, set_max)
        if kind == "hand":
            scene["tiles"] = [
                {"id": i, "face": "up", "pips": list(t), "confidence": 0.9}
                for i, t in enumerate(self.next_hand)
            ]
        return scene


def _norm(a: int, b: int) -> tuple[int, int]:
    return (min(a, b), max(a, b))


def _tiles_in(
    value: Any, key: str | None = None, in_layout: bool = False
) -> Iterator[tuple[int, int]]:
    """Every tile a JSON answer shows: [a, b] under a tile key, and "a-b" in any text.

    A Scene's `layout` lists tile ids and open ends, never pips: only its text counts."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _tiles_in(v, k, in_layout or k == "layout")
    elif isinstance(value, list):
        pair = len(value) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        )
        if pair and key in TILE_KEYS and not in_layout:
            yield _norm(*value)
        else:
            for v in value:
                yield from _tiles_in(v, key, in_layout)
    elif isinstance(value, str) and key not in ("token", "url"):
        for a, b in TILE_TEXT.findall(value):
            yield _norm(int(a), int(b))


def _shown(response: Any, token: str | None) -> set[tuple[int, int]]:
    """The tiles an answer shows, whatever its kind (JSON, SSE, a page)."""
    kind = response.mimetype
    if not (kind.startswith("text/") or kind == "application/json"):
        return set()  # images: pixels, no text
    text = response.get_data(as_text=True)
    if token:
        text = text.replace(token, "")  # a link's own token is no tile
    if kind == "application/json":
        return set(_tiles_in(json.loads(text)))
    if kind == "text/event-stream":
        out: set[tuple[int, int]] = set()
        for line in text.splitlines():
            if line.startswith("data: "):
                out |= set(_tiles_in(json.loads(line[len("data: ") :])))
        return out
    return {_norm(int(a), int(b)) for a, b in TILE_TEXT.findall(text)}


# The sweep of every endpoint leaves out the requests that change the game (the random
# actions drive those); it keeps the ones that answer an error or change no hand.
DRIVEN = {
    "/api/hand/<token>/photo",
    "/api/hand/<token>/confirm",
    "/api/hand/<token>/pending",
    "/api/hand/<token>/declare",
    "/api/hand/<token>/block-check",
}

# A wrong admin token costs a deliberately slow scrypt check: probed once per game.
SLOW = {"/api/login", "/login"}


class Table:
    """A new game on a shared app, the hands the test gave each player, and what the open
    endpoints showed before any hand existed."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.reader: HandReader = app.config["SCENE_PROVIDER"]
        self.client = app.test_client()
        r = self.client.post(
            "/api/games", json={"variant": "block", "players": list(NAMES)}, headers=ADMIN
        )
        self.gid = r.json["game"]["id"]
        links = self.client.get(f"/api/games/{self.gid}/players", headers=ADMIN).json
        self.token = {p["name"]: p["token"] for p in links["players"]}
        self.pid = {p["name"]: p["id"] for p in links["players"]}
        base = f"/api/games/{self.gid}/rounds/current"
        self.client.post(
            f"{base}/table", data=jpeg_bytes(), content_type="image/jpeg", headers=ADMIN
        )
        # Everything a hand ever held (confirmed or read from a photo), per player.
        self.held: dict[str, set[tuple[int, int]]] = {name: set() for name in NAMES}
        # What each endpoint shows before any hand exists ("12-12 down to 0-0" in a variant's
        # description, the table's public tiles): no hand can be behind these.
        self.baseline = {
            route: _shown(call(), None)
            for route, call in _open_requests(self, NAMES[0]).items()
            if route[1] not in DRIVEN | SLOW
        }

    def ended(self) -> bool:
        return self.client.get(f"/api/games/{self.gid}/state").json["round"]["status"] != "open"

    def check(
        self, response: Any, observer: str | None, what: str, route: tuple[str, str] = ("", "")
    ) -> None:
        """`response` was given to `observer` (a player, or None: nobody logged in) by
        `route` (method, rule) when known."""
        if self.ended():
            return  # the round is over: every hand may be shown
        token = self.token[observer] if observer else None
        own = self.held[observer] if observer else set()
        secret = set().union(*(t for name, t in self.held.items() if name != observer)) - own
        leaked = (_shown(response, token) - self.baseline.get(route, set())) & secret
        assert not leaked, f"{what} showed {observer or 'nobody'} {sorted(leaked)} of another hand"


def _open_requests(t: Table, name: str) -> dict[tuple[str, str], Callable[[], Any]]:
    """Every endpoint a player link or no credential reaches: (method, rule) -> request."""
    c, gid, token = t.client, t.gid, t.token[name]
    hand = f"/api/hand/{token}"
    return {
        ("GET", "/api/health"): lambda: c.get("/api/health"),
        ("GET", "/api/variants"): lambda: c.get("/api/variants"),
        ("GET", "/api/games"): lambda: c.get("/api/games"),
        ("GET", "/api/state"): lambda: c.get(f"/api/state?game={gid}"),
        ("GET", "/api/games/<game_ref>/state"): lambda: c.get(f"/api/games/{gid}/state"),
        ("GET", "/api/games/<int:game_id>/scoreboard"): lambda: c.get(
            f"/api/games/{gid}/scoreboard"
        ),
        ("GET", "/api/events/poll"): lambda: c.get("/api/events/poll?since=0"),
        ("GET", "/api/events"): lambda: c.get(f"/api/events?game={gid}&max_s=0.01"),
        ("GET", "/api/games/<int:game_id>/rounds/current/table/events"): lambda: c.get(
            f"/api/games/{gid}/rounds/current/table/events"
        ),
        ("GET", "/api/games/<int:game_id>/rounds/<int:number>/table/events"): lambda: c.get(
            f"/api/games/{gid}/rounds/1/table/events"
        ),
        ("GET", "/api/games/<int:game_id>/rounds/<int:number>/table/image"): lambda: c.get(
            f"/api/games/{gid}/rounds/1/table/image"
        ),
        ("GET", "/api/camera"): lambda: c.get("/api/camera"),
        ("GET", "/api/camera/frame.jpg"): lambda: c.get("/api/camera/frame.jpg"),
        ("GET", "/api/camera/stream"): lambda: c.get("/api/camera/stream?max_s=0.01"),
        ("GET", "/api/whoami"): lambda: c.get("/api/whoami"),
        ("POST", "/api/login"): lambda: c.post("/api/login", json={"token": "wrong"}),
        ("POST", "/api/logout"): lambda: c.post("/api/logout"),
        ("GET", "/api/hand/<token>"): lambda: c.get(hand),
        ("GET", "/api/hand/<token>/image"): lambda: c.get(f"{hand}/image"),
        ("POST", "/api/hand/<token>/photo"): lambda: c.post(
            f"{hand}/photo", data={"photo": (io.BytesIO(jpeg_bytes()), "hand.jpg")}
        ),
        ("PUT", "/api/hand/<token>/tiles"): lambda: c.put(f"{hand}/tiles", json={"tiles": "x"}),
        ("POST", "/api/hand/<token>/confirm"): lambda: c.post(f"{hand}/confirm"),
        ("DELETE", "/api/hand/<token>/pending"): lambda: c.delete(f"{hand}/pending"),
        ("POST", "/api/hand/<token>/declare"): lambda: c.post(
            f"{hand}/declare", json={"cannot_play": False}
        ),
        ("POST", "/api/hand/<token>/block-check"): lambda: c.post(f"{hand}/block-check"),
        ("GET", "/"): lambda: c.get("/"),
        ("GET", "/games/<int:game_id>"): lambda: c.get(f"/games/{gid}"),
        ("GET", "/games/<int:game_id>/print"): lambda: c.get(f"/games/{gid}/print"),
        ("GET", "/hand/<token>"): lambda: c.get(f"/hand/{token}"),
        ("GET", "/overlay"): lambda: c.get(f"/overlay?game={gid}"),
        ("GET", "/login"): lambda: c.get("/login"),
        ("GET", "/first-run"): lambda: c.get("/first-run"),
        ("POST", "/first-run"): lambda: c.post("/first-run", data={"passphrase": "x"}),
        ("POST", "/login"): lambda: c.post("/login", data={"token": "wrong"}),
        ("POST", "/logout"): lambda: c.post("/logout"),
        # A client of its own: the cookie would turn the other pages Hungarian, whose
        # script catalogue quotes tiles ("12-12 … 0-0") as text, not as anybody's hand.
        ("POST", "/language"): lambda: t.app.test_client().post(
            "/language", data={"lang": "hu", "next": f"/games/{gid}"}
        ),
        ("GET", "/static/<path:filename>"): lambda: c.get("/static/table.js"),
    }


tiles_st = st.lists(st.sampled_from(DEAL), max_size=4, unique=True).map(
    lambda ts: [list(t) for t in ts]
)
action_st = st.tuples(
    st.sampled_from(
        [
            "save",
            "photo",
            "confirm",
            "discard",
            "declare",
            "propose",
            "host-fix",
            "host-rules",
            "host-unlock",
            "sweep",
        ]
    ),
    st.sampled_from(NAMES),
    tiles_st,
    st.booleans(),
)


def _act(t: Table, action: str, name: str, tiles: list[list[int]], flag: bool) -> Any:
    """One random step by player `name` (or the host); returns the answer the player got."""
    c, hand = t.client, f"/api/hand/{t.token[name]}"
    if action == "save":
        r = c.put(f"{hand}/tiles", json={"tiles": tiles})
        if r.status_code == 200:
            t.held[name] |= {_norm(*x) for x in tiles}
        return r
    if action == "photo":
        t.reader.next_hand = tiles
        r = c.post(f"{hand}/photo", data={"photo": (io.BytesIO(jpeg_bytes()), "h.jpg")})
        if r.status_code == 201:
            t.held[name] |= {_norm(*x) for x in tiles}
        return r
    if action == "confirm":
        return c.post(f"{hand}/confirm")
    if action == "discard":
        return c.delete(f"{hand}/pending")
    if action == "declare":
        return c.post(f"{hand}/declare", json={"cannot_play": flag})
    if action == "propose":
        return c.post(f"{hand}/block-check", json={"confirm": flag})
    if action == "host-fix":
        # The host enters (or, once locked, corrects) a hand: an admin answer, not checked.
        url = f"/api/games/{t.gid}/rounds/current/hands/{t.pid[name]}"
        r = c.put(url, json={"tiles": tiles, "reason": "the player asked"}, headers=ADMIN)
        if r.status_code == 200:
            t.held[name] |= {_norm(*x) for x in tiles}
        return None
    if action == "host-rules":
        # The host rules a held ruling on their word (or cancels it): admin answers.
        base = f"/api/games/{t.gid}/rounds/current"
        if flag:
            c.post(f"{base}/ledger/override", json={"reason": "toy photo"}, headers=ADMIN)
            c.post(f"{base}/score", headers=ADMIN)
        else:
            c.post(f"{base}/cancel", json={"reason": "again"}, headers=ADMIN)
        return None
    if action == "host-unlock":
        base = f"/api/games/{t.gid}/rounds/current"
        c.post(f"{base}/unlock", json={"reason": "play on"}, headers=ADMIN)
        return None
    return None


def _sweep(t: Table, observer: str, full: bool = False) -> None:
    """Every open endpoint once: a player's link answers `observer`, the rest anybody."""
    for (method, rule), call in _open_requests(t, observer).items():
        if rule in DRIVEN or (rule in SLOW and not full):
            continue
        who = observer if "<token>" in rule else None
        t.check(call(), who, f"{method} {rule}", (method, rule))


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> Callable[[], Table]:
    """A new game per call, all on one app (one database, one stand-in reader)."""
    folder = tmp_path_factory.mktemp("secrecy")
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(folder / "db.sqlite3"),
            "UPLOAD_FOLDER": str(folder / "uploads"),
            "ADMIN_TOKEN": ADMIN_TOKEN,
            "SECRET_KEY": "test-secret",
            "SCENE_PROVIDER": HandReader(),
            "SSE_POLL_S": 0.01,
            # The sweep sends wrong tokens on purpose, all from one address.
            "GUESS_LIMIT": 100_000,
        }
    )
    return lambda: Table(app)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(action_st, min_size=3, max_size=14))
def test_random_actions_never_show_another_hand(tables, actions) -> None:
    t = tables()
    for action, name, tiles, flag in actions:
        answer = _act(t, action, name, tiles, flag)
        if answer is not None:
            t.check(answer, name, f"{action} by {name}")
        if action == "sweep":
            _sweep(t, name)
        if t.ended():
            break
    _sweep(t, NAMES[0], full=True)


def test_a_tile_held_twice_is_named_to_the_host_only(tables) -> None:
    """The reported leak: 'tile 5-6 is held twice: in Ana's hand and in Caro's hand'."""
    t = tables()
    c = t.client
    for name, tiles in {"Ana": [[5, 6]], "Ben": [[1, 1]], "Caro": [[5, 6], [2, 2]]}.items():
        assert c.put(f"/api/hand/{t.token[name]}/tiles", json={"tiles": tiles}).status_code == 200
    c.put(f"/api/hand/{t.token['Dev']}/tiles", json={"tiles": [[4, 4]]})
    r = c.post(f"/api/hand/{t.token['Ben']}/block-check")
    assert r.status_code == 409
    message = r.json["error"]
    assert "tile needs checking" in message
    assert "5-6" not in message and "Ana" not in message and "Caro" not in message
    state = c.get(f"/api/games/{t.gid}/state").json
    assert state["round"]["review"]["host_checking"] and state["round"]["status"] == "open"
    assert "5-6" not in json.dumps(state) and "[5, 6]" not in json.dumps(state)
    # The host's correction screen says which tile and whose hands.
    review = c.get(f"/api/games/{t.gid}/rounds/current/review", headers=ADMIN).json
    assert review["hand_conflicts"] == [{"tile": [5, 6], "players": ["Ana", "Caro"]}]
    assert (
        "5-6 is in two places: in Ana's hand and in Caro's hand."
        in (review["ledger"]["problems_shown"])
    )
    assert c.get(f"/api/games/{t.gid}/rounds/current/review").status_code == 401
    # The host fixes Caro's hand (locked since Ben proposed: a reason is needed).
    url = f"/api/games/{t.gid}/rounds/current/hands/{t.pid['Caro']}"
    assert c.put(url, json={"tiles": [[2, 2]]}, headers=ADMIN).status_code == 400
    r = c.put(url, json={"tiles": [[2, 2]], "reason": "5-6 was Ana's"}, headers=ADMIN)
    assert r.status_code == 200
    state = c.get(f"/api/games/{t.gid}/state").json
    # Still the host's check until the host rules: the flag moves by the host's acts alone.
    assert state["round"]["review"]["host_checking"]
    assert "5-6" not in json.dumps(state)  # the host's reason waits for the round's end
    review = c.get(f"/api/games/{t.gid}/rounds/current/review", headers=ADMIN).json
    assert review["hand_conflicts"] == []
    # The stand-in table photo shows 2 tiles: the host scores on their word.
    _override_and_score(t)
    state = c.get(f"/api/games/{t.gid}/state").json
    assert not state["round"]["review"]["host_checking"]


def _override_and_score(t: Table) -> Any:
    """The host rules the round on their word (the stand-in table photo shows 2 tiles only:
    the round's ledger cannot add up) and scores the held ruling."""
    base = f"/api/games/{t.gid}/rounds/current"
    r = t.client.post(f"{base}/ledger/override", json={"reason": "toy photo"}, headers=ADMIN)
    assert r.status_code == 200, r.json
    return t.client.post(f"{base}/score", headers=ADMIN)


def test_a_stopped_check_tells_the_tile_to_its_player_only(tables) -> None:
    t = tables()
    c = t.client
    hands = {"Ana": [[1, 1]], "Ben": [[2, 2]], "Caro": [[5, 6]], "Dev": [[4, 4]]}
    for name, tiles in hands.items():
        c.put(f"/api/hand/{t.token[name]}/tiles", json={"tiles": tiles})
    r = c.post(
        f"/api/games/{t.gid}/rounds/current/block-check", json={"proposer": "Ana"}, headers=ADMIN
    )
    assert r.status_code == 409  # the toy table photo does not add up: held for the host
    r = _override_and_score(t)
    # Even the host's answer shows on the table screen: no tile there either.
    assert r.json["outcome"]["stopped"] == {"player": "Caro", "foul": False, "foul_by": None}
    events = c.get("/api/events/poll?since=0").get_data(as_text=True)
    assert "[5,6]" not in events.replace(" ", "") and "5-6" not in events
    assert c.get(f"/api/hand/{t.token['Caro']}").json["me"]["can_play"]["tile"] in ([5, 6], [6, 5])
    assert c.get(f"/api/hand/{t.token['Ben']}").json["me"]["can_play"] is None


def test_every_open_endpoint_is_probed(tables) -> None:
    """Every route answers 401 (or sends to the login page) without credentials, or is in
    the list the random test probes: a new open endpoint must join that list."""
    t = tables()
    probed = set(_open_requests(t, "Ana"))
    values = {
        "game_id": t.gid,
        "game_ref": t.gid,
        "number": 1,
        "player_id": t.pid["Ana"],
        "tile_id": 0,
        "index": 0,
        "token": t.token["Ana"],
        "filename": "app.css",
    }
    missing = []
    for rule in t.app.url_map.iter_rules():
        url = rule.rule
        for arg in rule.arguments:
            url = re.sub(rf"<(?:\w+:)?{arg}>", str(values[arg]), url)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            if (method, rule.rule) in probed:
                continue
            r = t.client.open(url, method=method, json={})
            closed = r.status_code == 401 or (
                r.status_code == 302 and "/login" in r.headers.get("Location", "")
            )
            if not closed:
                missing.append(f"{method} {rule.rule} -> {r.status_code}")
    assert not missing, missing


def test_a_rules_engine_refusal_is_told_to_the_host_only(tables, monkeypatch) -> None:
    """Any refusal of the rules engine may name a hand's tile: the caller hears only that a
    tile needs checking, the ruling is held for the host (the hands lock), and the host's
    screen gets the engine's words."""
    from dominocam.errors import UserInputError
    from dominocam.rounds import operations

    t = tables()
    c = t.client
    for name, tiles in {
        "Ana": [[1, 1]],
        "Ben": [[2, 2]],
        "Caro": [[3, 3]],
        "Dev": [[4, 4]],
    }.items():
        assert c.put(f"/api/hand/{t.token[name]}/tiles", json={"tiles": tiles}).status_code == 200
    base = f"/api/games/{t.gid}/rounds/current"
    # The toy table photo does not add up: the host rules on their word.
    r = c.post(f"{base}/ledger/override", json={"reason": "toy photo"}, headers=ADMIN)
    assert r.status_code == 200, r.json
    words = "tile 5-6 is held twice: in Ana's hand and in Caro's hand"

    def refuse(state: object) -> None:
        raise UserInputError(words)

    monkeypatch.setattr(operations, "parse_state", refuse)
    r = c.post(f"{base}/block-check", json={"proposer": "Ana"}, headers=ADMIN)
    assert r.status_code == 409
    assert "tile needs checking" in r.json["error"] and "5-6" not in r.json["error"]
    review = c.get(f"{base}/review", headers=ADMIN).json
    assert words in review["rules_refusal"]
    state = c.get(f"/api/games/{t.gid}/state").json
    assert state["round"]["review"]["host_checking"] and state["round"]["locked"]
    assert "5-6" not in json.dumps(state)
