"""Served pixels: Noru's own PNG writer is lossless and valid, scaling keeps the aspect."""

from __future__ import annotations

import io
import os
import threading
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image, ImageChops, ImageCms, ImageDraw

from noru.imaging import encode_png, fill_png, fit_long_edge, scale, serve


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


@pytest.fixture(scope="module")
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=2) as executor:
        yield executor


def largest_difference(a: Image.Image, b: Image.Image) -> int:
    assert a.size == b.size and a.mode == b.mode
    return max(high for _, high in ImageChops.difference(a, b).getextrema())


@pytest.mark.parametrize(
    ("source", "size"),
    [
        ((2560, 1600), (1568, 980)),
        ((3840, 2160), (1568, 882)),
        ((2000, 1999), (1568, 1567)),  # a cut between source rows
        ((1600, 2560), (980, 1568)),  # portrait
        ((5120, 1440), (1568, 441)),
    ],
)
def test_scaling_on_two_threads_gives_the_single_call_result(
    pool: ThreadPoolExecutor, source: tuple[int, int], size: tuple[int, int]
) -> None:
    noise = Image.frombytes("RGB", source, os.urandom(source[0] * source[1] * 3))
    for image in (noise, screenish("RGB", source)):
        whole = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
        split = scale(image, size, pool)
        # The same pixels, but where a coefficient rounds the other way; no seam.
        assert largest_difference(whole, split) <= 1


@pytest.mark.parametrize(
    ("source", "size"),
    [((800, 600), (640, 480)), ((2560, 1600), (512, 320)), ((2560, 1600), (2000, 1))],
)
def test_small_images_and_big_shrinks_are_scaled_in_one_call(
    pool: ThreadPoolExecutor, source: tuple[int, int], size: tuple[int, int]
) -> None:
    image = screenish("RGB", source)
    whole = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
    assert scale(image, size, pool).tobytes() == whole.tobytes()


def test_serve_with_a_pool_serves_the_same_size(pool: ThreadPoolExecutor) -> None:
    served = serve(screenish("RGB", (2560, 1600)), 1568, pool)
    assert (served.width, served.height, served.downscaled_from) == (1568, 980, (2560, 1600))
    assert decode(served.png).size == (1568, 980)


@pytest.mark.parametrize("mode", ["RGBA", "LA", "P"])
def test_modes_pillow_treats_per_call_are_scaled_in_one_call(
    pool: ThreadPoolExecutor, mode: str
) -> None:
    # Pillow premultiplies alpha per call and keeps a palette only in its own
    # result: halves would differ from the whole.
    source = (2560, 1600)
    image = Image.frombytes("RGBA", source, os.urandom(source[0] * source[1] * 4)).convert(mode)
    whole = image.resize((1568, 980), Image.Resampling.LANCZOS, reducing_gap=2.0)
    scaled = scale(image, (1568, 980), pool)
    assert scaled.mode == whole.mode and scaled.tobytes() == whole.tobytes()
    if mode == "P":
        assert scaled.getpalette() == whole.getpalette()


def test_a_busy_pool_or_a_call_from_inside_it_still_scales(pool: ThreadPoolExecutor) -> None:
    image = screenish("RGB", (2560, 1600))
    whole = image.resize((1568, 980), Image.Resampling.LANCZOS, reducing_gap=2.0)
    # Both of the pool's threads are blocked until the scaling is done.
    release = threading.Event()
    blockers = [pool.submit(release.wait, 60) for _ in range(2)]
    try:
        assert largest_difference(scale(image, (1568, 980), pool), whole) <= 1
    finally:
        release.set()
        for blocker in blockers:
            blocker.result()
    with ThreadPoolExecutor(max_workers=1) as one:
        inside = one.submit(scale, image, (1568, 980), one).result(timeout=60)
    assert largest_difference(inside, whole) <= 1


def test_an_rgba_image_too_wide_for_pillows_row_buffer_still_encodes() -> None:
    image = Image.frombytes("RGBA", (16_400, 2), os.urandom(16_400 * 2 * 4))
    assert decode(encode_png(image)).tobytes() == image.tobytes()


def test_a_colour_profile_and_a_transparent_colour_are_kept() -> None:
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    image = screenish("RGB", (40, 20))
    image.info["icc_profile"] = profile
    assert decode(encode_png(image)).info.get("icc_profile") == profile
    keyed = screenish("RGB", (40, 20))
    keyed.info["transparency"] = (30, 30, 30)
    assert decode(encode_png(keyed)).info.get("transparency") == (30, 30, 30)


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize("writer", ["ours", "segmented", "pillow"])
def test_boxes_filled_in_a_png_are_what_drawing_them_gives(mode: str, writer: str) -> None:
    image = Image.effect_noise((301, 207), 80).convert(mode)
    if writer in ("ours", "segmented"):
        png = encode_png(image, segmented=writer == "segmented")
    else:  # filtered rows, as Pillow writes them: not patched in place
        out = io.BytesIO()
        image.save(out, format="PNG")
        png = out.getvalue()
    boxes = [(10, 20, 60, 35), (290, 200, 400, 260), (-5, -5, 3, 4), (50, 50, 50, 80)]
    filled = Image.open(io.BytesIO(fill_png(png, boxes, (0, 0, 0))))
    expected = image.copy()
    draw = ImageDraw.Draw(expected)
    for left, top, right, bottom in boxes:
        if right > left and bottom > top:
            draw.rectangle((left, top, right - 1, bottom - 1), fill=(0, 0, 0))
    assert filled.mode == mode and filled.tobytes() == expected.tobytes()


def _idat(png: bytes) -> bytes:
    at, data = 8, b""
    while at < len(png):
        size = int.from_bytes(png[at : at + 4], "big")
        if png[at + 4 : at + 8] == b"IDAT":
            data += png[at + 8 : at + 8 + size]
        at += 12 + size
    return data


def test_a_segmented_png_is_a_plain_png_and_stays_one_fill_after_fill() -> None:
    image = Image.effect_noise((640, 333), 60).convert("RGB")
    png = encode_png(image, segmented=True)
    assert Image.open(io.BytesIO(png)).tobytes() == image.tobytes()
    expected = image.copy()
    draw = ImageDraw.Draw(expected)
    for box in [(5, 30, 90, 34), (600, 300, 640, 333), (0, 0, 640, 1)]:
        png = fill_png(png, [box], (0, 0, 0))
        assert b"noSg" in png  # patched by its groups of rows, not redone whole
        draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=(0, 0, 0))
        # zlib checks the stream's Adler-32 as it inflates: it is whole.
        assert zlib.decompress(_idat(png)) == b"".join(
            b"\0" + expected.tobytes()[y * 640 * 3 : (y + 1) * 640 * 3] for y in range(333)
        )
    assert Image.open(io.BytesIO(png)).tobytes() == expected.tobytes()
