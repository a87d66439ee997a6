"""A ligature font in a terminal that shapes its text (Konsole, kitty) draws
`->` as one arrow across two cells, `!=` as one sign: real terminals on a
real X server, read by the real engine, come back as the characters typed."""

from __future__ import annotations

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.parts import require_family
from tests.terminal_reading import (  # noqa: F401  (fixtures)
    engine,
    read_on,
    window,
)
from tests.xserver import XServer

pytestmark = pytest.mark.usefixtures("desktop")

OPERATORS = [
    "$ docker ps --format '{{.Ports}}'",
    "0.0.0.0:8080->8080/tcp, :::8080->8080/tcp",
    "if (a != b) { return x => x * 2; }",
    "see https://example.com/docs // notes",
    "std::vector<int> v; i++; j -= 1; ok ... done",
    'assert total >= limit, "over"',
]


@pytest.mark.parametrize("terminal", ["konsole", "kitty"])
def test_ligatures_come_back_as_the_characters_typed(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine, terminal: str,  # noqa: F811
) -> None:  # fmt: skip
    """Fira Code's `->`, `!=`, `>=`, `//`, `::`, `++`, `...` were read
    `--`, `#~`, ` 2`, every such line unsure; shaped by HarfBuzz in the
    grid's font, each run of cells is its ligature's characters, and a
    line whose every ligature is so told is served sure."""
    require_family("Fira Code", "fonts-firacode")
    real_terminals.need(terminal)
    with real_terminals.open_terminal(
        desktop, terminal, OPERATORS, x=60, y=60, columns=80, rows=10, size=11,
        font="Fira Code", theme="light",
    ) as client:  # fmt: skip
        image = window(capturer, client)
    lines = [line for line in engine.recognise(image).lines if line.text.strip()]
    text = lines[-len(OPERATORS) :]
    read = "\n".join(f"{line.confidence:.4f} {line.text.rstrip()}" for line in lines)
    assert [line.text.rstrip() for line in text] == OPERATORS, read
    # The port mappings' `:::` is left to the engine in one cell.
    assert all(line.confidence >= 0.99 for line in text[2:]), read


def test_the_family_s_own_weight_is_found_among_look_alikes(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Fira Code's Retina weight draws its letters nearly as its Regular
    does, and was taken for it: its `&&` ligature differs, and the line
    holding one was served unsure. Faces alike on every cell are told by
    how well the samples fit."""
    require_family("Fira Code", "fonts-firacode")
    real_terminals.need("kitty")
    shown = [
        '$ docker ps --format "{{.Ports}}"',
        OPERATORS[1],
        "if (a != b && c >= d) { return x => x * 2; }",
        "see https://www.example.com/docs // notes",
        "std::vector<int> v; i++; j -= 1; ok ... done",
    ]
    with real_terminals.open_terminal(
        desktop, "kitty", shown, x=60, y=60, columns=80, rows=7, size=11,
        font="Fira Code", theme="light",
    ) as client:  # fmt: skip
        image = window(capturer, client)
    lines = [line for line in engine.recognise(image).lines if line.text.strip()]
    read = "\n".join(f"{line.confidence:.4f} {line.text.rstrip()}" for line in lines)
    assert [line.text.rstrip() for line in lines] == shown, read
    # The port mappings' `:::` is left to the engine in one cell.
    assert all(line.confidence >= 0.99 for n, line in enumerate(lines) if n != 1), read


MYSQL = [
    "mysql> SELECT id, compact_client, user FROM streams LIMIT 2;",
    "+-------+----------------+------------+",
    "| id    | compact_client | user       |",
    "+-------+----------------+------------+",
    "| 61115 | a0f7da6fce91   | 3.24.6     |",
    "| 60976 | commit_request | TokenShard |",
    "+-------+----------------+------------+",
    "2 rows in set (0.41 sec)",
]


def test_an_ascii_table_s_border_drawn_as_one_line_is_its_characters(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """kitty shapes Fira Code's `-------` as one line, which the cells read
    as box drawing's `─`: each `+-------+` border of the MySQL client's
    table was taken for a rule drawn across the rows and left out. Between
    `+` joints, such a line is the `-` typed."""
    require_family("Fira Code", "fonts-firacode")
    read = read_on(
        desktop, capturer, engine, "kitty", MYSQL, columns=80, rows=10, size=14,
        font="Fira Code", theme="dark",
    )  # fmt: skip
    assert [line for line in read if line.strip()] == MYSQL
