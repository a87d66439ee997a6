"""Served pixels: Noru's own PNG writer is lossless and valid, scaling keeps the aspect."""

from __future__ import annotations

import io
import os
import zlib

import pytest
from PIL import Image, ImageDraw

from noru.imaging import encode_png, fit_long_edge, serve


def screenish(mode: str, size: tuple[int, int]) -> Image.Image:
    """Flat areas, text and a strip of noise: what a screen and a photo have."""
    image = Image.new(mode, size, "#1e1e1e")
    draw = ImageDraw.Draw(image)
    for row in range(0, size[1], 14):
        draw.text((4, row), f"line {row}: def encode_png(image) -> bytes", fill="#d4d4d4")
    noise_height = max(1, size[1] // 5)
    noise = Image.frombytes(
        mode, (size[0], noise_height), os.urandom(size[0] * noise_height * len(mode))
    )
    image.paste(noise, (0, size[1] - noise_height))
    return image


def decode(png: bytes) -> Image.Image:
    checked = Image.open(io.BytesIO(png))
    checked.verify()  # every chunk's CRC
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize("size", [(1, 1), (3, 7), (640, 400), (1568, 980)])
def test_encode_png_round_trips_every_pixel(mode: str, size: tuple[int, int]) -> None:
    image = screenish(mode, size)
    decoded = decode(encode_png(image))
    assert decoded.mode == mode and decoded.size == size
    assert decoded.tobytes() == image.tobytes()


def test_encode_png_writes_a_standard_png_stream() -> None:
    png = encode_png(screenish("RGB", (5, 2)))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert png[12:16] == b"IHDR" and png.endswith(b"IEND\xaeB`\x82")
    # One IDAT holding one zlib stream of filter-byte-prefixed scanlines.
    length = int.from_bytes(png[33:37], "big")
    assert png[37:41] == b"IDAT"
    scanlines = zlib.decompress(png[41 : 41 + length])
    assert len(scanlines) == 2 * (1 + 5 * 3)
    assert scanlines[0] == 0 and scanlines[16] == 0


@pytest.mark.parametrize("mode", ["L", "P", "LA", "I;16"])
def test_other_modes_still_encode_losslessly(mode: str) -> None:
    image = Image.new(mode, (20, 10))
    ImageDraw.Draw(image).rectangle((2, 2, 12, 7), fill=200 if mode != "LA" else (200, 100))
    decoded = decode(encode_png(image))
    assert decoded.mode == mode and decoded.size == (20, 10)
    if mode == "P":  # Pillow may renumber the palette; the colours are what count
        decoded, image = decoded.convert("RGB"), image.convert("RGB")
    assert decoded.tobytes() == image.tobytes()


def test_encode_png_is_smaller_than_the_raw_pixels_on_screen_content() -> None:
    image = screenish("RGB", (1568, 980))
    assert len(encode_png(image)) < len(image.tobytes()) / 4


def test_serve_scales_the_long_edge_and_says_from_what() -> None:
    image = screenish("RGB", (2560, 1600))
    served = serve(image, 1568)
    assert (served.width, served.height) == (1568, 980)
    assert served.downscaled_from == (2560, 1600)
    assert decode(served.png).size == (1568, 980)
    original = screenish("RGB", (800, 600))
    small = serve(original, 1568)
    assert (small.width, small.height, small.downscaled_from) == (800, 600, None)
    assert decode(small.png).tobytes() == original.tobytes()


def test_fit_long_edge_keeps_the_aspect_and_never_reaches_zero() -> None:
    assert fit_long_edge(2560, 1600, 1568) == (1568, 980)
    assert fit_long_edge(1600, 2560, 1568) == (980, 1568)
    assert fit_long_edge(100, 50, 1568) == (100, 50)
    assert fit_long_edge(10000, 1, 1568) == (1568, 1)
