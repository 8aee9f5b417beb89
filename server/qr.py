"""QR codes for player links, as inline SVG (segno: pure Python, no image libraries)."""

from __future__ import annotations

import io

import segno


def qr_svg(text: str, scale: int = 6) -> bytes:
    """An SVG QR code of `text` (error correction M, 4-module quiet zone)."""
    buffer = io.BytesIO()
    segno.make(text, error="m", micro=False).save(
        buffer, kind="svg", scale=scale, border=4, dark="#000", light="#fff", xmldecl=False
    )
    return buffer.getvalue()
