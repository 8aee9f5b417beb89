"""Sessions and secrets: hashed player links, server-side sessions that logout and a new
token revoke, malformed tokens, guessing limits and the security headers."""

from __future__ import annotations

import http.client
from pathlib import Path

import pytest
from server_factories import ADMIN, ADMIN_TOKEN, ThreadedServer, jpeg_bytes

from dominocam.server import auth, cli, storage


def _database_bytes(app) -> bytes:
    path = Path(app.config["DATABASE"])
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


def test_the_database_cannot_recreate_a_player_link(app, game, links) -> None:
    stored = _database_bytes(app)
    key = Path(app.config["LINK_KEY_FILE"]).read_text()
    conn = storage.connect(app.config["DATABASE"])
    try:
        for name, token in links.items():
            assert token.encode() not in stored, name
            player_id, code = token.split(".")
            assert code.encode() not in stored and code not in key
            row = conn.execute("SELECT * FROM players WHERE name = ?", (name,)).fetchone()
            # What the database holds makes the link only with the key file's key.
            guessed = auth.player_link_code(
                b"\0" * 32, int(player_id), row["link_secret"], row["link_counter"]
            )
            assert guessed != code and row["link_hash"] is None
            real = auth.player_link_code(
                bytes.fromhex(key), int(player_id), row["link_secret"], row["link_counter"]
            )
            assert real == code
    finally:
        conn.close()


def test_after_a_restart_the_same_links_show_and_work(make_app, game, links) -> None:
    restarted = make_app().test_client()
    gid = game["game"]["id"]
    players = restarted.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    assert {p["name"]: p["token"] for p in players} == links
    ana = next(p for p in players if p["name"] == "Ana")
    r = restarted.get(f"/api/games/{gid}/players/{ana['id']}/qr.svg", headers=ADMIN)
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    assert restarted.get(f"/api/hand/{links['Ana']}").status_code == 200
    r = restarted.post(f"/api/games/{gid}/players/{ana['id']}/rotate-link", headers=ADMIN)
    new = {p["name"]: p["token"] for p in r.json["players"]}
    assert new["Ana"] != links["Ana"] and new["Ben"] == links["Ben"]
    assert restarted.get(f"/api/hand/{links['Ana']}").status_code == 403
    assert restarted.get(f"/api/hand/{new['Ana']}").status_code == 200
    assert restarted.get(f"/api/hand/{links['Ben']}").status_code == 200


def _copy_cookie(source, target) -> None:
    cookie = source.get_cookie("session")
    assert cookie is not None
    target.set_cookie("session", cookie.value)


def test_logout_ends_a_copied_session(app) -> None:
    browser, thief = app.test_client(), app.test_client()
    assert browser.post("/api/login", json={"token": ADMIN_TOKEN}).status_code == 200
    _copy_cookie(browser, thief)
    assert thief.get("/api/whoami").json == {"admin": True}
    assert browser.post("/api/logout").status_code == 200
    assert thief.get("/api/whoami").json == {"admin": False}
    r = thief.post("/api/games", json={"players": ["A", "B"]}, headers={"X-DominoCam": "1"})
    assert r.status_code == 401


def test_the_login_page_logout_ends_the_session_too(app) -> None:
    browser, thief = app.test_client(), app.test_client()
    assert browser.post("/login", data={"token": ADMIN_TOKEN}).status_code == 302
    _copy_cookie(browser, thief)
    assert thief.get("/setup").status_code == 200
    browser.post("/logout")
    assert thief.get("/setup").status_code == 302  # back to the login page


def test_reset_token_ends_every_session(app, capsys) -> None:
    browser = app.test_client()
    browser.post("/api/login", json={"token": ADMIN_TOKEN})
    assert browser.get("/api/whoami").json == {"admin": True}
    cli._reset_token({"DATABASE": app.config["DATABASE"]})
    assert "admin token" in capsys.readouterr().err
    assert browser.get("/api/whoami").json == {"admin": False}
    # The old token is refused too.
    assert browser.get("/api/games/1/players", headers=ADMIN).status_code == 403


def test_restarting_with_the_same_token_keeps_sessions(app, make_app) -> None:
    browser = app.test_client()
    browser.post("/api/login", json={"token": ADMIN_TOKEN})
    restarted = make_app().test_client()
    _copy_cookie(browser, restarted)
    assert restarted.get("/api/whoami").json == {"admin": True}


def test_a_cookie_forged_with_the_signing_key_is_refused(app) -> None:
    signer = app.session_interface.get_signing_serializer(app)
    conn = storage.connect(app.config["DATABASE"])
    stored = storage.get_setting(conn, auth.ADMIN_HASH_KEY) or ""
    conn.close()
    client = app.test_client()
    # What the file gave a forger before: the key and the hash the old cookie value came from.
    for forged in ({"sid": "made-up"}, {"admin": auth._digest(stored)[:16]}):
        client.set_cookie("session", signer.dumps(forged))
        assert client.get("/api/whoami").json == {"admin": False}, forged


def test_a_session_expires(make_app) -> None:
    client = make_app(ADMIN_SESSION_HOURS=-1).test_client()
    assert client.post("/api/login", json={"token": ADMIN_TOKEN}).status_code == 200
    assert client.get("/api/whoami").json == {"admin": False}


MALFORMED = [
    "١٢٣.abcdefghijklmnopqrstuvwx",  # Arabic-Indic digits
    "²." + "a" * 24,  # a digit to isdigit(), not to int()
    "1." + "é" * 24,  # non-ASCII secret
    "9" * 40 + "." + "a" * 24,  # an id past SQLite's integers
    "1." + "a" * 100_000,  # huge
    "1.aaaaaaaaaaaaaaaaaaaaaaaa\x00",
    "..",
    "-1.aaaaaaaaaaaaaaaaaaaaaaaa",
]


@pytest.mark.parametrize("token", MALFORMED)
def test_every_malformed_token_gets_a_4xx(make_app, game, token) -> None:
    client = make_app().test_client()
    for method, path in [
        ("get", "/api/hand/{t}"),
        ("put", "/api/hand/{t}/tiles"),
        ("post", "/api/hand/{t}/photo"),
        ("post", "/api/hand/{t}/block-check"),
        ("get", "/api/hand/{t}/image"),
        ("get", "/hand/{t}"),
    ]:
        r = getattr(client, method)(path.format(t=token), json={"tiles": []})
        assert 400 <= r.status_code < 500, (method, path, r.status_code)


def test_a_huge_token_over_a_real_connection_gets_a_4xx(make_app) -> None:
    server = ThreadedServer(make_app())
    try:
        for token in ("1." + "a" * 100_000, "%D9%A1%D9%A2.aaaaaaaaaaaaaaaaaaaaaaaa"):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request("GET", f"/api/hand/{token}")
            status = conn.getresponse().status
            conn.close()
            assert 400 <= status < 500, status
    finally:
        server.close()


def test_link_guessing_gets_429_past_the_limit(make_app, game, links) -> None:
    client = make_app(GUESS_LIMIT=5).test_client()
    guesser = {"REMOTE_ADDR": "10.0.0.66"}
    for i in range(5):
        r = client.get(f"/api/hand/1.guess{i:019d}", environ_base=guesser)
        assert r.status_code == 403
    r = client.get("/api/hand/1.guess9999999999999999999", environ_base=guesser)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert "too many wrong tokens" in r.json["error"]
    # Past the limit even a right link from that address waits; other devices do not.
    assert client.get(f"/api/hand/{links['Ana']}", environ_base=guesser).status_code == 429
    ok = client.get(f"/api/hand/{links['Ana']}", environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert ok.status_code == 200


@pytest.mark.parametrize("where", ["api-login", "login-page", "bearer"])
def test_admin_token_guessing_gets_429_past_the_limit(make_app, where) -> None:
    client = make_app(GUESS_LIMIT=3).test_client()

    def attempt(token: str):
        if where == "api-login":
            return client.post("/api/login", json={"token": token})
        if where == "login-page":
            return client.post("/login", data={"token": token})
        return client.get("/api/games/1/players", headers={"Authorization": f"Bearer {token}"})

    assert [attempt(f"wrong-{i}").status_code for i in range(3)] == [403, 403, 403]
    assert attempt("wrong-again").status_code == 429
    assert attempt(ADMIN_TOKEN).status_code == 429


def test_pages_refuse_frames_and_the_overlay_allows_them(client, game) -> None:
    for path in (f"/games/{game['game']['id']}", "/login", "/api/state"):
        r = client.get(path)
        csp = r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, path
        assert r.headers["X-Frame-Options"] == "DENY", path
    r = client.get("/overlay?show=ends")
    assert r.status_code == 200
    assert "frame-ancestors *" in r.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in r.headers


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/games/99999999999999999999/scoreboard", 404),
        ("/games/99999999999999999999", 404),
        # docs/server.md: a number past SQLite's integers is a 404 in a path ...
        ("/api/games/99999999999999999999/state", 404),
        ("/api/games/9223372036854775808/state", 404),
        ("/api/games/1/rounds/99999999999999999999/table/image", 404),
        ("/api/games/1/players/99999999999999999999/qr.svg", 404),
        # ... and a 400 in a query string.
        ("/api/state?game=99999999999999999999", 400),
        ("/api/events?game=99999999999999999999", 400),
        ("/api/events/poll?since=99999999999999999999", 400),
        ("/api/events/poll?game=99999999999999999999", 400),
        ("/api/state?since=99999999999999999999", 400),
        ("/api/state?since=9223372036854775808", 400),
        ("/api/state?since=-9223372036854775809", 400),
        ("/api/games/1/rounds/current/table/events?limit=99999999999999999999", 400),
    ],
)
def test_numbers_past_sqlite_integers_are_a_4xx(client, game, path, status) -> None:
    r = client.get(path, headers=ADMIN)
    assert r.status_code == status, r.get_data()[:200]
    if path.startswith("/api/"):
        assert r.is_json and r.json["status"] == status


def test_a_since_that_is_no_number_is_a_400_and_a_good_one_works(client, game) -> None:
    assert client.get("/api/state?since=abc").status_code == 400
    version = client.get("/api/state").json["version"]
    assert client.get(f"/api/state?since={version}").json == {"changed": False, "version": version}


def test_the_guessing_limit_ends_with_its_window(monkeypatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(auth.time, "monotonic", lambda: clock[0])
    limiter = auth.GuessLimiter(limit=2, window_s=60)
    limiter.failed("a")
    limiter.failed("a")
    with pytest.raises(auth.AuthError) as refused:
        limiter.check("a")
    assert refused.value.status == 429 and refused.value.retry_after == 61
    limiter.check("b")  # another address is not limited
    clock[0] += 60.5
    limiter.check("a")  # the window has passed


@pytest.mark.parametrize(
    "target",
    [
        "/%09/evil.example/",
        "/%0a/evil.example/",
        "/%0d%0a/evil.example/",
        "/%5Cevil.example/",
        "/%5C%5Cevil.example",
        "//evil.example/",
        "https://evil.example/",
        "/%20/evil.example/",
        "javascript:alert(1)",
    ],
)
def test_login_goes_back_only_to_a_path_of_this_site(client, target) -> None:
    """`next=/%09/evil.example/` was followed to `Location: //evil.example/`."""
    from urllib.parse import urlsplit

    r = client.post(f"/login?next={target}", data={"token": ADMIN_TOKEN})
    assert r.status_code == 302
    location = r.headers["Location"]
    # What a browser makes of it: tabs and newlines dropped, backslashes read as slashes.
    browser = "".join(ch for ch in location if ch not in "\t\r\n").replace("\\", "/")
    parts = urlsplit(browser)
    assert browser.startswith("/") and not browser.startswith("//"), location
    assert parts.netloc in ("", "localhost") and not parts.scheme, location
    assert location == "/"


def test_login_and_language_picker_keep_a_path_of_this_site(client) -> None:
    r = client.post("/login?next=/games/1/print%3Fx%3D1", data={"token": ADMIN_TOKEN})
    assert r.headers["Location"] == "/games/1/print?x=1"
    r = client.post("/language", data={"lang": "hu", "next": "/\t/evil.example/"})
    assert r.headers["Location"] == "/"
    r = client.post("/language", data={"lang": "hu", "next": "/games/1?x=2"})
    assert r.headers["Location"] == "/games/1?x=2"


def test_player_and_admin_answers_are_never_stored(client, game, links) -> None:
    gid = game["game"]["id"]
    hand = f"/api/hand/{links['Ana']}"
    client.post(f"{hand}/photo", data=jpeg_bytes(), content_type="image/jpeg")
    private = [
        client.get(hand),
        client.get(f"{hand}/image"),
        client.get(f"/hand/{links['Ana']}"),
        client.put(f"{hand}/tiles", json={"tiles": [[1, 2]]}),
        client.get("/api/hand/1.wrongwrongwrongwrong"),
        client.get(f"/api/games/{gid}/players", headers=ADMIN),
        client.get(f"/api/games/{gid}/export.json", headers=ADMIN),
        client.get(f"/api/games/{gid}/rounds/current/review", headers=ADMIN),
        client.get(f"/api/games/{gid}/players"),  # refused (401): still not kept
        client.get("/api/whoami", headers=ADMIN),
        client.get("/login"),
        client.post("/api/login", json={"token": ADMIN_TOKEN}),
        client.get("/setup"),  # the cookie of the login above
    ]
    for r in private:
        assert r.headers.get("Cache-Control") == "no-store", (r.request.path, r.status_code)
    # The public table is no secret: it keeps its own caching rules.
    public = client.get(f"/api/games/{gid}/state")
    assert public.headers.get("Cache-Control") != "no-store"
