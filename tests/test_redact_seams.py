"""A line a display's edge cuts is searched whole across the seam.

The images of an ``all_displays`` capture, each with its place on the whole
screen, hold the lines as each display's reader gives them: a terminal
straddling two displays has its rows cut at the seam (the cell the seam
cuts read as something else on one side, as the real engine does), a
proportional window its lines. The joining itself (``seam_lines``) and
what agents get (``for_agent``) are checked on them; real screens are in
tests/test_redact_seams_real.py.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

from noru.redact import policy, seams
from noru.redact.apply import for_agent
from noru.store import CaptureRecord, OcrLine
from tests import redaction_formats
from tests.redaction_cases import ALNUM, leaked, luhn_card, pick, planted
from tests.seam_records import CELL_H, CELL_W, SEAM
from tests.seam_records import cut_terminal as _wide
from tests.seam_records import image as _image
from tests.seam_records import record as _record

POLICY = policy.Policy.of(["secrets", "cards"])
# What the engine reads the half glyph of the cell the seam cuts as.
MISREADS = ("\\", "_", ":", "|", "l")
# The terminal's first column on the whole screen: the seam cuts its
# column 24 two pixels in (the left display holds 6 of its 8 pixels).
X0 = 2362
WINDOW = (2360, 100, 200, 151)  # its part on the left display (image pixels)


def _cut_rows(rows: list[str], *, misread: str = "\\") -> tuple[list[OcrLine], list[OcrLine]]:
    """The rows as each display's terminal reader gives them: the left one
    up to the last whole cell before the seam (24 columns), the right one
    from the cut cell on (its half glyph read as ``misread``)."""
    left, right = [], []
    cut = (SEAM - X0) // CELL_W
    for r, text in enumerate(rows):
        y = 125 + r * CELL_H
        head = text[:cut].rstrip()
        if head:
            lead = len(head) - len(head.lstrip(" "))
            box = (X0 + lead * CELL_W, y, (len(head) - lead) * CELL_W, CELL_H)
            left.append(OcrLine(head, box, 0.99, cut))
        tail = text[cut:].rstrip()
        if tail.strip():
            tail = (misread if tail[0] != " " else " ") + tail[1:]
            lead = len(tail) - len(tail.lstrip(" "))
            x = X0 + cut * CELL_W - SEAM + lead * CELL_W
            right.append(OcrLine(tail, (x, y, (len(tail) - lead) * CELL_W, CELL_H), 0.96, 36))
    return left, right


def _both(
    left: list[OcrLine],
    right: list[OcrLine],
    right_window: tuple[int, int, int, int] = (0, 100, 286, 151),
) -> CaptureRecord:
    return _record(
        _image(1, (0, 0, 2560, 1440), left, (WINDOW,)),
        _image(2, (2560, 0, 1920, 1080), right, (right_window,)),
    )


def test_a_token_the_seam_cuts_is_found_whole_and_taken_from_both_displays() -> None:
    rng = random.Random("seam-token")
    token = "ghp_" + pick(rng, ALNUM, 36)
    rows = ["$ cat .env", "APP_ENV=production", f"GITHUB_TOKEN={token}", "LOG_LEVEL=info"]
    left, right = _cut_rows(rows)
    # Each half alone is too short for the format: only a label's value on
    # the left, and nothing on the right.
    alone = for_agent(_record(_image(2, (2560, 0, 1920, 1080), right, ())), POLICY)
    assert alone.count == 0
    seen = for_agent(_both(left, right), POLICY)
    left_text, right_text = (image.ocr_lines for image in seen.record.images)
    assert left_text is not None and right_text is not None
    assert leaked(seen.record.ocr_text, token) is None, seen.record.ocr_text
    assert "[redacted: github-token]" in right_text[0].text
    # The row below is not taken as the rest of the token's: the left
    # display's last column is the seam, not the terminal's.
    assert [line.text for line in left_text if line.text.startswith("LOG")] == ["LOG_LEVEL=info"]
    # Pixels: every cell of the token on the left, the strip up to the seam
    # (the cut cell's 6 pixels) and the right part from its first pixel.
    y = 125 + 2 * CELL_H
    left_boxes, right_boxes = seen.boxes
    start = X0 + len("GITHUB_TOKEN=") * CELL_W
    assert any(bx <= start and bx + bw >= 2554 and by == y for bx, by, bw, _ in left_boxes)
    assert (2554, y, 6, CELL_H) in left_boxes
    assert any(bx <= 0 and bx + bw >= right[0].box[2] - 6 for bx, _, bw, _ in right_boxes)


def test_the_seams_pairs_are_the_cut_rows_only() -> None:
    rows = ["short", "the quick brown fox jumps over the lazy dog", "        indented on"]
    left, right = _cut_rows(rows)
    record = _both(left, right)
    # Row 2 has its left part blank: nothing to join it to.
    assert seams.seam_lines(record.images) == [((0, 1), (1, 0))]


def test_ordinary_text_across_a_seam_is_served_as_read() -> None:
    rows = [
        "the quick brown fox jumps over the lazy dog again and again",
        "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "drwxr-xr-x  2 alice staff  4096 Mar  3 12:01 Documents",
        "/usr/share/doc/python3-requests/changelog.Debian.gz",
        "tokenizer = AutoTokenizer.from_pretrained(model_name)",
        "password_hash = bcrypt.hashpw(secret_input, salt)",
    ]
    left, right = _cut_rows(rows)
    seen = for_agent(_both(left, right), POLICY)
    assert seen.count == 0, seen.record.ocr_text
    assert seen.boxes == ((), ())


def test_windows_that_only_meet_at_the_seam_are_not_joined() -> None:
    """Two windows side by side at the seam, at other heights: each line
    is its window's own, so nothing is searched across."""
    rng = random.Random("seam-apart")
    token = "ghp_" + pick(rng, ALNUM, 36)
    left, right = _cut_rows([f"GITHUB_TOKEN={token}"])
    record = _both(left, right, right_window=(0, 90, 286, 400))
    assert seams.seam_lines(record.images) == []


def test_proportional_lines_cut_by_the_seam_are_joined_as_read() -> None:
    """A browser's line: no grid, the parts apart by a space's width or less."""
    rng = random.Random("seam-proportional")
    key = "sk_live_" + pick(rng, ALNUM, 24)
    left = [OcrLine(f"Secret key {key[:14]}", (2380, 300, 172, 18), 0.95)]
    right = [OcrLine(f"{key[14:]} Reveal", (3, 301, 190, 17), 0.95)]
    window = (2300, 200, 260, 400)
    record = _record(
        _image(1, (0, 0, 2560, 1440), left, (window,)),
        _image(2, (2560, 0, 1920, 1080), right, ((0, 200, 300, 400),)),
    )
    seen = for_agent(record, POLICY)
    assert leaked(seen.record.ocr_text, key) is None, seen.record.ocr_text
    assert seen.record.ocr_text.startswith("Secret key ")
    assert seen.record.ocr_text.endswith(" Reveal")
    assert all(boxes for boxes in seen.boxes)


def test_a_capture_without_places_is_redacted_image_by_image() -> None:
    """An import, or a capture stored before images kept their place."""
    rng = random.Random("seam-unplaced")
    token = "ghp_" + pick(rng, ALNUM, 36)
    left, right = _cut_rows([f"GITHUB_TOKEN={token}"])
    images = [
        _image(1, (0, 0, 2560, 1440), left, (WINDOW,)),
        _image(2, (2560, 0, 1920, 1080), right, ()),
    ]
    record = _record(*(replace(image, screen_rect=None) for image in images))
    assert seams.across(record.images, POLICY.categories) is None
    seen = for_agent(record, POLICY)
    assert seen.record.images[1].ocr_lines == record.images[1].ocr_lines


def test_a_secret_is_found_whole_wherever_the_seam_cuts_its_value() -> None:
    """The rows put together are searched whole, each part on its own only
    near the seam, and the cut cell's variants only around it: no kind is
    lost by it. A card is cut between its groups here (inside one in
    ``test_a_card_is_found_whole_wherever_the_seam_cuts_its_number``)."""
    for line, value, kind in planted():
        if len(line) > 110:
            continue
        start = line.index(value)
        cuts = [start + max(1, min(len(value) - 2, int(len(value) * s))) for s in (0.25, 0.5, 0.75)]
        if kind == "card":
            cuts = [start + 9]  # the space between its second and third groups
        for cut in cuts:
            rows = ["2026-12-02 10:00:54.394 INFO token_41 config_988", line, "$ ls -la"]
            seen = for_agent(_wide(rows, cut), POLICY)
            assert leaked(seen.record.ocr_text, value) is None, (kind, cut, seen.record.ocr_text)
            assert all(seen.boxes), (kind, cut)


def test_code_that_hashes_a_password_is_served_as_read_where_the_seam_cuts_the_call() -> None:
    """The cut cell inside ``hashpw`` tried as ``_`` reads ``bcrypt.has_pw``:
    searched with the rest of its line (the call's ``(``), it is no value."""
    line = "password_hash = bcrypt.hashpw(secret_input, salt)"
    for cut in range(line.index("hashpw") + 1, line.index("(")):
        seen = for_agent(_wide([line], cut), POLICY)
        assert seen.count == 0, (cut, seen.record.ocr_text)


def test_a_hexadecimal_token_is_found_whole_whatever_the_cut_cell_is_read_as() -> None:
    """The cut cell is no character the engine could tell: it is tried as a
    hexadecimal digit too (``x``, a token's letter, is none)."""
    hexadecimal = {
        "mailgun-key", "digitalocean-token", "postman-key", "rubygems-key",
        "shippo-token", "supabase-token", "sonar-token", "twilio-key",
    }  # fmt: skip
    seed = redaction_formats.HELD_OUT_SEEDS[0]
    cases = [
        (line, value, kind)
        for line, value, kind in redaction_formats.lines(seed, redaction_formats.HELD_OUT)
        if kind in hexadecimal
    ]
    assert {kind for _, _, kind in cases} == hexadecimal
    for line, value, kind in cases:
        start = line.index(value)
        for cut in (start + len(value) // 4, start + len(value) // 2, start + 3 * len(value) // 4):
            for misread in MISREADS:
                seen = for_agent(_wide(["$ cat keys", line], cut, misread=misread), POLICY)
                # Not the kind's name in its placeholder: ``rubygems_``'s prefix.
                served = re.sub(r"\[redacted: [^\]]*\]", "", seen.record.ocr_text)
                assert leaked(served, value) is None, (kind, cut, misread, served)


def test_a_card_is_found_whole_wherever_the_seam_cuts_its_number() -> None:
    """Inside a group too: the cut digit is the one the card's check wants."""
    rng = random.Random("seam-card")
    for prefix in ("4", "51", "37"):
        card = luhn_card(rng, prefix)
        for value in (card, card.replace(" ", "")):
            line = f"Card: {value}  exp 12/29"
            start = line.index(value)
            for cut in range(start + 1, start + len(value) - 1):
                for misread in MISREADS:
                    seen = for_agent(_wide([line], cut, misread=misread), POLICY)
                    assert leaked(seen.record.ocr_text, value) is None, (cut, misread)
                    assert all(seen.boxes), (cut, misread)


def test_a_part_at_the_seam_is_not_redacted_alone_where_the_whole_line_holds_no_value() -> None:
    """The left display's ``password_hash = bcry`` alone looks like a
    label and its value; the line the screen shows, searched whole, is a
    call. So is ``password = getpas``, and a masked password whose mask
    the seam cuts."""
    cases = [
        ("password_hash = bcrypt.hashpw(secret_input, salt)", "bcrypt"),
        ("    password = getpass.getpass()", "getpass"),
        ("PASSWORD=****************  # set in the vault", "****************"),
    ]
    for line, value in cases:
        start = line.index(value)
        for cut in range(start + 1, start + len(value)):
            for misread in MISREADS:
                seen = for_agent(_wide([line], cut, misread=misread), POLICY)
                assert seen.count == 0, (cut, misread, seen.record.ocr_text)
                assert seen.boxes == ((), ()), (cut, misread)


def test_a_part_at_the_seam_is_redacted_alone_where_the_whole_line_holds_it_too() -> None:
    """What the part alone finds at the seam stays where the joined line
    finds a secret there."""
    rng = random.Random("seam-label")
    value = pick(rng, ALNUM, 6) + "-" + pick(rng, ALNUM, 6)
    line = f"DB_PASSWORD={value}  # rotate monthly"
    start = line.index(value)
    for cut in range(start + 1, start + len(value) - 1):
        for misread in MISREADS:
            seen = for_agent(_wide([line], cut, misread=misread), POLICY)
            assert leaked(seen.record.ocr_text, value) is None, (cut, misread)
            assert all(seen.boxes), (cut, misread)


# The formats whose value starts with a fixed part of letters (a prefix),
# with its length.
_PREFIX = re.compile(r"(?:[a-z0-9]{2,8}[_.-]){1,2}|[A-Za-z]{2,8}[_.-]|[A-Z]{4}")
PREFIXED = [
    (line, value, kind, m.end())
    for line, value, kind in redaction_formats.lines(
        redaction_formats.HELD_OUT_SEEDS[0], ["$ echo {v}"]
    )
    if (m := _PREFIX.match(value)) and len(line) <= 110
]


def test_a_token_the_seam_cuts_inside_its_fixed_part_is_found_whole() -> None:
    """``gh|p_...``: the cut cell is a letter of the prefix, read as a half
    glyph. It is tried as the character that makes the prefix whole (no
    one character stands for every prefix's), so every format is found."""
    assert len(PREFIXED) >= 50
    missed = []
    for line, value, kind, fixed in PREFIXED:
        start = line.index(value)
        for k in range(1, fixed + 1):
            for misread in MISREADS:
                seen = for_agent(_wide(["$ cat keys", line], start + k, misread=misread), POLICY)
                served = re.sub(r"\[redacted: [^\]]*\]", "", seen.record.ocr_text)
                if leaked(served, value) is not None or not all(seen.boxes):
                    missed.append((kind, value[: k + 1], misread))
    assert not missed, missed[:20]


def test_a_telegram_bot_token_the_seam_cuts_at_its_colon_is_found_whole() -> None:
    """The ``:`` between the bot's number and its key is the token's fixed
    part: cut there, or at the ``A`` after it, each half alone is nothing."""
    rng = random.Random("seam-telegram")
    value = "".join(rng.choice("0123456789") for _ in range(10)) + ":AA" + pick(rng, ALNUM, 33)
    for shown in (value, f"Copied {value} to the clipboard", f"bot = Bot('{value}')"):
        colon = shown.index(":")
        for cut in (colon, colon + 1):
            for misread in MISREADS:
                seen = for_agent(_wide(["$ cat bot.env", shown], cut, misread=misread), POLICY)
                assert leaked(seen.record.ocr_text, value) is None, (cut, misread)
                assert all(seen.boxes), (cut, misread)


def test_a_browsers_token_the_seam_cuts_inside_its_fixed_part_is_found_whole() -> None:
    """A proportional line: the glyph the seam cuts read on neither side,
    or as a mark or a stroke on one (``gh`` then ``\\p_...``)."""
    missed = []
    for _, value, kind, fixed in PREFIXED:
        for k in range(1, fixed + 1):
            for misread in ("", "\\", "|"):
                a, b = f"Secret key {value[:k]}", misread + value[k + 1 :] + " Reveal"
                left = [OcrLine(a, (2559 - 9 * len(a), 300, 9 * len(a), 18), 0.95)]
                right = [OcrLine(b, (2, 301, 9 * len(b), 17), 0.95)]
                record = _record(
                    _image(1, (0, 0, 2560, 1440), left, ((2000, 200, 560, 400),)),
                    _image(2, (2560, 0, 1920, 1080), right, ((0, 200, 1200, 400),)),
                )
                seen = for_agent(record, POLICY)
                served = re.sub(r"\[redacted: [^\]]*\]", "", seen.record.ocr_text)
                if leaked(served, value) is not None or not all(seen.boxes):
                    missed.append((kind, value[: k + 1], misread))
    assert not missed, missed[:20]


def test_a_twilio_key_the_seam_cuts_in_its_two_letters_is_found_whole() -> None:
    """Twilio's ``SK``: the seam cuts its ``S`` or its ``K`` and the other
    letter alone is no sign of the format; it is completed where its 32
    hexadecimal digits follow whole. ``risk``, ``desk`` and ``ask`` cut at
    their ``k`` (or ``s``) before a commit id are not completed."""
    rng = random.Random("seam-twilio")
    value = "SK" + "".join(rng.choice("0123456789abcdef") for _ in range(32))
    missed = []
    for line in (f"$ echo {value}", f"TWILIO_KEY_SID {value} (main)", f"sid: '{value}'"):
        start = line.index(value)
        for k in (0, 1):
            for misread in MISREADS:
                seen = for_agent(_wide(["$ cat keys", line], start + k, misread=misread), POLICY)
                served = re.sub(r"\[redacted: [^\]]*\]", "", seen.record.ocr_text)
                # Cut in its first cell, the value lies on the right display
                # but for 2 pixels of its ``S``: no box on the left then.
                if leaked(served, value) is not None or not all(seen.boxes[k - 1 :]):
                    missed.append((line, k, misread, served))
    assert not missed, missed[:4]
    commit = "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d"
    for line in (f"risk {commit}", f"desk-{commit}", f"ask {commit} again"):
        for cut in (line.index("k") - 1, line.index("k")):
            for misread in MISREADS:
                seen = for_agent(_wide(["$ git log", line], cut, misread=misread), POLICY)
                assert seen.count == 0, (line, cut, misread, seen.record.ocr_text)
