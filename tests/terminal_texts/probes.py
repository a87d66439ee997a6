"""Kinds of text drawn by single tests and never planned into the corpus
(``PROBES``): adding a kind to ``KINDS`` would draw every screen of the
corpus anew. Each is a real tool's output, as the kinds are."""

from __future__ import annotations

import random

from tests.terminal_shown import Shown
from tests.terminal_texts.build import NOUNS

__all__ = ["tree"]

_FILES = ("README.md", "Makefile", "pyproject.toml", "__init__.py", "conftest.py", "main.go")


def tree(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``tree -L 3`` of a project's folder: box drawing joints (``├──``, ``└──``) and
    lines down (``│``) before each name, directories in bold blue, and
    the count under them."""
    blue = "\x1b[1;34m"
    root = rng.choice(("src", "app", "lib", "pkg"))
    lines = [
        Shown(f"$ tree -L 3 {root}", f"$ tree -L 3 {root}"),
        Shown(root, f"{blue}{root}\x1b[0m"),
    ]
    directories = files = 0

    def entries(prefix: str, depth: int) -> None:
        nonlocal directories, files
        count = rng.randint(2, 4) if depth > 1 else rows  # the top: as many as fit
        used: set[str] = set()
        for i in range(count):
            if len(lines) >= rows - 1:
                return
            last = i == count - 1 or len(lines) == rows - 2
            branch = "└── " if last else "├── "
            if depth < 3 and rng.random() < 0.45:
                name = rng.choice([noun for noun in NOUNS if noun not in used])
                used.add(name)
                directories += 1
                lines.append(Shown(prefix + branch + name, f"{prefix}{branch}{blue}{name}\x1b[0m"))
                entries(prefix + ("    " if last else "│   "), depth + 1)
            else:
                name = rng.choice(
                    [
                        f
                        for f in (*_FILES, f"{rng.choice(NOUNS)}_{rng.choice(NOUNS)}.py")
                        if f not in used
                    ]
                )
                used.add(name)
                files += 1
                lines.append(Shown(prefix + branch + name, prefix + branch + name))
            if last:
                return

    entries("", 1)
    summary = f"{directories} directories, {files} files"
    shown = [line for line in lines if len(line.plain) <= columns][: rows - 1]
    return [*shown, Shown(summary, summary)]
