"""Wide letters (Hangul, kana, ideographs) in a terminal's grid are read by
their drawings in the face the terminal falls back to: real terminals on a
real X server, read by the real engine."""

from __future__ import annotations

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.test_terminal_text import (  # noqa: F401  (fixtures)
    capturer,
    engine,
    read_on,
)
from tests.xserver import XServer

pytestmark = pytest.mark.usefixtures("desktop")

# A log of Latin fields with messages in Korean (which no engine here reads),
# Japanese with its long-vowel mark beside the ideograph one (``ー`` and
# ``一``, one stroke each) and Chinese.
SHOWN = [
    "$ git log --oneline -4",
    "a3f9c21 fix: 설정 파일을 찾을 수 없습니다 (config.yaml)",
    "7be0d44 docs: 메모리 사용량 87% 초과 경고",
    "19c2e8f feat: ユーザー一覧を更新しました (id=4211)",
    "e0d1b35 完了: 数据同步成功, 작업 12개",
    "$ tail -n 2 /var/log/app/worker.log",
    "2026-03-14 09:12:44 ERROR worker: 연결 시간 초과 (retry=3)",
    "2026-03-14 09:12:45 INFO  worker: reconnected to db-primary:5432",
]


@pytest.mark.parametrize(
    ("terminal", "family", "size", "theme"),
    [("xterm", "DejaVu Sans Mono", 12, "dark"), ("xfce4-terminal", "Liberation Mono", 12, "light")],
)
def test_wide_letters_are_read_by_their_drawings(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
    terminal: real_terminals.Terminal, family: str, size: int,
    theme: real_terminals.TerminalTheme,
) -> None:  # fmt: skip
    """Each pair of cells the grid's font leaves is the wide letter whose
    drawing it is: Hangul comes back as Hangul (the engine reads it as Latin
    letters), ``ー`` stays ``ー`` beside ``一``, and the Latin around them is
    the font's."""
    read = read_on(
        desktop, capturer, engine, terminal, SHOWN, columns=70, rows=10, size=size,
        font=family, theme=theme,
    )  # fmt: skip
    assert [line for line in read if line.strip()] == SHOWN
