"""What every kind of terminal text is built from: styled lines, a screen's
budget of rows and columns, and the names, numbers and paths real tools print.

A line is built from parts, each plain text or ``(text, sgr)``: the text in
the SGR attributes ``sgr`` (``"1;31"``: bold red), reset after it, as tools
print them. ``Screen`` collects lines up to the rows a screen has; a line
wider than its columns is broken into the rows a terminal would wrap it
into (``wrap``), so the truth is each row as shown and the terminal itself
never wraps. ``fit`` cuts a line to a width instead, for what a program
itself cuts (a pane, a status line). The vocabulary mixes what makes terminal text hard to read:
snake_case and CamelCase identifiers, digits among letters (``nvme0n1p2``,
``0O``, ``1lI``), hashes, versions, paths, quotes.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterable, Sequence

from tests.terminal_shown import Shown, cell_width

__all__ = [
    "BOLD",
    "Part",
    "Screen",
    "blank",
    "camel",
    "clock",
    "date_long",
    "email",
    "fit",
    "hexid",
    "host",
    "line",
    "module_path",
    "person",
    "pick",
    "project",
    "runs",
    "sentence",
    "snake",
    "stamp",
    "tricky",
    "version",
    "wrap",
]

Part = str | tuple[str, str]
BOLD = "1"


def line(*parts: Part) -> Shown:
    """A line of ``parts``: plain text, or ``(text, sgr)`` drawn in the SGR
    attributes ``sgr`` and reset after."""
    plain, styled = [], []
    for part in parts:
        text, sgr = (part, "") if isinstance(part, str) else part
        plain.append(text)
        styled.append(f"\033[{sgr}m{text}\033[0m" if sgr and text else text)
    return Shown("".join(plain), "".join(styled))


def blank() -> Shown:
    return Shown.text("")


def fit(shown: Shown, columns: int) -> Shown:
    """``shown`` cut to ``columns`` cells, its styles kept where they still
    apply; at the last space when that keeps most of it. Cuts nothing that fits."""
    if shown.width <= columns:
        return shown
    keep = _cells(shown.plain, columns)
    space = shown.plain.rfind(" ", 0, keep + 1)
    if space > keep * 2 // 3:
        keep = space
    plain = shown.plain[:keep].rstrip()
    # Walk the styled text until ``plain`` is spent, keeping escapes on the way.
    out, seen, i = [], 0, 0
    styled = shown.styled
    while i < len(styled) and seen < len(plain):
        if styled[i] == "\033":
            end = styled.index("m", i) + 1
            out.append(styled[i:end])
            i = end
            continue
        out.append(styled[i])
        seen += 1
        i += 1
    text = "".join(out)
    if "\033[" in text and not text.endswith("\033[0m"):
        text += "\033[0m"
    return Shown(plain, text)


def wrap(shown: Shown, columns: int) -> list[Shown]:
    """``shown`` as a terminal ``columns`` wide shows it: cut into rows of
    ``columns`` cells wherever it reaches the edge (mid-word; a wide
    character that would straddle the edge starts the next row), each row's
    styles closed at its end and opened again on the next."""
    if shown.width <= columns:
        return [shown]
    rows: list[Shown] = []
    plain, styled, used, active = "", "", 0, ""
    i, text = 0, shown.styled
    while i < len(text):
        if text[i] == "\033":
            end = text.index("m", i) + 1
            escape = text[i:end]
            active = "" if escape == "\033[0m" else active + escape
            styled += escape
            i = end
            continue
        width = cell_width(text[i])
        if used + width > columns:
            rows.append(Shown(plain, styled + ("\033[0m" if active else "")))
            plain, styled, used = "", active, 0
        plain += text[i]
        styled += text[i]
        used += width
        i += 1
    rows.append(Shown(plain, styled))
    return rows


def _cells(text: str, columns: int) -> int:
    """How many characters of ``text`` fit in ``columns`` cells."""
    used = 0
    for n, char in enumerate(text):
        used += cell_width(char)
        if used > columns:
            return n
    return len(text)


class Screen:
    """A screen's rows, up to ``rows`` of them: a line wider than ``columns``
    cells takes as many rows as a terminal wraps it into (``wrap``)."""

    def __init__(self, columns: int, rows: int) -> None:
        if columns < 20 or rows < 1:
            raise ValueError(f"too small a screen: {columns}x{rows}")
        self.columns, self.rows = columns, rows
        self.lines: list[Shown] = []

    @property
    def room(self) -> int:
        return self.rows - len(self.lines)

    @property
    def full(self) -> bool:
        return self.room <= 0

    def add(self, *lines: Shown) -> None:
        """Lines one by one while there is room (a wrapped line's rows too)."""
        for shown in lines:
            for row in wrap(shown, self.columns):
                if self.full:
                    return
                self.lines.append(row)

    def fill(self, blocks: Iterable[Sequence[Shown]]) -> list[Shown]:
        """Blocks that belong together (a commit, a traceback, a command and
        its output) one after another until the rows are full, the last cut
        where the screen ends, as output that went on below; the lines."""
        for lines in blocks:
            if self.full:
                break
            self.add(*lines)
        return self.lines


def runs(
    run: Callable[[], Sequence[Shown]], columns: int, rows: int, *, tail: bool = False
) -> list[Shown]:
    """The rows of ``run()``'s output, run again and again (the person ran the
    command again) until ``rows`` are full; its first rows, or with ``tail``
    its last (the end of a run is what stays on a terminal)."""
    shown: list[Shown] = []
    while len(shown) < rows:
        output = run()
        if not output:
            raise ValueError("a run printed nothing")
        shown += [row for text in output for row in wrap(text, columns)]
    return shown[-rows:] if tail else shown[:rows]


# --- vocabulary ---------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


WORDS = _words("""
account address allocate archive balance batch buffer cache capture channel checkout
client column commit config connect context counter cursor customer daemon deadline
delivery deploy device digest document draft encode endpoint entry estimate export
feature fetch filter folder gateway handler header history import index invoice job
journal kernel ledger lease limit listing lookup margin merge message metric migrate
monitor mount network notice offset order output package parse partition payload
pending pipeline policy pool preview profile queue quota receipt record refresh region
release render replica report request resolve retry revision router sample schedule
schema scope search segment sender server session shard snapshot socket source status
storage stream summary switch table target task tenant ticket timeout token transfer
update upload user vendor version volume warehouse window worker
""")
VERBS = _words("""
load fetch parse build resolve render decode encode validate normalise flush retry
merge compute apply lookup insert update delete sync dispatch handle open close read
write send receive register schedule spawn commit rollback migrate index compact
""")
NOUNS = _words("""
user session cache token request response retry config payload schema client conn pool
item order invoice event stream buffer path file node job queue batch worker index
entry record row column table shard replica lease tenant ledger account metric span
""")
FIRST = _words("""
Ana Bruno Chen Dara Emeka Farah Goran Hana Ines Jonas Kenji Leila Mateo Nadia Oskar
Priya Quinn Rosa Sami Tomasz Uma Viktor Wen Yusuf Zofia
""")
LAST = _words("""
Alvarez Brennan Castellan Delacroix Eriksen Fitzgerald Garcia Holloway Ivanova Jensen
Kowalczyk Lindqvist Marchetti Nakamura Okonkwo Petrov Quispe Rahman Sorensen Takahashi
Usman Vasquez Weber Yilmaz Zhang
""")
PROJECTS = _words("""
harbor ledger quartz meridian atlas nimbus orbit lantern beacon cobalt sparrow tundra
juniper kestrel marlin pylon vertex willow
""")
PACKAGES = _words("""
requests requests_cache urllib3 numpy pandas django flask sqlalchemy pydantic boto3
aiohttp celery httpx fastapi scipy jinja2 werkzeug click attrs cryptography protobuf
orjson psycopg2 redis uvicorn starlette alembic marshmallow
""")
HOSTS = _words("box laptop devbox build-02 web-3 db-primary worker-7 ci-runner-11 edge-lb-1 api-0")
USERS = _words("me ana dev root deploy kenji priya ops")
# Tokens whose letters and digits look alike, as real systems name things.
TRICKY = _words("""
nvme0n1p2 sda1 /dev/mapper/vg0-root loop0 eth0 wlp0s20f3 0O 1lI l1_cache O_RDONLY
IO0x1f lo0 ttyS0 md0 xvda1 dm-0 usb1-1.4 i915 vmlinuz-6.1.0-18 Il1O0 0x0O1l
g++-12 libc.so.6 ld-linux-x86-64.so.2 utf-8 i18n l10n k8s s3://bucket-0l1 v1.0.0-rc1
""")


def pick(rng: random.Random, items: Sequence[str]) -> str:
    return rng.choice(items)


def snake(rng: random.Random, parts: int | None = None) -> str:
    """``fetch_user_session``: a snake_case name of 2-3 parts."""
    count = parts or rng.choice((2, 2, 3))
    return "_".join([rng.choice(VERBS), *(rng.choice(NOUNS) for _ in range(count - 1))])


def camel(rng: random.Random, parts: int = 2) -> str:
    """``SessionCache``: a CamelCase name."""
    return "".join(rng.choice(NOUNS).capitalize() for _ in range(parts))


def hexid(rng: random.Random, digits: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(digits))


def token62(rng: random.Random, length: int) -> str:
    """An id in letters and digits, look-alikes included (``kO0l1I``)."""
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(length))


def version(rng: random.Random) -> str:
    return f"{rng.randint(0, 4)}.{rng.randint(0, 31)}.{rng.randint(0, 19)}"


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def email(rng: random.Random, name: str | None = None) -> str:
    first, last = (name or person(rng)).split()
    return f"{first.lower()}.{last.lower()}@{rng.choice(('example.com', 'corp.io', 'mail.dev'))}"


def project(rng: random.Random) -> str:
    return rng.choice(PROJECTS)


def host(rng: random.Random) -> str:
    return rng.choice(HOSTS)


def tricky(rng: random.Random) -> str:
    return rng.choice(TRICKY)


def module_path(rng: random.Random, root: str, ext: str) -> str:
    """``src/harbor/retry_policy.py``: a source file under ``root``."""
    depth = rng.choice((1, 1, 2))
    folders = [rng.choice(NOUNS) for _ in range(depth - 1)]
    return "/".join([root, *folders, f"{rng.choice(NOUNS)}_{rng.choice(NOUNS)}.{ext}"])


def sentence(rng: random.Random, words: int) -> str:
    """Plain words, the first capitalised, no full stop."""
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:]


def stamp(rng: random.Random, *, millis: bool = True, t: str = " ") -> str:
    """``2025-03-04 10:12:33.581``."""
    base = (
        f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}{t}"
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    )
    return f"{base}.{rng.randint(0, 999):03d}" if millis else base


def clock(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


_DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def date_long(rng: random.Random) -> str:
    """``Tue Mar 4 10:12:33 2025 +0100``, as git prints a date."""
    zone = rng.choice(("+0000", "+0100", "+0200", "-0500", "+0900", "+0530"))
    return (
        f"{rng.choice(_DAYS)} {rng.choice(_MONTHS)} {rng.randint(1, 28)} {clock(rng)} "
        f"{rng.randint(2022, 2025)} {zone}"
    )


def month_day(rng: random.Random) -> str:
    """``Mar  4``, as ls prints a date."""
    return f"{rng.choice(_MONTHS)} {rng.randint(1, 28):>2}"
