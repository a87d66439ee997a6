"""Screens made of other screens: tmux's panes side by side or one above the
other, with their borders and tmux's status bar."""

from __future__ import annotations

import random
from collections.abc import Callable

from tests.terminal_shown import Shown
from tests.terminal_texts.build import clock, host, project
from tests.terminal_texts.data import app_log, json_document
from tests.terminal_texts.shell import shell_session
from tests.terminal_texts.system import top

__all__ = ["tmux_panes"]

Kind = Callable[[random.Random, int, int], list[Shown]]
# What people keep in a pane: a shell, a log, a process table, JSON.
_PANES: tuple[Kind, ...] = (shell_session, app_log, top, json_document)


def _padded(shown: Shown, width: int) -> Shown:
    """``shown`` followed by spaces to ``width`` cells."""
    pad = " " * (width - shown.width)
    return Shown(shown.plain + pad, shown.styled + pad)


def _joined(*parts: Shown) -> Shown:
    return Shown("".join(p.plain for p in parts), "".join(p.styled for p in parts))


def tmux_panes(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """tmux with two panes, side by side (a ``│`` border) or one above the
    other (a ``─`` border), the active pane's border green, and tmux's green
    status bar (window list, host, time) as the last row."""
    if rows < 4:
        return _status(rng, columns)[:rows]
    body = rows - 1
    border = Shown("│", "\033[32m│\033[0m")
    if rng.random() < 0.6 and columns >= 60:
        left_width = rng.randint(max(20, columns // 3), min(2 * columns // 3, columns - 21))
        right_width = columns - left_width - 1
        left = rng.choice(_PANES)(rng, left_width, body)
        right = rng.choice(_PANES)(rng, right_width, body)
        lines = []
        for n in range(body):
            a = left[n] if n < len(left) else Shown.text("")
            b = right[n] if n < len(right) else Shown.text("")
            lines.append(_joined(_padded(a, left_width), border, b))
    else:
        top_height = max(1, (body - 1) // 2)
        upper = rng.choice(_PANES)(rng, columns, top_height)
        lower = rng.choice(_PANES)(rng, columns, body - top_height - 1)
        upper += [Shown.text("")] * (top_height - len(upper))
        rule = "─" * columns
        lines = [*upper, Shown(rule, f"\033[32m{rule}\033[0m"), *lower]
    return [*lines, *_status(rng, columns)]


def _status(rng: random.Random, columns: int) -> list[Shown]:
    """tmux's default status line: black on green across the width."""
    windows = ["bash", "vim", "logs", project(rng), "htop"]
    current = rng.randrange(3)
    names = " ".join(
        f"{n}:{name}{'*' if n == current else '-' if n == current - 1 else ''}"
        for n, name in enumerate(windows[: rng.randint(1, 4)])
    )
    left = f"[{rng.randint(0, 9)}] {names}"
    right = f'"{host(rng)}" {clock(rng)[:5]} 0{rng.randint(1, 9)}-Mar-25'
    gap = max(1, columns - len(left) - len(right))
    text = (left + " " * gap + right)[:columns]
    return [Shown(text, f"\033[30;42m{text}\033[0m")]
