"""One player link cannot fill the disk (issue 33, item 7): only the photos the audit needs
are kept, and each game and each player's hands have a photo space."""

from __future__ import annotations

from pathlib import Path

import pytest
from server_factories import ADMIN, fake_scene, jpeg_bytes


def _files(app, gid: int, pattern: str = "*") -> list[Path]:
    return sorted((Path(app.config["UPLOAD_FOLDER"]) / f"game-{gid}").glob(pattern))


def _hand_photo(client, token: str, photo: bytes):
    return client.post(f"/api/hand/{token}/photo", data=photo, content_type="image/jpeg")


def _new_game(client) -> int:
    r = client.post(
        "/api/games", json={"variant": "block", "players": ["Ana", "Ben"]}, headers=ADMIN
    )
    assert r.status_code == 201
    return r.json["game"]["id"]


def _links(client, gid: int) -> dict[str, str]:
    players = client.get(f"/api/games/{gid}/players", headers=ADMIN).json["players"]
    return {p["name"]: p["token"] for p in players}


def test_photos_sent_again_and_again_keep_one_pending_photo(app, client, game, links) -> None:
    gid = game["game"]["id"]
    for _ in range(20):
        assert _hand_photo(client, links["Ana"], jpeg_bytes()).status_code == 201
    # Twenty photos, none confirmed: only the newest is kept.
    assert len(_files(app, gid, "hand-*")) == 1
    # Confirmed, it stays; a new pending photo beside it; dropping that one deletes it.
    assert client.post(f"/api/hand/{links['Ana']}/confirm").status_code == 200
    assert _hand_photo(client, links["Ana"], jpeg_bytes(200, 100)).status_code == 201
    confirmed_and_pending = _files(app, gid, "hand-*")
    assert len(confirmed_and_pending) == 2
    assert _hand_photo(client, links["Ana"], jpeg_bytes(210, 100)).status_code == 201
    assert len(_files(app, gid, "hand-*")) == 2
    assert client.delete(f"/api/hand/{links['Ana']}/pending").status_code == 200
    (kept,) = _files(app, gid, "hand-*")
    assert kept in confirmed_and_pending
    assert client.get(f"/api/hand/{links['Ana']}/image").data == kept.read_bytes()


def test_a_replaced_table_photo_is_not_kept(app, client, game) -> None:
    gid = game["game"]["id"]
    for width in (160, 170, 180):
        r = client.post(
            f"/api/games/{gid}/rounds/current/table",
            data=jpeg_bytes(width, 120),
            content_type="image/jpeg",
            headers=ADMIN,
        )
        assert r.status_code == 201
    (kept,) = _files(app, gid, "table-*")
    image = client.get(r.json["state"]["round"]["table"]["image"])
    assert image.data == kept.read_bytes() == jpeg_bytes(180, 120)


def test_a_players_photo_space_has_a_cap(make_app) -> None:
    photo = jpeg_bytes()
    app = make_app(
        SCENE_PROVIDER=fake_scene,
        PHOTO_BYTES_PER_PLAYER=3 * len(photo),
        PHOTO_BYTES_PER_GAME=None,
    )
    client = app.test_client()
    gid = _new_game(client)
    links = _links(client, gid)
    ana = f"/api/hand/{links['Ana']}"
    # A confirmed photo is kept for the audit, so confirming again and again fills the space.
    for _ in range(3):
        assert _hand_photo(client, links["Ana"], photo).status_code == 201
        assert client.post(f"{ana}/confirm").status_code == 200
    r = _hand_photo(client, links["Ana"], photo)
    assert r.status_code == 507
    assert r.json["error"].startswith("your hand photos in this game have used your photo space")
    assert "enter your tiles by hand" in r.json["error"]
    assert len(_files(app, gid, "hand-*")) == 3
    # The player can still type the hand; another player still sends photos.
    assert client.put(f"{ana}/tiles", json={"tiles": [[1, 2]]}).status_code == 200
    assert _hand_photo(client, links["Ben"], photo).status_code == 201


def test_a_pending_photo_is_replaced_within_a_full_space(make_app) -> None:
    photo = jpeg_bytes()
    app = make_app(SCENE_PROVIDER=fake_scene, PHOTO_BYTES_PER_PLAYER=len(photo))
    client = app.test_client()
    links = _links(client, _new_game(client))
    assert _hand_photo(client, links["Ana"], photo).status_code == 201
    # The one photo the space holds is pending: a retake replaces it.
    assert _hand_photo(client, links["Ana"], photo).status_code == 201


def test_a_games_photo_space_has_a_cap(make_app) -> None:
    photo = jpeg_bytes()
    app = make_app(
        SCENE_PROVIDER=fake_scene,
        PHOTO_BYTES_PER_PLAYER=None,
        PHOTO_BYTES_PER_GAME=2 * len(photo),
    )
    client = app.test_client()
    gid = _new_game(client)
    links = _links(client, gid)
    assert _hand_photo(client, links["Ana"], photo).status_code == 201
    assert _hand_photo(client, links["Ben"], photo).status_code == 201
    r = _hand_photo(client, links["Ben"], jpeg_bytes(161, 120))
    assert r.status_code == 507 and r.json["error"].startswith("this game has used its photo space")
    table = f"/api/games/{gid}/rounds/current/table"
    r = client.post(table, data=photo, content_type="image/jpeg", headers=ADMIN)
    assert r.status_code == 507 and "enter the tiles by hand" in r.json["error"]
    assert len(_files(app, gid)) == 2
    # Another game has its own space.
    other = _new_game(client)
    r = client.post(f"/api/games/{other}/rounds/current/table", data=photo,
                    content_type="image/jpeg", headers=ADMIN)  # fmt: skip
    assert r.status_code == 201


@pytest.mark.parametrize("cap", ["PHOTO_BYTES_PER_GAME", "PHOTO_BYTES_PER_PLAYER"])
def test_the_caps_have_sensible_defaults(app, cap) -> None:
    assert app.config[cap] >= 5 * app.config["MAX_CONTENT_LENGTH"]


def test_a_photo_deleted_while_the_space_is_counted_is_not_an_error(tmp_path, monkeypatch) -> None:
    """Seen in CI: two uploads at once, one deleting the photo it replaced while the other
    counted the folder (listed, then gone before its size was read) answered 500."""
    import os

    from dominocam.server import photo_space

    (tmp_path / "table-a.jpg").write_bytes(b"x" * 10)
    (tmp_path / "table-b.jpg").write_bytes(b"x" * 7)
    listed = list(os.scandir(tmp_path))

    def listing_then_a_deletion(folder):
        (tmp_path / "table-a.jpg").unlink()  # the other upload's cleanup, after the listing
        return iter(listed)

    monkeypatch.setattr(photo_space.os, "scandir", listing_then_a_deletion)
    assert photo_space.bytes_used(tmp_path) == 7
