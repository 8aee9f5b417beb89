"""Robust loading of photos: any size, EXIF rotation applied, grayscale/RGBA/16-bit accepted.

Everything becomes a BGR uint8 HxWx3 array (OpenCV's order); anything that cannot be read as
a whole image (missing, empty, not an image, truncated) raises UserInputError with one line
that names the file.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from dominocam.errors import UserInputError

# The file names taken for pictures wherever a folder is read (`dominocam read DIR`, the
# measuring sets, training data): what OpenCV decodes.
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff"})


def _jpeg_truncated(data: bytes) -> bool:
    """True for a JPEG whose entropy-coded data has no end-of-image marker after it.

    The scan data cannot contain FF D9 (0xFF bytes are stuffed), so a complete file has an
    EOI after its last start-of-scan; a cut file has none (libjpeg would fill the rest grey).
    """
    last_sos = data.rfind(b"\xff\xda")
    if last_sos < 0:
        return True
    return data.find(b"\xff\xd9", last_sos) < 0


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """Decode encoded image bytes into a BGR uint8 HxWx3 array, EXIF orientation applied.

    Args:
        data: the file's bytes (JPEG, PNG, WebP, BMP, TIFF... whatever OpenCV reads).
        name: how to name the input in error messages.

    Raises:
        UserInputError: empty, not an image, or a truncated JPEG.
    """
    import cv2

    if not data:
        raise UserInputError(f"{name}: the file is empty (0 bytes)")
    if data[:3] == b"\xff\xd8\xff" and _jpeg_truncated(data):
        raise UserInputError(f"{name}: the JPEG is truncated or corrupt")
    buffer = np.frombuffer(data, dtype=np.uint8)
    try:
        # IMREAD_COLOR applies the EXIF orientation, turns grey into BGR, drops alpha and
        # scales 16-bit to 8-bit.
        image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    except cv2.error as error:
        raise UserInputError(f"{name}: cannot decode the image ({error.err})") from error
    if image is None or image.size == 0:
        raise UserInputError(f"{name}: not an image OpenCV can read, or the file is corrupt")
    if _has_alpha(buffer):
        image = _composite_alpha(buffer, image, cv2)
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(image)


def _has_alpha(buffer: np.ndarray) -> bool:
    """Cheap check for a PNG whose colour type carries alpha (4 = grey+A, 6 = RGBA)."""
    head = buffer[:26].tobytes()
    return head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 26 and head[25] in (4, 6)


def _composite_alpha(buffer: np.ndarray, fallback: np.ndarray, cv2: object) -> np.ndarray:
    """Put a transparent image on white, so transparent areas do not turn black."""
    raw = cv2.imdecode(buffer, cv2.IMREAD_UNCHANGED)  # type: ignore[attr-defined]
    if raw is None or raw.ndim != 3 or raw.shape[2] != 4:
        return fallback
    scale = 255.0 if raw.dtype == np.uint8 else 65535.0
    rgb = raw[:, :, :3].astype(np.float32) * (255.0 / scale)
    alpha = raw[:, :, 3:4].astype(np.float32) / scale
    out = rgb * alpha + 255.0 * (1.0 - alpha)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Read an image file as BGR uint8 HxWx3, EXIF orientation applied.

    Raises:
        UserInputError: missing, a folder, unreadable, empty, not an image, or truncated.
    """
    file = Path(path)
    if not file.exists():
        raise UserInputError(f"{path}: no such file")
    if file.is_dir():
        raise UserInputError(f"{path}: is a folder, not an image")
    try:
        data = file.read_bytes()
    except OSError as error:
        raise UserInputError(f"{path}: cannot read the file ({error.strerror})") from error
    return decode_image(data, str(path))
