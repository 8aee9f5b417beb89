"""Issue 19 point 7: the first-run page (this computer only, while no passphrase is set)
where the host sets a passphrase, stored as an scrypt hash; logging in accepts it; the admin
token stays for scripts."""

from __future__ import annotations

import re

from server_factories import ADMIN, ADMIN_TOKEN

from dominocam.server import auth, storage

PASSPHRASE = "green double six"
LAN = {"REMOTE_ADDR": "192.168.1.7"}


def _nonce(client, **kw) -> str:
    r = client.get("/first-run", **kw)
    assert r.status_code == 200, r.status_code
    found = re.search(r'name="nonce" value="([^"]+)"', r.get_data(as_text=True))
    assert found
    return found.group(1)


def _stored(app) -> str | None:
    conn = storage.connect(app.config["DATABASE"])
    try:
        return storage.get_setting(conn, auth.PASSPHRASE_HASH_KEY)
    finally:
        conn.close()


def _set(client, passphrase: str = PASSPHRASE, repeat: str | None = None, **kw):
    form = {"nonce": _nonce(client, **kw), "passphrase": passphrase}
    form["repeat"] = passphrase if repeat is None else repeat
    return client.post("/first-run", data=form, **kw)


def test_the_host_sets_a_passphrase_and_logs_in_with_it(app, client) -> None:
    login = client.get("/login").get_data(as_text=True)
    assert 'id="first-run-link"' in login
    assert client.get("/setup").status_code == 302
    r = _set(client)
    assert r.status_code == 302 and r.headers["Location"] == "/"
    # Setting it logged this browser in.
    assert client.get("/setup").status_code == 200
    stored = _stored(app)
    assert stored and stored.startswith("scrypt$") and PASSPHRASE not in stored
    # Once set, the page is closed, and the login page no longer offers it.
    r = client.get("/first-run")
    assert r.status_code == 403 and "already set" in r.get_data(as_text=True)
    other = app.test_client()
    assert 'id="first-run-link"' not in other.get("/login").get_data(as_text=True)
    r = other.post("/first-run", data={"passphrase": "x" * 10, "repeat": "x" * 10})
    assert r.status_code == 403 and _stored(app) == stored

    # Logging in accepts the passphrase (form and JSON) and still the token.
    fresh = app.test_client()
    assert fresh.post("/login", data={"token": PASSPHRASE, "next": "/setup"}).status_code == 302
    assert fresh.get("/setup").status_code == 200
    assert app.test_client().post("/api/login", json={"token": PASSPHRASE}).status_code == 200
    assert app.test_client().post("/login", data={"token": ADMIN_TOKEN}).status_code == 302
    r = app.test_client().post("/login", data={"token": "green double five"})
    assert r.status_code == 403 and "wrong" in r.get_data(as_text=True)
    # Scripts: the bearer header takes the token only.
    assert app.test_client().get("/api/games/1/export.json", headers=ADMIN).status_code == 404
    r = app.test_client().get(
        "/api/games/1/export.json", headers={"Authorization": f"Bearer {PASSPHRASE}"}
    )
    assert r.status_code == 403


def test_only_this_computer_sees_the_page(app, client) -> None:
    r = client.get("/first-run", environ_base=LAN)
    assert r.status_code == 403 and "only on the computer" in r.get_data(as_text=True)
    r = client.post(
        "/first-run", data={"passphrase": PASSPHRASE, "repeat": PASSPHRASE}, environ_base=LAN
    )
    assert r.status_code == 403 and _stored(app) is None
    assert 'id="first-run-link"' not in client.get("/login", environ_base=LAN).get_data(
        as_text=True
    )
    # IPv6 loopback is this computer too.
    assert client.get("/first-run", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200


def test_bad_passphrases_and_forged_forms_are_refused(app, client) -> None:
    r = _set(client, "short")
    assert r.status_code == 400 and "at least 8 characters" in r.get_data(as_text=True)
    r = _set(client, PASSPHRASE, "green double nine")
    assert r.status_code == 400 and "differ" in r.get_data(as_text=True)
    r = _set(client, "x" * 300)
    assert r.status_code == 400 and "at most" in r.get_data(as_text=True)
    # A form posted from another site has no nonce of this browser's session.
    r = app.test_client().post(
        "/first-run", data={"passphrase": PASSPHRASE, "repeat": PASSPHRASE, "nonce": "guess"}
    )
    assert r.status_code == 400 and "expired" in r.get_data(as_text=True)
    assert _stored(app) is None
    assert client.get("/setup").status_code == 302


def test_reset_passphrase_opens_the_page_again(app, client) -> None:
    from dominocam.server import cli

    assert _set(client).status_code == 302
    cli._reset_passphrase({"DATABASE": app.config["DATABASE"]})
    assert _stored(app) is None
    # Every session ended with it.
    assert client.get("/setup").status_code == 302
    assert client.get("/first-run").status_code == 200
