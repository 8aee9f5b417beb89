"""Phones reach the game: links and QR codes use the address phones open, the table page
shows it, and `dominocam serve` says where it listens and keeps the games, or in one line
why it cannot listen (a taken port, a bad --port or --host); all traffic stays on loopback."""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from server_factories import (
    ADMIN,
    ThreadedServer,
    free_port,
    serve_without_listening,
    start_server,
)

from dominocam.cli import main as dominocam_main
from dominocam.errors import UserInputError
from dominocam.server import cli, serving
from dominocam.server.qr import qr_svg


def _links(client, gid: int, **kwargs) -> list[dict]:
    r = client.get(f"/api/games/{gid}/players", headers=ADMIN, **kwargs)
    assert r.status_code == 200, r.json
    return r.json["players"]


def test_links_and_qr_codes_use_the_public_url(make_app, game) -> None:
    app = make_app(PUBLIC_URL="http://192.168.1.20:5000/")
    client = app.test_client()
    gid = game["game"]["id"]
    players = _links(client, gid)
    for p in players:
        assert p["url"] == f"http://192.168.1.20:5000/hand/{p['token']}"
    ana = players[0]
    svg = client.get(ana["qr"], headers=ADMIN)
    assert svg.status_code == 200 and svg.data == qr_svg(ana["url"])
    page = client.get(f"/games/{gid}").get_data(as_text=True)
    assert "http://192.168.1.20:5000/" in page and "Phones on this network" in page


def test_links_use_the_lan_address_when_listening_on_all_interfaces(
    make_app, game, monkeypatch
) -> None:
    monkeypatch.setattr(serving, "lan_address", lambda: "10.1.2.3")
    client = make_app(LISTEN_HOST="0.0.0.0", LISTEN_PORT=5123).test_client()
    for p in _links(client, game["game"]["id"]):
        assert p["url"].startswith("http://10.1.2.3:5123/hand/")


def test_links_follow_a_lan_address_the_host_used(client, game) -> None:
    players = _links(client, game["game"]["id"], base_url="http://192.168.0.7:5000")
    assert all(p["url"].startswith("http://192.168.0.7:5000/hand/") for p in players)


def test_loopback_only_says_phones_cannot_reach_it(client, game) -> None:
    players = _links(client, game["game"]["id"])
    assert players[0]["url"].startswith("http://localhost/hand/")
    page = client.get(f"/games/{game['game']['id']}").get_data(as_text=True)
    assert "Phones cannot reach" in page and "--host 0.0.0.0" in page


@pytest.mark.parametrize(
    ("host", "expected"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False), ("", False)],
)
def test_is_loopback(host: str, expected: bool) -> None:
    assert serving.is_loopback(host) is expected


def test_the_listening_message_names_the_phone_address(make_app, monkeypatch) -> None:
    monkeypatch.setattr(serving, "lan_address", lambda: "10.1.2.3")
    app = make_app(LISTEN_HOST="0.0.0.0", LISTEN_PORT=5000)
    text = cli._listening_message(app, "0.0.0.0", 5000)
    assert (
        "http://127.0.0.1:5000/" in text
        and "Phones on this network open http://10.1.2.3:5000/" in text
    )
    text = cli._listening_message(make_app(LISTEN_HOST="127.0.0.1"), "127.0.0.1", 5000)
    assert "Only this computer can open it" in text and "--host 0.0.0.0" in text


def test_a_bad_public_url_is_one_line_exit_2(capsys) -> None:
    assert dominocam_main(["serve", "--public-url", "ftp://x", "--no-demo"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dominocam: error: --public-url") and "\n" not in err


def test_the_production_server_answers(make_app) -> None:
    server = ThreadedServer(make_app())
    try:
        with urllib.request.urlopen(f"{server.url}/api/health", timeout=10) as response:
            assert response.status == 200
            assert response.headers["Server"] == "DominoCam"  # waitress, not werkzeug
    finally:
        server.close()


@pytest.mark.slow
def test_dominocam_serve_runs_waitress_and_says_where(tmp_path) -> None:
    port = free_port()
    proc = start_server(tmp_path, port, "--no-demo", "--public-url", "http://10.9.8.7:5000")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=10) as r:
            assert r.headers["Server"] == "DominoCam"
    finally:
        proc.terminate()
        proc.wait(10)
    log = (tmp_path / f"server-{port}.log").read_text()
    assert f"http://127.0.0.1:{port}/" in log and "open http://10.9.8.7:5000/" in log


class _StillCamera:
    """A camera that always has the same frame (a stand-in for the capture loop)."""

    def mjpeg(self, max_s=None):
        while True:
            yield b"--frame\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8\xff\xd9\r\n"

    def status(self):
        return {"state": "live", "text": "live"}


def test_camera_viewers_are_capped_and_freed(make_app) -> None:
    app = make_app(CAMERA_MAX_STREAMS=2)
    app.extensions["dominocam.camera"] = _StillCamera()
    client = app.test_client()
    first, second = (client.get("/api/camera/stream", buffered=False) for _ in range(2))
    assert first.status_code == second.status_code == 200
    third = client.get("/api/camera/stream", buffered=False)
    assert third.status_code == 503 and "2 viewers" in third.json["error"]
    first.close()
    again = client.get("/api/camera/stream", buffered=False)
    assert again.status_code == 200
    second.close()
    again.close()


def test_serve_warns_when_it_listens_beyond_loopback(monkeypatch, tmp_path, capsys) -> None:
    serve_without_listening(monkeypatch)
    monkeypatch.setattr(serving, "lan_address", lambda: "10.1.2.3")
    umask = os.umask(0o022)
    try:
        code = dominocam_main(
            ["serve", "--host", "0.0.0.0", "--db", str(tmp_path / "db.sqlite3"), "--no-demo"]
        )
        assert os.umask(0o022) == 0o077  # what it creates is owner-only
    finally:
        os.umask(umask)
    out, err = capsys.readouterr()
    assert code == 0
    assert "Phones on this network open http://10.1.2.3:5999/" in out
    assert "WARNING: listening beyond this computer (0.0.0.0)" in err


@pytest.fixture
def taken_port():
    """A port of 127.0.0.1 that another program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


def _one_line_error(err: str) -> str:
    err = err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith("dominocam: error: "), err
    return err


def test_a_taken_port_is_one_line_naming_port_and_nothing_is_written(
    taken_port, monkeypatch, tmp_path, capsys
) -> None:
    monkeypatch.setenv("DOMINOCAM_INSTANCE", str(tmp_path / "instance"))
    code = dominocam_main(["serve", "--host", "127.0.0.1", "--port", str(taken_port)])
    err = _one_line_error(capsys.readouterr().err)
    assert code == 2
    assert f"port {taken_port} on 127.0.0.1 is taken" in err
    assert "--port" in err and f"make run PORT={taken_port + 1}" in err
    assert not (tmp_path / "instance").exists()  # checked before any database or demo game


def test_a_port_taken_between_the_check_and_the_bind_says_the_same(taken_port, make_app) -> None:
    with pytest.raises(UserInputError, match=rf"port {taken_port} on 127.0.0.1 is taken.*--port"):
        serving.create_server(make_app(), "127.0.0.1", taken_port)


def test_a_free_port_passes_the_check() -> None:
    serving.check_address_free("127.0.0.1", free_port())


def test_dominocam_serve_on_a_taken_port_exits_without_a_traceback(taken_port) -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "dominocam", "serve", "--host", "127.0.0.1"),
            *("--port", str(taken_port), "--no-demo"),
        ],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "--port" in _one_line_error(done.stderr)


@pytest.mark.parametrize("port", ["99999", "65536", "0", "-1", "five", ""])
def test_a_port_out_of_range_is_an_argument_error(port: str, capsys) -> None:
    assert dominocam_main(["serve", "--port", port, "--no-demo"]) == 2
    assert _one_line_error(capsys.readouterr().err).startswith("dominocam: error: argument --port")


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (OSError(errno.EADDRINUSE, "Address already in use"), "is taken"),
        (OSError(errno.EACCES, "Permission denied"), "needs administrator rights"),
        (OSError(errno.EADDRNOTAVAIL, "Cannot assign"), "--host 10.9.9.9 is not an address"),
        (ValueError("Invalid host/port specified."), "--host '10.9.9.9' is not an address"),
        (OSError(errno.ENOBUFS, "No buffer space available"), "No buffer space available"),
    ],
)
def test_listen_errors_say_what_to_change(error: Exception, says: str) -> None:
    message = str(serving.listen_error("10.9.9.9", 80, error))
    assert says in message and "\n" not in message
    assert ("--port" in message) == (error.args[0] in (errno.EADDRINUSE, errno.EACCES))


def test_an_unknown_host_is_a_one_line_error(capsys) -> None:
    code = dominocam_main(["serve", "--host", "no-such-host.invalid", "--no-demo"])
    assert code == 2 and "--host" in _one_line_error(capsys.readouterr().err)


def test_the_start_banner_names_the_database_and_the_address(monkeypatch, tmp_path, capsys) -> None:
    serve_without_listening(monkeypatch)
    monkeypatch.setenv("DOMINOCAM_INSTANCE", str(tmp_path / "data"))
    assert dominocam_main(["serve", "--no-demo"]) == 0
    out = capsys.readouterr().out
    assert "DominoCam dashboard on http://127.0.0.1:5999/" in out
    database = tmp_path / "data" / "dominocam.sqlite3"
    assert f"Games are kept in the database {database} (photos in {database.parent}/uploads)" in out
    assert database.is_file()


def test_the_banner_gives_a_relative_db_as_a_full_path(monkeypatch, tmp_path, capsys) -> None:
    serve_without_listening(monkeypatch)
    monkeypatch.chdir(tmp_path)
    assert dominocam_main(["serve", "--no-demo", "--db", "games.sqlite3"]) == 0
    assert f"the database {tmp_path / 'games.sqlite3'} " in capsys.readouterr().out
