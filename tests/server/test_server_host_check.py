"""Requests must call the dashboard by a name it answers to (issue 33, item 9): a page on
`evil.example` whose name was rebound to this computer gets neither the first-run nonce nor
an admin session."""

from __future__ import annotations

import http.client
import json
import socket

import pytest
from server_factories import ADMIN, ADMIN_TOKEN, ThreadedServer

from dominocam.server import auth, storage

EVIL = {"Host": "evil.example:5000"}
LOCAL = {"REMOTE_ADDR": "127.0.0.1"}


def test_the_first_run_page_refuses_another_name(make_app) -> None:
    app = make_app()
    client = app.test_client()
    r = client.get("/first-run", headers=EVIL, environ_base=LOCAL)
    assert r.status_code == 400
    page = r.get_data(as_text=True)
    assert 'name="nonce"' not in page and "evil.example" in page
    with client.session_transaction() as session:
        assert "first_run_nonce" not in session
    # Even with a nonce got by its own name, a post by another name sets nothing.
    own = client.get("/first-run", environ_base=LOCAL)
    assert own.status_code == 200
    with client.session_transaction() as session:
        nonce = session["first_run_nonce"]
    form = {"passphrase": "rebinding!", "repeat": "rebinding!", "nonce": nonce}
    r = client.post("/first-run", data=form, headers=EVIL, environ_base=LOCAL)
    assert r.status_code == 400 and "Set-Cookie" not in r.headers
    conn = storage.connect(app.config["DATABASE"])
    try:
        assert not auth.has_passphrase(conn)
        assert conn.execute("SELECT COUNT(*) FROM admin_sessions").fetchone()[0] == 0
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("POST", "/login", {"data": {"token": ADMIN_TOKEN}}),
        ("POST", "/api/login", {"json": {"token": ADMIN_TOKEN}}),
        ("GET", "/api/games", {"headers": ADMIN}),
        ("GET", "/api/health", {}),
        ("GET", "/", {}),
    ],
)
def test_every_route_refuses_another_name(client, method, path, kwargs) -> None:
    headers = {**kwargs.pop("headers", {}), **EVIL}
    r = client.open(path, method=method, headers=headers, **kwargs)
    assert r.status_code == 400
    assert "Set-Cookie" not in r.headers
    if path.startswith("/api/"):
        assert r.json["status"] == 400 and "evil.example" in r.json["error"]


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "localhost:5000",
        "LOCALHOST.:5000",
        "127.0.0.1:5000",
        "[::1]:5000",
        "192.168.1.20:5000",
        "[fe80::1]",
        "table.localhost:5000",
        "dominos.club.example:8443",  # the --public-url host
        "proxy.example",  # ALLOWED_HOSTS
        "box7",  # --host box7
        socket.gethostname(),
    ],
)
def test_the_names_it_answers_to(make_app, host) -> None:
    client = make_app(
        PUBLIC_URL="https://dominos.club.example:8443",
        ALLOWED_HOSTS=["proxy.example"],
        LISTEN_HOST="box7",
    ).test_client()
    assert client.get("/api/health", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example.:5000",
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "evil.example@127.0.0.1",
        "127.0.0.1:5000@evil.example",
        "127.0.0.1 evil.example",
        "[::1",
        "",
    ],
)
def test_names_it_refuses(client, host) -> None:
    assert client.get("/api/health", headers={"Host": host}).status_code == 400


def test_a_comma_list_of_allowed_hosts_from_the_environment(make_app, monkeypatch) -> None:
    monkeypatch.setenv("DOMINOCAM_ALLOWED_HOSTS", "a.example, b.example")
    client = make_app().test_client()
    assert client.get("/api/health", headers={"Host": "b.example"}).status_code == 200
    assert client.get("/api/health", headers={"Host": "c.example"}).status_code == 400


def test_over_a_real_connection(make_app) -> None:
    server = ThreadedServer(make_app())
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/first-run", headers={"Host": f"evil.example:{server.port}"})
        r = conn.getresponse()
        assert r.status == 400 and b"nonce" not in r.read()
        headers = {"Host": "evil.example", "Content-Type": "application/json"}
        conn.request("POST", "/api/login", body=json.dumps({"token": ADMIN_TOKEN}), headers=headers)
        r = conn.getresponse()
        assert r.status == 400 and r.getheader("Set-Cookie") is None
        r.read()
        conn.request("GET", "/first-run")  # http.client sends Host: 127.0.0.1:PORT
        r = conn.getresponse()
        assert r.status == 200 and b'name="nonce"' in r.read()
        conn.close()
    finally:
        server.close()
