"""Safe decoding of uploads, and every kind of bad upload through the API (never a 500)."""

from __future__ import annotations

import functools

import pytest
from server_factories import ADMIN, jpeg_bytes, jpeg_with_size, png_bomb, png_bytes

from dominocam.server import uploads

MAX_PIXELS = 50_000_000


@functools.cache
def bomb() -> bytes:
    return png_bomb(12000)


def test_good_jpeg_and_png_decode() -> None:
    jpeg = uploads.decode_upload(jpeg_bytes(160, 120), MAX_PIXELS)
    assert (jpeg.format, jpeg.width, jpeg.height) == ("jpeg", 160, 120)
    assert jpeg.pixels.shape == (120, 160, 3)
    png = uploads.decode_upload(png_bytes(64, 48), MAX_PIXELS)
    assert (png.format, png.pixels.shape) == ("png", (48, 64, 3))


def test_png_bomb_is_refused_from_its_header() -> None:
    data = bomb()
    assert len(data) < 1_000_000  # a small file ...
    assert uploads.image_size(data, "png") == (12000, 12000)  # ... declaring 144 MP
    with pytest.raises(uploads.UploadError, match="megapixels") as info:
        uploads.decode_upload(data, MAX_PIXELS)
    assert info.value.status == 413


BAD_UPLOADS = {
    "empty": (b"", 400, "empty"),
    "not an image": (b"hello, this is text\n" * 10, 415, "not an image"),
    "pdf": (b"%PDF-1.7\n" + b"x" * 100, 415, "not an image"),
    "truncated jpeg": (jpeg_bytes(400, 300)[:700], 400, "cut short"),
    "jpeg without end marker": (jpeg_bytes(400, 300)[:-2], 400, "cut short"),
    "jpeg header only": (b"\xff\xd8\xff", 400, "JPEG"),
    "100 megapixel jpeg": (jpeg_with_size(10000, 10000), 413, "megapixels"),
    "png bomb": (None, 413, "megapixels"),
    "truncated png": (png_bytes(64, 48)[:60], 400, "PNG"),
    "png header only": (b"\x89PNG\r\n\x1a\n", 400, "PNG"),
    "zero-size png": (None, 400, "empty image"),
    "heic": (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64, 415, "HEIC"),
}


def _bad(case: str) -> bytes:
    data = BAD_UPLOADS[case][0]
    if case == "png bomb":
        return bomb()
    if case == "zero-size png":
        raw = bytearray(png_bytes(8, 8))
        raw[16:24] = b"\x00" * 8
        return bytes(raw)
    assert data is not None
    return data


@pytest.mark.parametrize("case", list(BAD_UPLOADS))
def test_bad_table_upload_gets_a_clear_4xx(client, game, case) -> None:
    _, status, words = BAD_UPLOADS[case]
    r = client.post(
        f"/api/games/{game['game']['id']}/rounds/current/table",
        data={"photo": (__import__("io").BytesIO(_bad(case)), "x.jpg")},
        headers=ADMIN,
    )
    assert r.status_code == status, r.json
    assert words.lower() in r.json["error"].lower()
    assert r.json["status"] == status


@pytest.mark.parametrize("case", ["empty", "not an image", "truncated jpeg", "png bomb"])
def test_bad_hand_upload_gets_a_clear_4xx(client, links, case) -> None:
    _, status, _ = BAD_UPLOADS[case]
    r = client.post(
        f"/api/hand/{links['Ana']}/photo",
        data=_bad(case),
        content_type="image/jpeg",
    )
    assert r.status_code == status
    assert r.json["error"]


def test_request_larger_than_limit_is_413(make_app) -> None:
    app = make_app(MAX_CONTENT_LENGTH=1000)
    client = app.test_client()
    gid = client.post(
        "/api/games", json={"variant": "block", "players": ["A", "B"]}, headers=ADMIN
    ).json["game"]["id"]
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=jpeg_bytes(400, 300),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 413
    assert "larger than" in r.json["error"]


def test_missing_file_field_and_wrong_content_type(client, game) -> None:
    url = f"/api/games/{game['game']['id']}/rounds/current/table"
    r = client.post(url, data={"other": "x"}, headers=ADMIN)
    assert r.status_code == 400
    r = client.post(url, json={"photo": "x"}, headers=ADMIN)
    assert r.status_code == 415


def test_upload_is_stored_outside_static(app, client, game, tmp_path) -> None:
    r = client.post(
        f"/api/games/{game['game']['id']}/rounds/current/table",
        data=jpeg_bytes(),
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 201
    stored = list((tmp_path / "uploads").rglob("*.jpg"))
    assert len(stored) == 1
    assert app.static_folder not in str(stored[0])
    image = client.get(r.json["state"]["round"]["table"]["image"])
    assert image.status_code == 200 and image.data == jpeg_bytes()
