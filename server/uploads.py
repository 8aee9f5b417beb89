"""Safe image uploads: type by magic bytes, size from the header before decoding, then OpenCV.

The order matters: the pixel count is read from the file header and checked against
`MAX_IMAGE_PIXELS` before any decoding, so a PNG bomb (a tiny file declaring a huge image) or
a 100-megapixel photo is refused without allocating its pixels. Memory per decode is bounded
too: an image over `MAX_DECODE_PIXELS` is decoded at 1/2, 1/4 or 1/8 of its size when it is
a JPEG (libjpeg scales while decoding, so the full-size pixels never exist; the reader works
on far fewer pixels anyway), and refused with 413 when it is a PNG or WebP (OpenCV would
decode those at full size first). Reading the JPEG header costs a bounded time whatever the
file holds: runs of fill bytes are skipped in one step and at most `MAX_JPEG_MARKERS` markers
are read before the image data. A JPEG must end with its EOI marker after the scan starts, so
a truncated upload is refused instead of being decoded into a half-grey picture. Files are
stored under the instance folder, never under static/, readable by the owner only.

No photo is kept with its metadata (`without_metadata`): a phone's JPEG carries EXIF (where
it was taken, when, with which phone), XMP, a thumbnail, sometimes more images after its end.
A photo that carries anything but its pixels is kept re-encoded from the decoded pixels,
which OpenCV has already turned upright by the EXIF orientation, so the photo shown is the
one the reader saw; a photo without any (what OpenCV writes, a camera frame) is kept byte
for byte.
"""

from __future__ import annotations

import os
import re
import secrets
import struct
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from dominocam.errors import Refused
from dominocam.i18n import _

FORMATS = {"jpeg": ".jpg", "png": ".png", "webp": ".webp"}

# A real JPEG has a few dozen markers before its scan; thousands mean a hostile file.
MAX_JPEG_MARKERS = 1000
_FILL_BYTES = re.compile(rb"\xff+")
# The reduced decodes OpenCV offers for JPEG, by scale.
_REDUCED = {2: "IMREAD_REDUCED_COLOR_2", 4: "IMREAD_REDUCED_COLOR_4", 8: "IMREAD_REDUCED_COLOR_8"}


class UploadError(Refused):
    """A refused upload with its stable `code` and `params`; `status` is the HTTP status
    (400, 413, 415, 503 or 507)."""

    def __init__(self, message: str, code: str, status: int = 400, **params: Any) -> None:
        super().__init__(message, code, **params)
        self.status = status


@dataclass(frozen=True)
class DecodedImage:
    """An accepted upload: the original bytes, their format and the decoded BGR pixels.

    Attributes:
        data: the file as uploaded (`decode_upload`), or as it is kept (`without_metadata`).
        format: "jpeg", "png" or "webp".
        width, height: pixels of `data`, from its header (before any EXIF rotation).
        pixels: uint8 array (H, W, 3), BGR, EXIF orientation applied by OpenCV; the photo
            at 1/`scale` of its size.
        scale: 1, or 2, 4, 8 for a large JPEG decoded at reduced size.
    """

    data: bytes
    format: str
    width: int
    height: int
    pixels: np.ndarray
    scale: int = 1


def sniff_format(data: bytes) -> str:
    """The image format from the magic bytes.

    Raises:
        UploadError: 400 for an empty file, 415 for anything that is not JPEG, PNG or WebP.
    """
    if not data:
        raise UploadError(
            _("the file is empty (0 bytes); choose a photo and try again"), "empty_file"
        )
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:12] in (b"ftypheic", b"ftypheix", b"ftypmif1", b"ftyphevc"):
        raise UploadError(
            _(
                "HEIC photos are not supported; set the camera to 'Most compatible' (JPEG) or "
                "upload a JPEG or PNG"
            ),
            "heic_not_supported",
            415,
        )
    raise UploadError(
        _("this file is not an image; upload a JPEG, PNG or WebP photo"), "not_an_image", 415
    )


def image_size(data: bytes, fmt: str) -> tuple[int, int]:
    """(width, height) read from the header alone.

    Raises:
        UploadError: 400 when the header is missing, damaged or truncated.
    """
    try:
        if fmt == "png":
            return _png_size(data)
        if fmt == "jpeg":
            return _jpeg_size(data)
        return _webp_size(data)
    except (struct.error, IndexError):
        raise UploadError(
            _("the {fmt} file is damaged or cut short").format(fmt=fmt.upper()),
            "damaged_image",
            format=fmt,
        ) from None


def _png_size(data: bytes) -> tuple[int, int]:
    if data[12:16] != b"IHDR":
        raise UploadError(
            _("the PNG file is damaged: its header (IHDR) is missing"),
            "damaged_image",
            format="png",
        )
    width, height = struct.unpack(">II", data[16:24])
    if b"IEND" not in data[-16:]:
        raise UploadError(
            _("the PNG file is cut short (no IEND chunk); upload it again"),
            "truncated_image",
            format="png",
        )
    return width, height


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """Walk the marker segments up to the first scan; size from SOFn, EOI required after it.

    Bounded work: a run of fill bytes (0xFF) is one regex step, and at most
    `MAX_JPEG_MARKERS` markers are read, so a file of filler fails fast."""
    pos = 2
    size: tuple[int, int] | None = None
    markers = 0
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise UploadError(
                _("the JPEG file is damaged (bad marker)"), "damaged_image", format="jpeg"
            )
        fill = _FILL_BYTES.match(data, pos)
        pos = fill.end() - 1 if fill else pos  # the last 0xFF of the run starts the marker
        if pos + 4 > len(data):
            break
        markers += 1
        if markers > MAX_JPEG_MARKERS:
            raise UploadError(
                _(
                    "the JPEG file is damaged: more than {max_jpeg_markers} markers before its "
                    "image data"
                ).format(max_jpeg_markers=MAX_JPEG_MARKERS),
                "damaged_image",
                format="jpeg",
            )
        marker = data[pos + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if length < 2:
            raise UploadError(
                _("the JPEG file is damaged (bad segment length)"), "damaged_image", format="jpeg"
            )
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            size = (width, height)
        if marker == 0xDA:  # start of scan: the entropy-coded data follows
            if size is None:
                raise UploadError(
                    _("the JPEG file is damaged: no frame header before the scan"),
                    "damaged_image",
                    format="jpeg",
                )
            if data.find(b"\xff\xd9", pos + 2 + length) < 0:
                raise UploadError(
                    _("the JPEG file is cut short (no end marker); upload it again"),
                    "truncated_image",
                    format="jpeg",
                )
            return size
        pos += 2 + length
    raise UploadError(
        _("the JPEG file is cut short before its image data; upload it again"),
        "truncated_image",
        format="jpeg",
    )


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        b = data[21:25]
        width = 1 + (((b[1] & 0x3F) << 8) | b[0])
        height = 1 + (((b[3] & 0xF) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
        return width, height
    if chunk == b"VP8X":
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return width, height
    raise UploadError(_("the WebP file is damaged: unknown chunk"), "damaged_image", format="webp")


def decode_scale(fmt: str, width: int, height: int, max_decode_pixels: int) -> int:
    """1 when the image may be decoded at full size, else the JPEG reduction (2, 4 or 8)
    that brings it within `max_decode_pixels`.

    Raises:
        UploadError: 413 for a PNG or WebP over the limit (no reduced decode exists for them).
    """
    pixels = width * height
    if pixels <= max_decode_pixels:
        return 1
    if fmt == "jpeg":
        for scale in _REDUCED:
            if pixels / (scale * scale) <= max_decode_pixels:
                return scale
    raise UploadError(
        _(
            "the {fmt} image is {width}x{height} = {megapixels:.0f} megapixels; {fmt} images over "
            "{limit:.0f} megapixels are not decoded: send a JPEG or a smaller image"
        ).format(
            fmt=fmt.upper(),
            width=width,
            height=height,
            megapixels=pixels / 1e6,
            limit=max_decode_pixels / 1e6,
        ),
        "image_too_large_to_decode",
        413,
        format=fmt,
        width=width,
        height=height,
        limit_pixels=max_decode_pixels,
    )


def decode_upload(
    data: bytes, max_pixels: int, max_decode_pixels: int | None = None
) -> DecodedImage:
    """Check and decode an uploaded photo.

    Args:
        data: the uploaded bytes.
        max_pixels: the largest width*height accepted.
        max_decode_pixels: the largest width*height decoded at full size (default:
            `max_pixels`); larger JPEGs are decoded reduced, larger PNG/WebP refused.

    Raises:
        UploadError: with a message a person can act on; never lets OpenCV see a bomb.
    """
    import cv2

    fmt = sniff_format(data)
    width, height = image_size(data, fmt)
    if width <= 0 or height <= 0:
        raise UploadError(
            _("the {fmt} file declares an empty image ({width}x{height})").format(
                fmt=fmt.upper(), width=width, height=height
            ),
            "empty_image",
            format=fmt,
            width=width,
            height=height,
        )
    if width * height > max_pixels:
        raise UploadError(
            _(
                "the image is {width}x{height} = {megapixels:.0f} megapixels; the limit is "
                "{limit:.0f} megapixels: send a smaller photo"
            ).format(
                width=width, height=height, megapixels=width * height / 1e6, limit=max_pixels / 1e6
            ),
            "image_too_large",
            413,
            width=width,
            height=height,
            limit_pixels=max_pixels,
        )
    scale = decode_scale(fmt, width, height, max_decode_pixels or max_pixels)
    flag = cv2.IMREAD_COLOR if scale == 1 else getattr(cv2, _REDUCED[scale])
    try:
        pixels = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
    except cv2.error:
        pixels = None
    if pixels is None or pixels.size == 0:
        raise UploadError(
            _("the {fmt} file could not be decoded; it may be damaged").format(fmt=fmt.upper()),
            "undecodable_image",
            format=fmt,
        )
    return DecodedImage(
        data=data, format=fmt, width=width, height=height, pixels=pixels, scale=scale
    )


# What a photo may hold besides its pixels and still be kept as uploaded. JPEG: the JFIF
# header (without a thumbnail), Adobe's colour transform, and the segments that decode it.
_JPEG_PLAIN = {0xDB, 0xC4, 0xCC, 0xDD, 0xDC, 0xDA} | _SOF
_JPEG_APP0, _JPEG_APP14, _JPEG_EOI = 0xE0, 0xEE, 0xD9
# After the first scan a 0xFF byte is stuffing (00), a restart marker (D0-D7), fill (FF) or
# a marker; any marker other than these ends the plain file.
_JPEG_MARKER = re.compile(rb"\xff(?=[^\x00\xd0-\xd7\xff])")
# PNG: the image and its colour; not text, time, EXIF, ICC profiles (they hold text) or any
# chunk nobody here knows.
_PNG_PLAIN = {b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"sBIT"}
# Re-encoding quality (JPEG, WebP): photos of tiles stay sharp enough to check by eye.
STORED_QUALITY = 92


def _jpeg_is_plain(data: bytes) -> bool:
    """True when a JPEG holds nothing but its image (see `_JPEG_PLAIN`)."""
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker = data[pos + 1]
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        segment = data[pos + 4 : pos + 2 + length]
        if marker == _JPEG_APP0:
            # JFIF with no thumbnail (its last two bytes give the thumbnail's size).
            if not (segment[:5] == b"JFIF\0" and length == 16 and segment[12:14] == b"\0\0"):
                return False
        elif marker == _JPEG_APP14:
            if segment[:5] != b"Adobe":
                return False
        elif marker not in _JPEG_PLAIN:
            return False
        pos += 2 + length
        if marker == 0xDA:
            break
    else:
        return False
    for match in _JPEG_MARKER.finditer(data, pos):
        marker = data[match.start() + 1]
        if marker == _JPEG_EOI:
            return match.start() + 2 == len(data)  # nothing after the image
        if marker not in _JPEG_PLAIN:
            return False
    return False


def _png_is_plain(data: bytes) -> bool:
    """True when a PNG's chunks are all image and colour chunks (`_PNG_PLAIN`)."""
    pos = 8
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind not in _PNG_PLAIN:
            return False
        pos += 12 + length
        if kind == b"IEND":
            return pos == len(data)
    return False


def _webp_is_plain(data: bytes) -> bool:
    """True for a simple WebP: one image chunk and nothing else (an extended `VP8X` file
    may carry EXIF, XMP or an ICC profile)."""
    (size,) = struct.unpack("<I", data[4:8])
    return data[12:16] in (b"VP8 ", b"VP8L") and size + 8 == len(data)


def has_metadata(data: bytes, fmt: str) -> bool:
    """True unless the file surely holds nothing but its image (checked by what is allowed,
    so anything unknown counts as metadata)."""
    plain = {"jpeg": _jpeg_is_plain, "png": _png_is_plain, "webp": _webp_is_plain}[fmt]
    try:
        return not plain(data)
    except struct.error:
        return True


def without_metadata(image: DecodedImage) -> DecodedImage:
    """The photo as it is kept: `image` itself when it carries no metadata, else its
    decoded pixels (upright by the EXIF orientation) encoded anew in its format, with no
    EXIF, XMP, comment, thumbnail or trailing data."""
    import cv2

    if not has_metadata(image.data, image.format):
        return image
    options = {
        "jpeg": [cv2.IMWRITE_JPEG_QUALITY, STORED_QUALITY],
        "webp": [cv2.IMWRITE_WEBP_QUALITY, STORED_QUALITY],
        "png": [],
    }[image.format]
    ok, encoded = cv2.imencode(FORMATS[image.format], image.pixels, options)
    if not ok:
        raise UploadError(
            _("the {fmt} file could not be decoded; it may be damaged").format(
                fmt=image.format.upper()
            ),
            "undecodable_image",
            format=image.format,
        )
    height, width = image.pixels.shape[:2]
    return replace(image, data=encoded.tobytes(), width=width, height=height, scale=1)


def game_folder(upload_root: str | Path, game_id: int) -> Path:
    """Where a game's photos (and camera frames) are kept."""
    return Path(upload_root) / f"game-{game_id}"


def store(folder: Path, prefix: str, image: DecodedImage) -> str:
    """Write the original bytes under `folder`; return the file name (no directories)."""
    return store_bytes(
        folder, f"{prefix}-{secrets.token_hex(8)}{FORMATS[image.format]}", image.data
    )


def store_bytes(folder: Path, name: str, data: bytes) -> str:
    """Write `data` as `folder/name`, replacing a file of that name whole (never half
    written: readers see the old file or the new one); returns `name`."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = folder / (name + ".part")
    # Owner-only from the first byte (photos of hands are secrets until the round ends).
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    tmp.replace(folder / name)
    return name


def read_request_file(files: object, field: str = "photo") -> bytes:
    """The bytes of the uploaded file field (multipart), or a clear 400."""
    storage = getattr(files, "get", lambda _k: None)(field)
    if storage is None:
        raise UploadError(
            _("no file in the request: send it as multipart field '{field}'").format(field=field),
            "no_file",
            field=field,
        )
    return storage.read()
