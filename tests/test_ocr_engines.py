"""What every OCR engine must do, run against each real engine, no mocks.

The ``engine`` fixture is parametrised over tests/ocr_suite.py's ``ENGINES``,
so each test here runs once per engine (``[tesseract]``, ``[rapidocr]``);
what is one engine's own lives in tests/test_ocr.py and
tests/test_ocr_rapid.py. An engine that is not installed skips here and
fails under CI=true.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from PIL import Image

from noru.errors import OcrError
from noru.ocr import Engine, describe, get_engine
from tests.ocr_suite import ENGINES, KNOWN, made_engine, missing
from tests.screens import Pane, Screen, compose, window_screen


@pytest.fixture(scope="module", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    # Module scope: pytest runs one engine's tests, closes it, then the next's.
    yield from made_engine(request.param)


def test_lines_come_in_reading_order_across_windows(engine: Engine) -> None:
    panes = [
        Pane((20, 20, 420, 200), ["Alpha first window"], title="Left"),
        # A few pixels higher than its neighbour: still read after it.
        Pane((460, 14, 420, 200), ["Bravo second window"], theme="dark", title="Right"),
        Pane((20, 240, 860, 160), ["Charlie third window"], size=16, title="Below"),
    ]
    screen = compose(panes, width=900, height=420)
    text = engine.recognise(screen.image, regions=screen.regions).text
    positions = [text.find(word) for word in ("Alpha", "Bravo", "Charlie")]
    assert -1 not in positions, text
    assert positions == sorted(positions), text


def test_text_outside_every_region_is_still_read(engine: Engine) -> None:
    panes = [
        Pane((200, 20, 660, 200), ["Inside the window"], title="Window"),
        # Not given as a region: like a panel or a window the backend missed.
        Pane((40, 250, 500, 140), ["Outside label here"], theme="dark", title="Dock"),
    ]
    screen = compose(panes, width=900, height=420)
    result = engine.recognise(screen.image, regions=screen.regions[:1])
    assert missing(screen, result) == [], result.text


def test_overlapping_regions_do_not_read_a_line_twice(engine: Engine) -> None:
    screen = window_screen(KNOWN, theme="light", size=16)
    region = screen.regions[0]
    once = engine.recognise(screen.image, regions=[region])
    twice = engine.recognise(screen.image, regions=[region, region])
    assert [line.text for line in twice.lines] == [line.text for line in once.lines]


@pytest.mark.parametrize("colour", ["white", "black", "#3a6ea5"])
def test_a_blank_image_gives_no_lines_and_no_confidence(engine: Engine, colour: str) -> None:
    image = Image.new("RGB", (1280, 800), colour)
    for regions in (None, [(0, 0, 640, 800), (640, 0, 640, 800)]):
        result = engine.recognise(image, regions=regions)
        assert result.lines == ()
        assert result.text == ""
        assert result.mean_confidence is None


@pytest.mark.parametrize("size", [(1, 1), (2, 50), (50, 2)])
def test_a_tiny_image_gives_no_lines_instead_of_crashing(
    engine: Engine, size: tuple[int, int]
) -> None:
    image = Image.new("RGB", size, "white")
    assert engine.recognise(image).lines == ()
    assert engine.recognise(image, regions=[(0, 0, 1, 1)]).lines == ()


def test_palette_and_alpha_images_are_read_like_rgb(engine: Engine) -> None:
    screen = window_screen(KNOWN, theme="light", size=16)
    for mode in ("RGBA", "P", "L"):
        result = engine.recognise(screen.image.convert(mode), regions=screen.regions)
        assert missing(screen, result) == [], mode


def test_one_engine_can_be_shared_by_threads(engine: Engine) -> None:
    screens = [window_screen(KNOWN, theme=t, size=16) for t in ("light", "dark")]
    failures: list[str] = []

    def read(screen: Screen) -> None:
        for _ in range(2):
            result = engine.recognise(screen.image, regions=screen.regions)
            failures.extend(missing(screen, result))

    threads = [threading.Thread(target=read, args=(s,)) for s in screens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_a_window_on_top_is_read_once_and_hides_what_it_covers(engine: Engine) -> None:
    below = Pane((20, 20, 700, 260), ["Lower window text", "Quarterly report continues"])
    # Drawn after, so on top; its rectangle overlaps the lower window's.
    # Its line runs past the lower window's edge, so a lower piece that still
    # showed it would read a cut-off copy that no de-duplication could match.
    top = Pane((560, 90, 330, 240), ["Topmost window words run on"], theme="dark", title="Top")
    screen = compose([below, top], width=900, height=420)
    result = engine.recognise(screen.image, regions=screen.regions)  # bottom to top
    assert result.text.count("Topmost") == 1, result.text
    visible = [w for w in screen.words if w.text in ("Lower", "Quarterly", "Topmost", "words")]
    assert missing(screen, result, visible) == [], result.text


def test_the_result_names_the_reader_and_confidences_are_between_0_and_1(
    engine: Engine,
) -> None:
    screen = window_screen(KNOWN, theme="dark", size=14)
    result = engine.recognise(screen.image, regions=screen.regions)
    # The reader: the engine, and what it reads terminals with besides.
    assert result.engine in (engine.name, f"{engine.name}+glyphs")
    assert result.engine_version == engine.version == describe(engine.name).version
    assert result.engine_version[0].isdigit()
    assert result.mean_confidence is not None
    assert 0.5 < result.mean_confidence <= 1.0  # clean synthetic text reads confidently
    assert all(0.0 <= line.confidence <= 1.0 for line in result.lines)
    assert result.text == "\n".join(line.text for line in result.lines)


def test_regions_outside_the_image_are_ignored(engine: Engine) -> None:
    screen = window_screen(KNOWN, theme="light", size=14)
    away = [(5000, 5000, 100, 100), (-300, -300, 200, 200), (10, 10, 0, 50)]
    result = engine.recognise(screen.image, regions=[*away, *screen.regions])
    assert missing(screen, result) == []


def test_a_closed_engine_refuses_to_read_and_closing_twice_is_harmless(engine: Engine) -> None:
    made = get_engine(engine.name)  # a second one: the shared engine stays open
    made.close()
    made.close()
    with pytest.raises(OcrError, match="closed"):
        made.recognise(Image.new("RGB", (10, 10)))


# --- repeat looks: unchanged pixels are not read again ---------------------------------


def two_windows(left: str, right: str) -> Screen:
    panes = [
        Pane((20, 20, 420, 200), [left], title="Left"),
        Pane((460, 20, 420, 200), [right], theme="dark", title="Right"),
    ]
    return compose(panes, width=900, height=260)


def counts(engine: Engine) -> tuple[int, int]:
    memo = engine.memo  # type: ignore[attr-defined]
    return memo.hits, memo.misses


def test_reading_the_same_screen_again_reads_nothing_again_and_says_the_same(
    engine: Engine,
) -> None:
    screen = two_windows("Invoice ledger totals", "Meeting agenda notes")
    first = engine.recognise(screen.image, regions=screen.regions)
    hits, misses = counts(engine)
    again = engine.recognise(screen.image, regions=screen.regions)
    assert again.lines == first.lines
    assert counts(engine)[1] == misses and counts(engine)[0] > hits


def test_remembered_lines_are_what_a_fresh_reading_gives(engine: Engine) -> None:
    from noru.ocr.memo import Memo

    screen = two_windows("Quarterly revenue forecast", "Release download notes")
    engine.recognise(screen.image, regions=screen.regions)
    remembered = engine.recognise(screen.image, regions=screen.regions)
    engine.memo = Memo()  # type: ignore[attr-defined]  # forget everything: read afresh
    fresh = engine.recognise(screen.image, regions=screen.regions)
    assert counts(engine)[0] == 0  # nothing was remembered for this reading
    assert fresh.lines == remembered.lines


def test_a_change_in_one_window_reads_only_that_window_again(engine: Engine) -> None:
    before = two_windows("Kettlebell training schedule", "Grocery shopping list")
    after = two_windows("Kettlebell training schedule", "Hardware store receipt")
    engine.recognise(before.image, regions=before.regions)
    hits, misses = counts(engine)
    result = engine.recognise(after.image, regions=after.regions)
    assert counts(engine)[1] == misses + 1  # the right window alone
    assert counts(engine)[0] > hits  # the left window and what lies around them
    assert "Hardware" in result.text and "Kettlebell" in result.text
    assert "Grocery" not in result.text


def test_a_window_that_moved_is_not_read_again_and_its_lines_move_with_it(
    engine: Engine,
) -> None:
    text = ["Photosynthesis lecture slides"]
    here = compose([Pane((20, 20, 420, 200), text, title="Notes")], width=900, height=500)
    there = compose([Pane((300, 240, 420, 200), text, title="Notes")], width=900, height=500)
    first = engine.recognise(here.image, regions=here.regions)
    misses = counts(engine)[1]
    moved = engine.recognise(there.image, regions=there.regions)
    window = [line for line in moved.lines if "Photosynthesis" in line.text]
    original = [line for line in first.lines if "Photosynthesis" in line.text]
    assert window and original
    assert window[0].box == (
        original[0].box[0] + 280,
        original[0].box[1] + 220,
        original[0].box[2],
        original[0].box[3],
    )
    # Nothing is read again: the window's pixels are the same, and so is the
    # desktop around it once the window is painted over.
    assert counts(engine)[1] == misses
