"""Wide letters (Hangul, kana, ideographs) in a terminal's grid are read by
their drawings in the face the terminal falls back to: real terminals on a
real X server, read by the real engine."""

from __future__ import annotations

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from tests import real_terminals
from tests.parts import require_family
from tests.terminal_reading import (  # noqa: F401  (fixtures)
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


# A dense screen, a third of its cells wide letters: file names, log
# messages and commit subjects.
DENSE = [
    "$ ls -la ~/reports",
    "-rw-r--r-- 1 me me  333651 Mar 19 22:19 配置文件加载完成_2022.docx",
    "-rw-r--r-- 1 me me  588735 Mar  2 23:37 修复支付回调的重复处理_2022.xlsx",
    "-rw-r--r-- 1 me me  200326 Mar  3 10:32 会议记录_2019.pdf",
    "-rw-r--r-- 1 me me  122285 Mar  1 14:30 用户登录失败_2024.csv",
    "$ tail -n 6 /var/log/app/worker.log",
    "2025-02-27 03:10:11.939 ERROR [报告书] ビルドに成功しました, user_id=17117",
    "2025-07-18 05:07:24.665 WARN  [数据库连接超时] 로그인 세션 만료, user_id=35224",
    "2025-11-11 08:26:12.108 WARN  [订单已创建] ビルドに成功しました, user_id=34960",
    "2025-07-16 12:50:52.132 ERROR [配置文件加载完成] 文件上传成功, user_id=59271",
    "2025-07-15 15:51:13.471 ERROR [配置文件加载完成] 会议记录, user_id=91511",
    "2025-03-06 17:58:17.819 WARN  [订单已创建] 用户登录失败, user_id=49890",
    "$ git log --oneline -6",
    "7fbc864 設定ファイルが見つかりません (#330)",
    "de93359 新增导出报表功能 (#372)",
    "89168d5 로그인 세션 만료 (#244)",
    "3273b44 認証トークンの有効期限切れ (#48)",
    "2ce3c2e ビルドに成功しました (#699)",
    "5026019 配置文件加载完成 (#215)",
    '$ echo "用户登录失败" | wc -c',
    "19",
    "エラー: 修复支付回调的重复处理 (s3://bucket-0l1, code=235)",
    "エラー: 設定ファイルが見つかりません (O_RDONLY, code=60)",
    "エラー: 订单已创建 (xvda1, code=68)",
]


def test_a_narrow_face_dense_with_wide_letters_is_read_at_its_own_cells(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """CMU Typewriter Text at 9 pt: six pixels a cell, its glyphs filling
    them, under wide letters that each ink the middle of a pair of cells.
    The whole screen folds best at two cells, which was taken for the
    advance: every line was left to the engine (log lines came back
    ``HARN [数据库连接超时]9 豆``). Stretches of Latin between the wide letters
    still fold at their own cells, and say the advance is half."""
    require_family("CMU Typewriter Text", "fonts-cmu")
    read = read_on(
        desktop, capturer, engine, "alacritty", DENSE, columns=100, rows=30, size=9,
        font="CMU Typewriter Text", theme="solarized-light",
    )  # fmt: skip
    exact = [line for line in DENSE if line in read]
    assert len(exact) >= len(DENSE) - 3, [line for line in read if line.strip()]


# A short log, its lines wrapped at 80 columns, half its cells wide letters.
WIDE_LOG = [
    "2025-01-05 21:49:22.726 ERROR [修复支付回调的重复处理] 修复支付回调的重复处理,",
    "user_id=89368",
    "2025-10-17 05:48:54.820 ERROR [修复支付回调的重复处理] 文件上传成功, user_id=87",
    "460",
    "df72dff ビルドに成功しました (#589)",
    "53abe90 新增导出报表功能 (#225)",
    "2025-08-09 05:14:45.452 ERROR [用户登录失败] ユーザー一覧の表示を高速化, user_i",
    "d=12730",
    'edge-lb-1$ echo "报告书" | wc -c',
    "9a1d35c 用户登录失败 (#400)",
    "cf11519 データベースへの接続がタイムアウトしました (#992)",
]


def test_a_face_as_wide_as_its_cells_among_wide_letters_keeps_its_cells(
    desktop: XServer, capturer: Capturer, engine: TesseractEngine,  # noqa: F811
) -> None:  # fmt: skip
    """Hermit at 11 pt and 192 dpi: its glyphs as wide as their cells, wide
    letters between them, the second row highlighted. No fold of the
    columns stood out, so the looser gap let half a cell pass for the
    advance: every other cell came back a space (``2 025-01-05 2 1 :49:2
    2``). Twice that folds far emptier. (Two rows keep an unsure letter
    past their end, where the next row's wide letters reach up into them.)"""
    require_family("Hermit", "fonts-hermit")
    read = read_on(
        desktop, capturer, engine, "alacritty", WIDE_LOG, columns=80, rows=24, size=11, dpi=192,
        font="Hermit", theme="solarized-dark", highlight=1,
    )  # fmt: skip
    exact = [line for line in WIDE_LOG if line in read]
    assert len(exact) >= len(WIDE_LOG) - 2, [line for line in read if line.strip()]
