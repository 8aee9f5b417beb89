"""Robust loading: EXIF rotation, grayscale, RGBA, 16-bit, truncated, empty, not an image."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from dominocam.errors import UserInputError
from dominocam.vision.image_io import decode_image, load_image


def marked_image(width: int = 40, height: int = 20) -> np.ndarray:
    """Left half white, right half black: shows where a rotation went."""
    image = np.zeros((height, width, 3), np.uint8)
    image[:, : width // 2] = 255
    return image


def with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """Insert an APP1 EXIF segment carrying only the orientation tag after SOI."""
    entry = struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + struct.pack(">H", 1) + entry + b"\x00" * 4
    payload = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def encode(image: np.ndarray, ext: str) -> bytes:
    ok, buf = cv2.imencode(ext, image)
    assert ok
    return buf.tobytes()


@pytest.mark.parametrize(
    ("orientation", "shape", "white_row_col"),
    [
        (1, (20, 40), (10, 5)),  # as stored: white on the left
        (3, (20, 40), (10, 35)),  # turned 180: white on the right
        (6, (40, 20), (5, 10)),  # turned 90 clockwise: white on top
        (8, (40, 20), (35, 10)),  # turned 90 counter-clockwise: white at the bottom
    ],
)
def test_exif_orientation_applied(tmp_path: Path, orientation, shape, white_row_col):
    path = tmp_path / "photo.jpg"
    path.write_bytes(with_exif_orientation(encode(marked_image(), ".jpg"), orientation))
    image = load_image(path)
    assert image.shape == (*shape, 3) and image.dtype == np.uint8
    row, col = white_row_col
    assert image[row, col].mean() > 200


def test_grayscale_png_becomes_bgr(tmp_path: Path):
    path = tmp_path / "grey.png"
    cv2.imwrite(str(path), np.full((10, 12), 77, np.uint8))
    image = load_image(path)
    assert image.shape == (10, 12, 3) and (image == 77).all()


def test_rgba_png_is_composited_on_white(tmp_path: Path):
    rgba = np.zeros((10, 10, 4), np.uint8)
    rgba[..., 2] = 255  # red (BGRA)
    rgba[:, :5, 3] = 255  # left opaque, right transparent
    path = tmp_path / "alpha.png"
    cv2.imwrite(str(path), rgba)
    image = load_image(path)
    assert image.shape == (10, 10, 3)
    assert image[0, 0].tolist() == [0, 0, 255]
    assert image[0, 9].tolist() == [255, 255, 255]


def test_sixteen_bit_png_becomes_eight_bit(tmp_path: Path):
    path = tmp_path / "deep.png"
    cv2.imwrite(str(path), np.full((4, 4, 3), 65535, np.uint16))
    image = load_image(path)
    assert image.dtype == np.uint8 and (image == 255).all()


def test_truncated_jpeg_is_an_error(tmp_path: Path):
    noise = np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    data = encode(noise, ".jpg")
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: int(len(data) * 0.7)])
    with pytest.raises(UserInputError, match="truncated"):
        load_image(path)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"", "empty"),
        (b"this is not an image at all", "not an image"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 30, "not an image"),
    ],
)
def test_bad_files_are_user_errors(tmp_path: Path, content, match):
    path = tmp_path / "bad.jpg"
    path.write_bytes(content)
    with pytest.raises(UserInputError, match=match) as info:
        load_image(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_missing_file_and_folder(tmp_path: Path):
    with pytest.raises(UserInputError, match="no such file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(UserInputError, match="folder"):
        load_image(tmp_path)


def test_large_and_odd_sizes_decode():
    image = decode_image(encode(np.zeros((3001, 17, 3), np.uint8), ".png"))
    assert image.shape == (3001, 17, 3)
