"""Served pixels: Noru's own PNG writer is lossless and valid, scaling keeps the aspect."""

from __future__ import annotations

import io
import os
import zlib

import pytest
from PIL import Image, ImageChops, ImageCms, ImageDraw

from noru.imaging import (
    encode_png,
    fill_png,
    fill_rects,
    fit_long_edge,
    raw_bytes,
    scale,
    scanlines,
    serve,
    serve_png,
)


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


def test_scanlines_are_the_rows_each_followed_by_a_zero() -> None:
    image = screenish("RGB", (5, 3))
    lines = scanlines(image)
    assert lines is not None and lines.stride == 16 and len(lines.data) == 48
    for row in range(3):
        start = row * lines.stride
        assert lines.data[start : start + 15] == image.crop((0, row, 5, row + 1)).tobytes()
        assert lines.data[start + 15] == 0
    assert scanlines(Image.new("P", (4, 4))) is None
    # Made in one call of Pillow's encoder: the same bytes as tobytes gives.
    for image in (screenish("RGB", (2560, 1600)), screenish("RGBA", (1000, 700))):
        lines = scanlines(image)
        assert lines is not None
        assert lines.data == image.tobytes("raw", image.mode, lines.stride)


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "1", "I;16"])
def test_raw_bytes_are_tobytes(mode: str) -> None:
    # One call of Pillow's encoder, or tobytes itself where that cannot be.
    image = screenish("RGB", (2560, 1600)).convert(mode)
    for picture in (image, image.crop((3, 5, 1203, 905)), image.crop((0, 0, 0, 4))):
        assert raw_bytes(picture) == picture.tobytes()


def test_pngs_written_from_scanlines_made_once_are_the_same() -> None:
    # The app makes a grab's scanlines once and writes both PNGs from them.
    image = screenish("RGB", (2560, 1600))
    lines = scanlines(image)
    assert encode_png(image, lines=lines) == encode_png(image)
    served = serve(image, 1568, lines)
    assert served.png == serve(image, 1568).png
    assert decode(served.png).tobytes() == scale(image, (1568, 980)).tobytes()
    small = screenish("RGB", (800, 600))
    assert serve(small, 1568, scanlines(small)).png == serve(small, 1568).png


@pytest.mark.parametrize("size", [(2560, 1600), (800, 600)])
def test_a_stored_original_served_from_its_rows_is_its_image_served(
    size: tuple[int, int],
) -> None:
    image = screenish("RGB", size)
    served = serve_png(encode_png(image), 1568, colour=(0, 0, 0))
    assert served is not None
    assert served == serve(image, 1568)
    boxes = [(10, 20, 300, 60), (-5, size[1] - 8, 40, size[1] + 9)]  # one past the edge
    filled = serve_png(encode_png(image), 1568, boxes=boxes, colour=(0, 0, 0))
    assert filled == serve(fill_rects(image, boxes, (0, 0, 0)), 1568)


def test_other_pngs_are_left_to_be_decoded() -> None:
    image = screenish("RGB", (640, 400))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")  # Pillow's: filtered rows
    assert serve_png(buffer.getvalue(), 1568, colour=(0, 0, 0)) is None
    assert serve_png(encode_png(screenish("RGBA", (640, 400))), 1568, colour=(0, 0, 0)) is None
    assert serve_png(b"not a png", 1568, colour=(0, 0, 0)) is None


def test_fit_long_edge_keeps_the_aspect_and_never_reaches_zero() -> None:
    assert fit_long_edge(2560, 1600, 1568) == (1568, 980)
    assert fit_long_edge(1600, 2560, 1568) == (980, 1568)
    assert fit_long_edge(100, 50, 1568) == (100, 50)
    assert fit_long_edge(10000, 1, 1568) == (1568, 1)


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    """The mean absolute difference of two images' samples, in levels."""
    histogram = ImageChops.difference(a, b).histogram()
    return sum((level % 256) * count for level, count in enumerate(histogram)) / (
        a.width * a.height * len(a.getbands())
    )


def pillow_lanczos(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)


@pytest.mark.parametrize(
    ("source", "size"),
    [
        ((2560, 1600), (1568, 980)),
        ((3840, 2160), (1568, 882)),
        ((2000, 1999), (1568, 1567)),
        ((1600, 2560), (980, 1568)),  # portrait
        ((5120, 1440), (1568, 441)),  # two screens side by side
        ((2560, 1600), (512, 320)),  # 5x: blocks averaged first
        ((800, 600), (640, 480)),
        ((2560, 1600), (2000, 1)),
    ],
)
@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_scaling_is_lanczos_at_the_size_asked(
    source: tuple[int, int], size: tuple[int, int], mode: str
) -> None:
    # libvips' Lanczos-3 against Pillow's: the same filter, in fixed point of
    # its own. On screen content they are all but equal; on noise (a worst
    # case: every sample on a lobe's edge) a few samples in a hundred differ.
    screen = screenish("RGB", source).convert(mode)
    scaled = scale(screen, size)
    assert scaled.mode == mode and scaled.size == size
    assert mean_difference(scaled, pillow_lanczos(screen, size)) < 0.2
    noise = Image.frombytes(mode, source, os.urandom(source[0] * source[1] * len(mode)))
    assert mean_difference(scale(noise, size), pillow_lanczos(noise, size)) < 1.0


def test_scaling_the_same_pixels_gives_the_same_pixels() -> None:
    # A served image depends on the pixels alone, not on what ran before or on
    # how the work was split between threads.
    image = screenish("RGB", (2560, 1600))
    first = scale(image, (1568, 980)).tobytes()
    scale(screenish("RGB", (1920, 1080)), (1568, 882))
    assert scale(image.copy(), (1568, 980)).tobytes() == first


def test_scaling_keeps_a_sharp_edge_where_it_was() -> None:
    # A black half and a white half: the edge lands in the scaled image where
    # it is in the source (no shift of a phase convention), with Lanczos'
    # ringing only beside it.
    image = Image.new("L", (2560, 1600), 255)
    image.paste(0, (0, 0, 1280, 1600))
    row = scale(image, (1568, 980)).crop((0, 490, 1568, 491)).tobytes()
    assert max(row[:783]) <= 2 and min(row[785:]) >= 253
    assert row[783] < 128 < row[784]


@pytest.mark.parametrize("mode", ["RGBA", "LA", "P"])
def test_modes_with_alpha_or_a_palette_are_scaled_by_pillow(mode: str) -> None:
    # Pillow premultiplies alpha and keeps a palette in its result.
    source = (2560, 1600)
    image = Image.frombytes("RGBA", source, os.urandom(source[0] * source[1] * 4)).convert(mode)
    whole = pillow_lanczos(image, (1568, 980))
    scaled = scale(image, (1568, 980))
    assert scaled.mode == whole.mode and scaled.tobytes() == whole.tobytes()
    if mode == "P":
        assert scaled.getpalette() == whole.getpalette()


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
