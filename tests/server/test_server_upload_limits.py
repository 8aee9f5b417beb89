"""Uploads that cannot hurt the server: chunked bodies over the limit, decoding cost, header
parsing of hostile JPEGs, photos decoded at once, where photos live and when they go."""

from __future__ import annotations

import os
import socket
import stat
import threading
import time
from pathlib import Path

import pytest
from server_factories import (
    ADMIN,
    ADMIN_TOKEN,
    ThreadedServer,
    fake_scene,
    jpeg_bytes,
    png_bomb,
    png_bytes,
)

from dominocam.server import create_app, retention, storage, uploads

LIMIT = 1024 * 1024


def _chunked_post(port: int, path: str, body: bytes, ctype: str) -> tuple[int, bytes]:
    """POST `body` with Transfer-Encoding: chunked; (status, response body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {ADMIN_TOKEN}\r\nContent-Type: {ctype}\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode()
        )
        for start in range(0, len(body), 65536):
            part = body[start : start + 65536]
            sock.sendall(b"%x\r\n" % len(part) + part + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), rest


@pytest.mark.parametrize("multipart", [False, True])
def test_a_chunked_upload_over_the_limit_is_413_and_nothing_is_kept(
    make_app, tmp_path, multipart
) -> None:
    app = make_app(SCENE_PROVIDER=fake_scene, MAX_CONTENT_LENGTH=LIMIT)
    gid = (
        app.test_client()
        .post("/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN)
        .json["game"]["id"]
    )
    photo = jpeg_bytes()
    body = photo[:-2] + b"\0" * (LIMIT + LIMIT // 2) + photo[-2:]  # a valid JPEG, too long
    ctype = "image/jpeg"
    if multipart:
        body = (
            b'--B\r\nContent-Disposition: form-data; name="photo"; filename="t.jpg"\r\n'
            b"Content-Type: image/jpeg\r\n\r\n" + body + b"\r\n--B--\r\n"
        )
        ctype = "multipart/form-data; boundary=B"
    server = ThreadedServer(app)
    try:
        status, text = _chunked_post(
            server.port, f"/api/games/{gid}/rounds/current/table", body, ctype
        )
        assert status == 413 and b"larger than 1 MB" in text
        # A chunked photo under the limit still goes in.
        status, _ = _chunked_post(
            server.port, f"/api/games/{gid}/rounds/current/table", photo, "image/jpeg"
        )
        assert status == 201
    finally:
        server.close()
    stored = list((tmp_path / "uploads").rglob("*.jpg"))
    assert len(stored) == 1 and stored[0].read_bytes() == photo


def test_a_49_megapixel_png_is_refused_before_decoding(client, game) -> None:
    bomb = png_bomb(7000)
    assert len(bomb) < 200_000  # 49 MP in about 143 KB
    r = client.post(
        f"/api/games/{game['game']['id']}/rounds/current/table",
        data=bomb,
        content_type="image/png",
        headers=ADMIN,
    )
    assert r.status_code == 413
    assert r.json["error"].startswith("the PNG image is 7000x7000 = 49 megapixels")


def test_a_large_jpeg_is_decoded_at_reduced_size(make_app) -> None:
    seen: list[tuple[int, ...]] = []

    def reader(pixels, kind, set_max):
        seen.append(pixels.shape)
        return fake_scene(pixels, kind, set_max)

    client = make_app(SCENE_PROVIDER=reader, MAX_DECODE_PIXELS=100_000).test_client()
    gid = client.post(
        "/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN
    ).json["game"]["id"]
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=jpeg_bytes(1280, 720),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 201
    assert seen == [(180, 320, 3)]  # 1/4 of 1280x720: the smallest scale within 100,000 px
    assert r.json["scene"]["image"] == {"width": 320, "height": 180}
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=png_bytes(1280, 720),
        content_type="image/png",
        headers=ADMIN,
    )
    assert r.status_code == 413 and "send a JPEG or a smaller image" in r.json["error"]


@pytest.mark.parametrize(
    ("fmt", "size", "scale"),
    [
        ("jpeg", (4000, 3000), 1),
        ("jpeg", (8000, 6000), 2),
        ("jpeg", (9000, 8000), 4),
        ("png", (4000, 4000), 1),
    ],
)
def test_decode_scale(fmt: str, size: tuple[int, int], scale: int) -> None:
    assert uploads.decode_scale(fmt, *size, 16_000_000) == scale


def test_decode_scale_refuses_a_png_over_the_limit() -> None:
    with pytest.raises(uploads.UploadError) as error:
        uploads.decode_scale("png", 4001, 4000, 16_000_000)
    assert error.value.status == 413


@pytest.mark.parametrize(
    ("filler", "words"),
    [
        (b"\xff" * 19_000_000, "cut short"),  # fill bytes: skipped in one step
        (b"\xff\xd0" * 9_500_000, "more than 1000 markers"),  # restart markers
        (b"\xff\xfe\x00\x02" * 4_750_000, "more than 1000 markers"),  # empty comments
    ],
)
def test_a_19_mb_jpeg_of_filler_is_refused_from_a_bounded_header_walk(
    client, game, filler, words
) -> None:
    r = client.post(
        f"/api/games/{game['game']['id']}/rounds/current/table",
        data=b"\xff\xd8" + filler,
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 400 and words in r.json["error"]


def test_photos_are_decoded_and_read_a_bounded_number_at_once(make_app) -> None:
    running, peak, lock = [0], [0], threading.Lock()

    def slow_reader(pixels, kind, set_max):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.2)
        with lock:
            running[0] -= 1
        return fake_scene(pixels, kind, set_max)

    app = make_app(SCENE_PROVIDER=slow_reader, DECODES_AT_ONCE=1)
    gid = (
        app.test_client()
        .post("/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN)
        .json["game"]["id"]
    )
    statuses: list[int] = []

    def upload() -> None:
        r = app.test_client().post(
            f"/api/games/{gid}/rounds/current/table",
            data=jpeg_bytes(),
            content_type="image/jpeg",
            headers=ADMIN,
        )
        statuses.append(r.status_code)

    threads = [threading.Thread(target=upload) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert statuses == [201] * 4 and peak[0] == 1


def test_a_photo_that_waits_too_long_gets_a_503(make_app) -> None:
    app = make_app(SCENE_PROVIDER=fake_scene, DECODES_AT_ONCE=1, PHOTO_WAIT_S=0.05)
    client = app.test_client()
    gid = client.post(
        "/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN
    ).json["game"]["id"]
    slots = app.extensions["dominocam.photo_slots"]
    assert slots.acquire()  # another photo is being read
    try:
        r = client.post(
            f"/api/games/{gid}/rounds/current/table",
            data=jpeg_bytes(),
            content_type="image/jpeg",
            headers=ADMIN,
        )
    finally:
        slots.release()
    assert r.status_code == 503 and "busy" in r.json["error"]


def _upload_table(client) -> int:
    gid = client.post(
        "/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN
    ).json["game"]["id"]
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=jpeg_bytes(),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 201
    return gid


def test_db_moves_the_uploads_folder(tmp_path) -> None:
    folders = []
    for name in ("friday", "saturday"):
        app = create_app(
            {
                "TESTING": True,
                "DATABASE": str(tmp_path / f"{name}.sqlite3"),
                "ADMIN_TOKEN": ADMIN_TOKEN,
                "SCENE_PROVIDER": fake_scene,
            }
        )
        assert app.config["UPLOAD_FOLDER"] == str(tmp_path / f"{name}-uploads")
        gid = _upload_table(app.test_client())
        folders.append(tmp_path / f"{name}-uploads" / f"game-{gid}")
    # Both databases have a game 1; each keeps its own photos.
    assert folders[0] != folders[1]
    assert all(len(list(f.glob("table-*.jpg"))) == 1 for f in folders)


def test_the_database_and_photos_are_readable_by_the_owner_only(make_app, tmp_path) -> None:
    app = make_app(SCENE_PROVIDER=fake_scene)
    _upload_table(app.test_client())
    database = Path(app.config["DATABASE"])
    conn = storage.connect(str(database))  # an open connection keeps the WAL files there
    try:
        storage.add_event(conn, None, "test")
        paths = [database, Path(f"{database}-wal"), Path(f"{database}-shm")]
        paths += list(Path(app.config["UPLOAD_FOLDER"]).rglob("*.jpg"))
        assert len(paths) == 4
        for path in paths:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    finally:
        conn.close()
    for folder in Path(app.config["UPLOAD_FOLDER"]).iterdir():
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


def test_an_old_world_readable_database_is_made_owner_only(make_app, tmp_path) -> None:
    database = tmp_path / "dominocam.sqlite3"
    storage.connect(str(database)).close()
    os.chmod(database, 0o644)
    make_app()
    assert stat.S_IMODE(database.stat().st_mode) == 0o600


def test_photos_of_finished_games_are_pruned_by_the_policy(make_app) -> None:
    app = make_app(SCENE_PROVIDER=fake_scene)
    client = app.test_client()
    kept, finished = _upload_table(client), _upload_table(client)
    assert client.post(f"/api/games/{finished}/finish", headers=ADMIN).status_code == 200
    root = Path(app.config["UPLOAD_FOLDER"])
    conn = storage.connect(app.config["DATABASE"])
    try:
        now = time.time()
        # Within the 30 days nothing goes.
        assert retention.prune_photos(conn, root, 30, now).games == ()
        # 31 days later the finished game's photos go; the active game's stay.
        pruned = retention.prune_photos(conn, root, 30, now + 31 * retention.DAY_S)
        assert pruned.games == (finished,) and pruned.files == 1
        assert not (root / f"game-{finished}").exists()
        assert len(list((root / f"game-{kept}").glob("*.jpg"))) == 1
        # None keeps photos for ever; a folder of a game that no longer exists goes at once.
        (root / "game-999").mkdir()
        assert retention.prune_photos(conn, root, None, now).games == ()
        assert retention.prune_photos(conn, root, 30, now).games == (999,)
    finally:
        conn.close()
    # The pages show the tiles without the picture.
    assert client.get(f"/api/games/{finished}/state").json["round"]["table"]["image"] is None
    assert client.get(f"/api/games/{finished}/rounds/1/table/image").status_code == 404


def test_pruning_runs_when_the_dashboard_starts(make_app) -> None:
    app = make_app(SCENE_PROVIDER=fake_scene)
    gid = _upload_table(app.test_client())
    app.test_client().post(f"/api/games/{gid}/finish", headers=ADMIN)
    restarted = make_app(SCENE_PROVIDER=fake_scene, PHOTO_RETENTION_DAYS=0)
    assert not (Path(restarted.config["UPLOAD_FOLDER"]) / f"game-{gid}").exists()
