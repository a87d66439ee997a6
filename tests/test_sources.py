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


@pytest.mark.parametrize(
    ("title", "hint"),
    [
        # VS Code: "${dirty}${activeEditorShort} - ${rootName} - ${appName}".
        ("repoB - Visual Studio Code", "repoB"),
        ("main.py - repoB [SSH: devbox] - Visual Studio Code", "repoB"),
        ("main.py - repoB [WSL: Ubuntu] - Visual Studio Code", "repoB"),
        ("main.py - platform (Workspace) - Visual Studio Code", "platform"),
        ("main.py - repoB - Visual Studio Code - Insiders", "repoB"),
        ("main.py - repoB - Code - OSS", "repoB"),
        ("main.py - repoB - VSCodium", "repoB"),
        ("main.py - repoB - Cursor", "repoB"),
        ("Untitled-1 - repoB - Visual Studio Code", "repoB"),
        # No folder open: the title names a file or a page, not a project.
        ("notes.txt - Visual Studio Code", None),
        ("Welcome - Visual Studio Code", None),
        ("Untitled-1 - Visual Studio Code", None),
        ("Visual Studio Code", None),
    ],
)
def test_vs_code_family_titles_give_the_open_folder(title: str, hint: str | None) -> None:
    assert infer_workspace(title) == hint


@pytest.mark.parametrize(
    ("title", "hint"),
    [
        # JetBrains IDEs since 2020: "project – file" (en dash), no IDE name on Linux.
        ("noru – capture.py", "noru"),
        ("noru – …/src/noru/capture/x11.py", "noru"),
        # Older JetBrains: "project [path] – file – IDE".
        ("noru [~/src/noru] – …/src/noru/capture/x11.py", "noru"),
        ("noru – Main.java [noru.main] – IntelliJ IDEA", "noru"),
        ("noru – capture.py – PyCharm", "noru"),
        # Zed: "project — file" (em dash).
        ("noru — capture.py", "noru"),
    ],
)
def test_ide_titles_give_the_project(title: str, hint: str | None) -> None:
    assert infer_workspace(title) == hint


@pytest.mark.parametrize(
    ("title", "hint"),
    [
        # vim / gvim / neovim: "file (dir) - VIM"; "+" marks a modified buffer.
        ("x11.py (~/src/noru/src/noru/capture) - VIM", "capture"),
        ("x11.py + (~/src/noru) - GVIM", "noru"),
        ("x11.py (~/src/noru) - NVIM", "noru"),
        # gedit and GNOME Text Editor do the same; "*" marks unsaved changes.
        ("*notes.md (~/src/noru/docs) - gedit", "docs"),
        ("notes.md (~/src/noru) - Text Editor", "noru"),
        # Sublime Text names the project in parentheses after the file.
        ("~/src/noru/src/noru/sources.py (noru) - Sublime Text", "noru"),
        ("sources.py • (noru) - Sublime Text", "noru"),
        ("~/src/noru/src/noru/sources.py - Sublime Text", None),
        # Emacs titles name a buffer.
        ("x11.py - GNU Emacs at devbox", None),
        ("*scratch* - GNU Emacs at devbox", None),
    ],
)
def test_editor_titles_give_the_project_or_directory(title: str, hint: str | None) -> None:
    assert infer_workspace(title) == hint


@pytest.mark.parametrize(
    ("title", "hint"),
    [
        # gnome-terminal, xterm, alacritty and kitty show what bash's prompt sets.
        ("alice@devbox: ~/src/noru", "noru"),
        ("alice@devbox:~/src/noru$", "noru"),
        ("alice@devbox: /srv/checkouts/noru", "noru"),
        ("alice@devbox: ~/src/noru - Terminal", "noru"),
        ("root@devbox: /", None),
        ("alice@devbox: /home/alice", None),
        # kitty titles with the cwd or the running command.
        ("~/src/noru/src", "src"),
        ("nvim x11.py", None),
        ("kitty", None),
        # Untouched defaults carry nothing.
        ("Alacritty", None),
        ("xterm", None),
        ("Terminal", None),
        # Konsole: "%d : %n", directory then program.
        ("noru : bash — Konsole", "noru"),
        ("~/src/noru : vim — Konsole", "noru"),
    ],
)
def test_terminal_titles_give_the_working_directory(title: str, hint: str | None) -> None:
    assert infer_workspace(title) == hint


@pytest.mark.parametrize(
    ("title", "hint"),
    [
        # An ordinary page is not a project, however many parts its title has.
        ("Page - Site - Mozilla Firefox", None),
        ("Python 3.11 release notes — Python.org — Mozilla Firefox", None),
        ("Inbox (3) - alice@example.com - Gmail - Google Chrome", None),
        ("New Tab - Chromium", None),
        ("Page - Site — Mozilla Firefox Private Browsing", None),
        # Unless the page is clearly a repository.
        ("GitHub - acme/noru: A trustworthy view of the screen — Mozilla Firefox", "noru"),
        ("Capture layer for X11 · Pull Request #7 · acme/noru - Google Chrome", "noru"),
        ("noru/src/noru/capture/x11.py at main · acme/noru — Mozilla Firefox", "noru"),
        ("x11.py · main · acme / noru · GitLab - Chromium", "noru"),
    ],
)
def test_browser_titles_give_a_workspace_only_for_a_repository_page(
    title: str, hint: str | None
) -> None:
    assert infer_workspace(title) == hint


@pytest.mark.parametrize(
    "title",
    [
        "Inbox - Mozilla Thunderbird",
        "general (Channel) - Acme - Slack",
        "report.odt - LibreOffice Writer",
    ],
)
def test_mail_chat_and_document_titles_give_no_workspace(title: str) -> None:
    assert infer_workspace(title) is None
