"""Phones reach the game on the first try (issue 33): player links derived from a key file
kept owner-only, the same after a restart and revoked by "New link"; the local network
served by default where the network is a private one; the first-run page only on this
computer, by a loopback name; the player-links page says when phones cannot open its codes.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from server_factories import ADMIN

from dominocam.server import auth, cli, serving, storage
from dominocam.server.host_check import allowed_names, host_allowed, names_loopback

LOCAL = {"REMOTE_ADDR": "127.0.0.1"}


def _links(client, gid: int) -> dict[str, str]:
    r = client.get(f"/api/games/{gid}/players", headers=ADMIN)
    assert r.status_code == 200, r.json
    return {p["name"]: p["token"] for p in r.json["players"]}


def _player_id(client, gid: int, name: str) -> int:
    players = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    return next(p["id"] for p in players if p["name"] == name)


# --- the key file -----------------------------------------------------------------------------


def test_the_key_file_is_made_owner_only_beside_the_database(app) -> None:
    path = Path(app.config["LINK_KEY_FILE"])
    assert path == Path(app.config["DATABASE"]).with_name("dominocam-links.key")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(bytes.fromhex(path.read_text().strip())) == auth.LINK_KEY_BYTES
    assert not list(path.parent.glob("*.tmp"))


def test_the_default_key_file_is_in_the_instance_folder(tmp_path) -> None:
    from dominocam.server import create_app

    app = create_app({"TESTING": True, "INSTANCE": str(tmp_path / "data"), "SECRET_KEY": "x"})
    assert Path(app.config["LINK_KEY_FILE"]) == tmp_path / "data" / "dominocam-links.key"
    assert stat.S_IMODE(os.stat(app.config["LINK_KEY_FILE"]).st_mode) == 0o600


def test_a_key_file_readable_by_others_is_made_owner_only(make_app, app) -> None:
    path = Path(app.config["LINK_KEY_FILE"])
    key = path.read_text()
    os.chmod(path, 0o644)
    make_app()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text() == key


def test_a_truncated_key_file_stops_the_start_and_is_kept(make_app, app) -> None:
    path = Path(app.config["LINK_KEY_FILE"])
    path.write_text("")
    with pytest.raises(RuntimeError, match="holds no key"):
        make_app()
    assert path.exists() and path.read_text() == ""


# --- derivation, restart, revocation ----------------------------------------------------------


def test_a_link_is_the_keyed_hash_of_the_players_secret_and_counter(app, client, game) -> None:
    links = _links(client, game["game"]["id"])
    key = bytes.fromhex(Path(app.config["LINK_KEY_FILE"]).read_text())
    conn = storage.connect(app.config["DATABASE"])
    try:
        for name, token in links.items():
            assert auth.PLAYER_TOKEN.fullmatch(token)
            row = conn.execute("SELECT * FROM players WHERE name = ?", (name,)).fetchone()
            assert row["link_counter"] == 0 and row["link_hash"] is None
            code = auth.player_link_code(key, row["id"], row["link_secret"], 0)
            assert token == f"{row['id']}.{code}"
    finally:
        conn.close()
    assert len(set(links.values())) == len(links)


def test_a_new_app_on_the_same_folder_shows_the_same_working_links(make_app, game) -> None:
    """The restart the issue names: every QR code said 'made before the server restarted'."""
    gid = game["game"]["id"]
    first = _links(make_app().test_client(), gid)
    restarted = make_app().test_client()
    again = _links(restarted, gid)
    assert again == first and all(again.values())
    for token in again.values():
        assert restarted.get(f"/api/hand/{token}").status_code == 200
    page = restarted.get(f"/hand/{first['Caro']}")
    assert page.status_code == 200
    qr = restarted.get(
        f"/api/games/{gid}/players/{_player_id(restarted, gid, 'Ana')}/qr.svg", headers=ADMIN
    )
    assert qr.status_code == 200


def test_new_link_bumps_the_counter_and_revokes_only_that_link(make_app, client, game) -> None:
    gid = game["game"]["id"]
    before = _links(client, gid)
    ana = _player_id(client, gid, "Ana")
    seen = [before["Ana"]]
    for _ in range(2):
        r = client.post(f"/api/games/{gid}/players/{ana}/rotate-link", headers=ADMIN)
        seen.append({p["name"]: p["token"] for p in r.json["players"]}["Ana"])
    assert len(set(seen)) == 3
    restarted = make_app().test_client()
    assert _links(restarted, gid)["Ana"] == seen[-1]
    for old in seen[:-1]:
        assert restarted.get(f"/api/hand/{old}").status_code == 403
    assert restarted.get(f"/api/hand/{seen[-1]}").status_code == 200
    assert restarted.get(f"/api/hand/{before['Ben']}").status_code == 200


def test_a_new_key_file_revokes_every_link(make_app, app, client, game) -> None:
    links = _links(client, game["game"]["id"])
    Path(app.config["LINK_KEY_FILE"]).unlink()
    restarted = make_app().test_client()
    assert restarted.get(f"/api/hand/{links['Ana']}").status_code == 403
    fresh = _links(restarted, game["game"]["id"])
    assert fresh["Ana"] != links["Ana"]
    assert restarted.get(f"/api/hand/{fresh['Ana']}").status_code == 200


def test_a_forged_code_for_a_real_player_is_refused(client, game) -> None:
    links = _links(client, game["game"]["id"])
    player_id, code = links["Ana"].split(".")
    forged = f"{player_id}.{'A' if code[0] != 'A' else 'B'}{code[1:]}"
    assert client.get(f"/api/hand/{forged}").status_code == 403
    other = links["Ben"].split(".")[1]
    assert client.get(f"/api/hand/{player_id}.{other}").status_code == 403


def test_a_link_of_an_earlier_version_works_until_new_link(make_app, app, client, game) -> None:
    """A database whose links were kept as hashes only (schema 4 and 5): they keep working,
    the page says why it cannot show them, and "New link" makes one it can."""
    gid = game["game"]["id"]
    _links(client, gid)
    old_token = "1.olderlinkolderlinkolderlink"
    conn = storage.connect(app.config["DATABASE"])
    try:
        ana = conn.execute("SELECT id FROM players WHERE name = 'Ana'").fetchone()["id"]
        old_token = f"{ana}.olderlinkolderlinkolderlink"
        conn.execute(
            "UPDATE players SET link_secret = NULL, link_counter = 0, link_hash = ? WHERE id = ?",
            (auth._digest(old_token), ana),
        )
    finally:
        conn.close()
    restarted = make_app().test_client()
    assert restarted.get(f"/api/hand/{old_token}").status_code == 200
    players = restarted.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    shown = next(p for p in players if p["name"] == "Ana")
    assert shown["token"] is None and shown["qr"] is None
    r = restarted.get(f"/api/games/{gid}/players/{ana}/qr.svg", headers=ADMIN)
    assert r.status_code == 404 and "earlier version" in r.json["error"]
    r = restarted.post(f"/api/games/{gid}/players/{ana}/rotate-link", headers=ADMIN)
    new = next(p for p in r.json["players"] if p["name"] == "Ana")["token"]
    assert new and restarted.get(f"/api/hand/{new}").status_code == 200
    assert restarted.get(f"/api/hand/{old_token}").status_code == 403


def test_the_migration_keeps_old_link_hashes(tmp_path) -> None:
    conn = storage.connect(str(tmp_path / "old.sqlite3"))
    try:
        storage.migrate(conn, storage.MIGRATIONS[:5])
        conn.execute(
            "INSERT INTO games (name, variant, set_max, created_at) VALUES ('g', 'block', 6, 0)"
        )
        conn.execute(
            "INSERT INTO players (game_id, name, seat, salt, link_hash) "
            "VALUES (1, 'Ana', 0, 's', 'abc')"
        )
        assert storage.migrate(conn) == storage.SCHEMA_VERSION
        row = conn.execute("SELECT * FROM players").fetchone()
        assert row["link_hash"] == "abc" and row["link_secret"] is None
        assert row["link_counter"] == 0
    finally:
        conn.close()


# --- the address phones open ------------------------------------------------------------------


def test_the_page_says_beside_the_codes_when_only_this_computer_is_served(make_app) -> None:
    app = make_app(LISTEN_HOST="127.0.0.1", LISTEN_PORT=5000)
    client = app.test_client()
    gid = client.post(
        "/api/games",
        json={"name": "g", "variant": "block", "set": 6, "players": ["Ana", "Ben"]},
        headers=ADMIN,
    ).json
    gid = gid["game"]["id"]
    page = client.get(f"/games/{gid}/players", headers=ADMIN).get_data(as_text=True)
    assert 'id="phone-address" class="warn"' in page
    assert "Phones cannot open these codes" in page and "--host 0.0.0.0" in page
    assert page.index('id="phone-address"') < page.index('id="links"')
    body = client.get(f"/api/games/{gid}/players", headers=ADMIN).json
    assert body["phones"] == {"url": "http://localhost/", "reachable": False}


def test_served_on_the_network_the_codes_carry_the_lan_address(make_app, monkeypatch) -> None:
    monkeypatch.setattr(serving, "lan_address", lambda: "192.168.1.20")
    app = make_app(LISTEN_HOST="0.0.0.0", LISTEN_PORT=5000)
    client = app.test_client()
    gid = client.post(
        "/api/games",
        json={"name": "g", "variant": "block", "set": 6, "players": ["Ana", "Ben"]},
        headers=ADMIN,
    ).json
    gid = gid["game"]["id"]
    page = client.get(f"/games/{gid}/players", headers=ADMIN).get_data(as_text=True)
    assert "Phones cannot open" not in page and "http://192.168.1.20:5000/" in page
    body = client.get(f"/api/games/{gid}/players", headers=ADMIN).json
    assert body["phones"]["reachable"] is True
    assert all(p["url"].startswith("http://192.168.1.20:5000/hand/") for p in body["players"])


@pytest.mark.parametrize(
    ("lan", "chosen"),
    [
        ("192.168.1.20", "0.0.0.0"),
        ("10.0.0.7", "0.0.0.0"),
        ("172.20.1.2", "0.0.0.0"),
        ("fd00::5", "0.0.0.0"),
        ("8.8.8.8", "127.0.0.1"),  # a public address: the internet could reach the table
        ("100.64.1.1", "127.0.0.1"),  # a carrier's shared address space
        (None, "127.0.0.1"),  # no network yet
    ],
)
def test_auto_serves_the_network_only_when_it_is_a_private_one(lan, chosen) -> None:
    assert serving.choose_host("auto", lambda: lan) == chosen


@pytest.mark.parametrize("given", ["127.0.0.1", "0.0.0.0", "::1", "box7"])
def test_a_given_host_is_kept(given) -> None:
    assert serving.choose_host(given, lambda: "192.168.1.20") == given


def test_serve_defaults_to_auto() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    assert parser.parse_args(["serve"]).host == "auto"


def test_the_listening_message_says_why_auto_stayed_on_this_computer(make_app) -> None:
    app = make_app(LISTEN_HOST="127.0.0.1", LISTEN_PORT=5000)
    text = cli._listening_message(app, "127.0.0.1", 5000, "auto")
    assert "Only this computer can open it" in text and "private network" in text
    assert "--host 0.0.0.0" in text


# --- the Host check and the first-run page ----------------------------------------------------


@pytest.mark.parametrize(
    ("header", "loopback"),
    [
        ("127.0.0.1:5000", True),
        ("127.1.2.3", True),
        ("[::1]:5000", True),
        ("localhost:5000", True),
        ("LOCALHOST.", True),
        ("table.localhost", True),
        ("192.168.1.20:5000", False),
        (socket.gethostname(), False),
        ("evil.example", False),
        ("127.0.0.1.evil.example", False),
        ("::1", False),
        ("", False),
        (None, False),
    ],
)
def test_names_loopback(header, loopback) -> None:
    assert names_loopback(header) is loopback


def test_the_machines_own_names_are_allowed_and_others_refused() -> None:
    names = allowed_names("0.0.0.0", None)
    machine = socket.gethostname()
    for header in (machine, f"{machine.split('.')[0]}.local:5000", "192.168.1.20:5000"):
        assert host_allowed(header, names), header
    for header in ("evil.example", "evil.example:5000", f"{machine}.evil.example"):
        assert not host_allowed(header, names), header


@pytest.mark.parametrize("host", ["192.168.1.20:5000", "{machine}:5000", "{machine}.local"])
def test_the_first_run_page_needs_a_loopback_name_too(make_app, host) -> None:
    """A request from this computer by its LAN address or its own name (a reverse proxy on
    this computer connects from 127.0.0.1 too) gets no nonce and sets no passphrase."""
    header = {"Host": host.format(machine=socket.gethostname())}
    client = make_app().test_client()
    r = client.get("/first-run", headers=header, environ_base=LOCAL)
    assert r.status_code == 403 and 'name="nonce"' not in r.get_data(as_text=True)
    with client.session_transaction() as session:
        assert "first_run_nonce" not in session
    client.get("/first-run", environ_base=LOCAL)  # a nonce got by a loopback name
    with client.session_transaction() as session:
        nonce = session["first_run_nonce"]
    form = {"passphrase": "by-its-own-name", "repeat": "by-its-own-name", "nonce": nonce}
    r = client.post("/first-run", data=form, headers=header, environ_base=LOCAL)
    assert r.status_code == 403 and "Set-Cookie" not in r.headers
    login = client.get("/login", headers=header, environ_base=LOCAL).get_data(as_text=True)
    assert "first-run-link" not in login


@pytest.mark.parametrize("host", ["127.0.0.1:5000", "localhost:5000", "[::1]:5000"])
def test_the_first_run_page_opens_by_a_loopback_name(make_app, host) -> None:
    client = make_app().test_client()
    r = client.get("/first-run", headers={"Host": host}, environ_base=LOCAL)
    assert r.status_code == 200 and 'name="nonce"' in r.get_data(as_text=True)


def test_no_answer_carries_a_players_secret(app, client, game) -> None:
    gid = game["game"]["id"]
    _links(client, gid)
    conn = storage.connect(app.config["DATABASE"])
    try:
        secrets = [r["link_secret"] for r in conn.execute("SELECT link_secret FROM players")]
    finally:
        conn.close()
    assert all(secrets)
    answers = [
        client.get(f"/api/games/{gid}/state").get_data(as_text=True),
        client.get(f"/api/games/{gid}/players", headers=ADMIN).get_data(as_text=True),
        client.get(f"/api/games/{gid}/export.json", headers=ADMIN).get_data(as_text=True),
        client.get(f"/api/games/{gid}/export.csv", headers=ADMIN).get_data(as_text=True),
        client.get(f"/games/{gid}/players", headers=ADMIN).get_data(as_text=True),
    ]
    for secret in secrets:
        assert not any(secret in answer for answer in answers)
