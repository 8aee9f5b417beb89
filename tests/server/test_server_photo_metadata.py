"""No photo is kept or served with its metadata (issue 33, item 10): a phone's JPEG with an
EXIF GPS block comes back without it, turned upright as the reader saw it."""

from __future__ import annotations

import struct

import cv2
import numpy as np
import pytest
from server_factories import ADMIN, jpeg_bytes, png_bytes, png_chunk

from dominocam.server import uploads

# 47°29'N 19°03'E, as a phone writes it: the bytes that must not come back.
LATITUDE = struct.pack("<6I", 47, 1, 29, 1, 5999, 100)
LONGITUDE = struct.pack("<6I", 19, 1, 3, 1, 1234, 100)


def exif_segment(orientation: int) -> bytes:
    """An APP1 Exif segment: IFD0 with Orientation and a GPS IFD (latitude, longitude),
    little-endian TIFF, as phones write it."""
    ifd0 = 8
    gps = ifd0 + 2 + 2 * 12 + 4
    values = gps + 2 + 4 * 12 + 4
    tiff = b"II*\x00" + struct.pack("<I", ifd0)
    tiff += struct.pack("<H", 2)
    tiff += struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)  # Orientation
    tiff += struct.pack("<HHII", 0x8825, 4, 1, gps)  # GPSInfo
    tiff += struct.pack("<I", 0)
    tiff += struct.pack("<H", 4)
    tiff += struct.pack("<HHI", 0x0001, 2, 2) + b"N\x00\x00\x00"  # GPSLatitudeRef
    tiff += struct.pack("<HHII", 0x0002, 5, 3, values)  # GPSLatitude
    tiff += struct.pack("<HHI", 0x0003, 2, 2) + b"E\x00\x00\x00"  # GPSLongitudeRef
    tiff += struct.pack("<HHII", 0x0004, 5, 3, values + len(LATITUDE))  # GPSLongitude
    tiff += struct.pack("<I", 0)
    tiff += LATITUDE + LONGITUDE
    payload = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def phone_jpeg(orientation: int = 6) -> bytes:
    """A 160x120 landscape JPEG, its left half white, with EXIF orientation and GPS, an XMP
    block, a comment and a second image after its end (as phones append depth maps)."""
    image = np.zeros((120, 160, 3), np.uint8)
    image[:, :80] = 255
    ok, encoded = cv2.imencode(".jpg", image)
    assert ok
    plain = encoded.tobytes()
    xmp = b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>GPS 47.49</x:xmpmeta>"
    app1_xmp = b"\xff\xe1" + struct.pack(">H", len(xmp) + 2) + xmp
    comment = b"\xff\xfe" + struct.pack(">H", 2 + 9) + b"Ana's 14s"
    return plain[:2] + exif_segment(orientation) + app1_xmp + comment + plain[2:] + plain


def _leaks(data: bytes) -> list[str]:
    found = [
        name
        for name, needle in [
            ("Exif", b"Exif"),
            ("latitude", LATITUDE),
            ("longitude", LONGITUDE),
            ("XMP", b"xmpmeta"),
            ("comment", b"Ana's 14s"),
            ("text chunk", b"GPS"),
        ]
        if needle in data
    ]
    if data.count(b"\xff\xd8") > 1:
        found.append("a second image")
    return found


def _upright(data: bytes) -> np.ndarray:
    """The served photo as a browser shows it: no EXIF is left to turn it."""
    assert not _leaks(data), _leaks(data)
    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    assert pixels is not None
    return pixels


def test_a_table_photo_is_served_without_its_exif_and_upright(client, game, tmp_path) -> None:
    gid = game["game"]["id"]
    photo = phone_jpeg(orientation=6)  # the phone was held turned: 90 degrees clockwise
    assert len(_leaks(photo)) == 7
    r = client.post(
        f"/api/games/{gid}/rounds/current/table",
        data=photo,
        content_type="image/jpeg",
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    # The reader saw it upright: 120 wide, 160 high.
    assert r.json["scene"]["image"] == {"width": 120, "height": 160}
    served = client.get(r.json["state"]["round"]["table"]["image"])
    assert served.status_code == 200
    pixels = _upright(served.data)
    assert pixels.shape[:2] == (160, 120)
    # Turned clockwise, the white left half is now on top.
    assert pixels[:70].mean() > 200 and pixels[90:].mean() < 50
    stored = list((tmp_path / "uploads").rglob("table-*"))
    assert len(stored) == 1 and stored[0].read_bytes() == served.data


def test_a_hand_photo_is_kept_without_its_exif(client, game, links, tmp_path) -> None:
    hand = f"/api/hand/{links['Ana']}"
    photo = phone_jpeg(orientation=8)  # 90 degrees counter-clockwise
    r = client.post(f"{hand}/photo", data={"photo": (__import__("io").BytesIO(photo), "h.jpg")})
    assert r.status_code == 201, r.json
    pixels = _upright(client.get(f"{hand}/image").data)
    assert pixels.shape[:2] == (160, 120)
    assert pixels[90:].mean() > 200 and pixels[:70].mean() < 50  # white at the bottom
    for path in (tmp_path / "uploads").rglob("*"):
        if path.is_file():
            assert not _leaks(path.read_bytes()), path


def test_png_text_and_exif_chunks_are_not_kept(client, game, tmp_path) -> None:
    plain = png_bytes(64, 48)
    iend = plain.rindex(b"IEND") - 4
    extra = png_chunk(b"tEXt", b"Comment\x00GPS 47.49") + png_chunk(b"eXIf", exif_segment(1)[10:])
    photo = plain[:iend] + extra + plain[iend:]
    r = client.post(
        f"/api/games/{game['game']['id']}/rounds/current/table",
        data=photo,
        content_type="image/png",
        headers=ADMIN,
    )
    assert r.status_code == 201, r.json
    (stored,) = (tmp_path / "uploads").rglob("table-*.png")
    data = stored.read_bytes()
    assert b"tEXt" not in data and b"eXIf" not in data and not _leaks(data)
    assert _upright(data).shape[:2] == (48, 64)


@pytest.mark.parametrize(
    ("data", "fmt"),
    [(jpeg_bytes(), "jpeg"), (png_bytes(), "png")],
)
def test_a_photo_without_metadata_is_kept_as_it_came(data, fmt) -> None:
    image = uploads.decode_upload(data, 50_000_000)
    assert uploads.without_metadata(image).data == data


def test_anything_unknown_counts_as_metadata() -> None:
    plain = jpeg_bytes()
    reserved = b"\xff\xf0\x00\x06secret"  # a JPGn segment nobody reads, before the frame
    assert uploads.has_metadata(plain[:2] + reserved + plain[2:], "jpeg")
    assert uploads.has_metadata(plain + b"trailing", "jpeg")
    png = png_bytes()
    iend = png.rindex(b"IEND") - 4
    assert uploads.has_metadata(png[:iend] + png_chunk(b"zzZz", b"x") + png[iend:], "png")
    assert uploads.has_metadata(png + b"\x00", "png")
