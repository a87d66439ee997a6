"""Workspace hints inferred from real window-title patterns."""

from __future__ import annotations

import pytest

from noru.sources import infer_workspace


@pytest.mark.parametrize(
    ("title", "hint"),
    [
        ("Project - Editor", "Project"),
        ("main.py - repoB - Visual Studio Code", "repoB"),
        ("● main.py - repoB - Visual Studio Code", "repoB"),
        ("user@host: ~/src/repoB", "repoB"),
        ("user@host:~/src/repoB/", "repoB"),
        ("~/src/noru", "noru"),
        ("Untitled", None),
        ("", None),
        (None, None),
        ("user@host: ~", None),
    ],
)
def test_the_workspace_is_inferred_from_the_title(title: str | None, hint: str | None) -> None:
    assert infer_workspace(title) == hint
