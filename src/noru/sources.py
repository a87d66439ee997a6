"""Where a captured image came from: typed, nullable facts.

Unknown values are ``None``, never a placeholder string. Facts are captured at
source time by a capture backend (or given by the person on import); only
``workspace_hint`` is inferred, from the window title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["SHOWS", "Shows", "Source", "infer_workspace", "shorten"]

#: What one image is: one window, a whole display, or a region of the screen.
Shows = Literal["window", "display", "region"]
SHOWS: tuple[Shows, ...] = ("window", "display", "region")


@dataclass(frozen=True)
class Source:
    """Where one image came from. The window facts (app, title, workspace)
    are of the window the image is (``shows == "window"``), or, for a display
    or a region, of the active window inside it. ``shows`` is None where it
    was not recorded (an import; a capture stored before Noru recorded it):
    then the words fall back on the facts alone."""

    display_index: int | None = None
    display_name: str | None = None
    app_id: str | None = None
    app_name: str | None = None
    window_title: str | None = None
    workspace_hint: str | None = None
    shows: Shows | None = None

    def as_dict(self) -> dict[str, int | str | None]:
        """The contract's six source fields (``structuredContent.sources``);
        what the image is (``shows``) is said in the text instead."""
        return {
            "display_index": self.display_index,
            "display_name": self.display_name,
            "app_id": self.app_id,
            "app_name": self.app_name,
            "window_title": self.window_title,
            "workspace_hint": self.workspace_hint,
        }

    @property
    def display_label(self) -> str | None:
        """ "display 2 (HDMI-1)", or None when the display is unknown."""
        if self.display_index is None and not self.display_name:
            return None
        index = self.display_index if self.display_index is not None else "?"
        return f"display {index}" + (f" ({self.display_name})" if self.display_name else "")

    @property
    def whole(self) -> bool:
        """True for an image of more than one window: a display or a region."""
        return self.shows in ("display", "region")

    @property
    def subject(self) -> str | None:
        """What the image is, in words: ``window "main.py - Editor"``,
        ``display 2 (HDMI-1)``, ``region of display 2 (HDMI-1)``; None when
        not recorded (``shows``)."""
        if self.shows == "window":
            return f'window "{self.window_title}"' if self.window_title else "untitled window"
        if self.shows == "display":
            return self.display_label or "display (which one unknown)"
        if self.shows == "region":
            return f"region of {self.display_label}" if self.display_label else "screen region"
        return None

    def parts(self, *, title_most: int | None = None, marked: bool = True) -> list[str]:
        """This source in words, one known fact each. A window: app, window,
        workspace, display. A display or region: what it is first, then the
        active window inside it (its title, app, workspace), so that no
        reader takes a display for the window that was active on it.
        ``title_most`` shortens a long window title to that many characters;
        ``marked`` says "(inferred)" after the workspace (a locator row leaves
        that to its provenance line)."""
        title = None
        if self.window_title:
            title = (
                self.window_title if title_most is None else shorten(self.window_title, title_most)
            )
        app = f"app {self.app_name or self.app_id}" if self.app_name or self.app_id else None
        workspace = (
            f"workspace {self.workspace_hint}" + (" (inferred)" if marked else "")
            if self.workspace_hint
            else None
        )
        if self.whole:
            active = f'active window "{title}"' if title else None
            parts = [self.subject, active, app, workspace]
        else:
            window = f'window "{title}"' if title else None
            if self.shows == "window" and window is None:
                window = "untitled window"
            parts = [app, window, workspace, self.display_label]
        return [part for part in parts if part]

    def describe(self) -> str:
        """The source in one phrase: "app Editor, window "main.py - Editor", ..."."""
        return ", ".join(self.parts()) or "source unknown"

    def image_label(self, position: int) -> str:
        """What an image of this source shows, for the line before it."""
        if self.subject:
            return self.subject
        if self.window_title:
            return f'window "{self.window_title}"'
        return self.display_label or f"image {position}"

    @property
    def known(self) -> bool:
        """True when any fact besides the inferred hint is known."""
        return any(
            v is not None
            for v in (
                self.display_index,
                self.display_name,
                self.app_id,
                self.app_name,
                self.window_title,
            )
        )


def shorten(text: str, most: int) -> str:
    """``text`` on one line, cut to ``most`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1] + "…"


# Separators editors and IDEs put between file, project and app name.
_SEP = re.compile(r"\s+[-–—|]\s+")
# "user@host: ~/src/repo" or "user@host:~/src/repo$": the title bash's default
# prompt gives gnome-terminal, xterm, kitty, alacritty and friends.
_TERMINAL = re.compile(r"^[\w.-]+@[\w.-]+:\s*(?P<path>[~/][^\s]*)")
# "~/src/repo" alone (kitty, and terminals whose shell sets the cwd as title).
_PATH_ONLY = re.compile(r"^(?P<path>~?/[^\s]*)$")
# A home directory is where a shell starts, not a project.
_HOME = re.compile(r"^(?:~|/|/root|/home/[^/]+|/Users/[^/]+)/?$")
# The app at the end of a title, by family. Found at the earliest separator
# from which the rest is one of these names, so "Visual Studio Code - Insiders"
# and "Code - OSS" stay whole although they contain a separator.
_APP = re.compile(
    r"\s+[-–—]\s+(?:"
    r"(?P<browser>Mozilla Firefox(?: Private Browsing)?|Firefox|Google Chrome|Chromium"
    r"|Brave|Microsoft\u200b? ?Edge|Opera|Vivaldi)"
    # Titles that name a mailbox, a channel or a buffer, never a project.
    r"|(?P<nothing>Mozilla Thunderbird|Thunderbird|Slack|Discord|GNU Emacs(?: at \S+)?)"
    r"|(?P<sublime>Sublime Text(?: \(UNREGISTERED\))?)"
    r"|(?P<konsole>Konsole)"
    r"|(?P<editor>Visual Studio Code(?: - Insiders)?|Code - OSS|VSCodium|Cursor)"
    r")$"
)
# "main.py (~/src/repo) - VIM": vim, gvim, neovim, gedit and GNOME Text
# Editor put the file's directory in parentheses.
_FILE_IN_DIR = re.compile(r"^(?P<file>.+?)\s+\((?P<dir>[~/][^()]*)\)$")
# "~/src/repo/main.py (repo) - Sublime Text": Sublime names the project in parentheses.
_SUBLIME_PROJECT = re.compile(r"\((?P<project>[^()/~]+)\)$")
# Tags editors append to the project: "[SSH: host]", "[~/src/repo]" (JetBrains),
# "(Workspace)" (VS Code multi-root).
_TAGS = re.compile(r"(?:\s*\[[^\]]*\]|\s+\((?:Workspace|Remote)\))+$")
# "name.ext": a file, not a project (an extension starts with a letter, so
# "v1.2" and "python3.11" are not files).
_FILE = re.compile(r"^\S*\.[A-Za-z][A-Za-z0-9]{0,7}$")
# Pages editors open that are neither a file nor a project.
_NOT_PROJECTS = {"welcome", "get started", "settings", "keyboard shortcuts", "release notes"}
# Web pages that clearly name a repository.
_WEB_REPO = (
    re.compile(r"^GitHub - [\w.-]+/(?P<repo>[\w.-]+)(?::|$)"),  # repository home
    re.compile(r"·\s+[\w.-]+/(?P<repo>[\w.-]+)$"),  # issue, pull request, file
    re.compile(r"[\w.-]+ / (?P<repo>[\w.-]+) · GitLab$"),
)


def _last_path_part(path: str) -> str | None:
    path = path.rstrip("$#")
    if _HOME.match(path):
        return None
    parts = [p for p in path.split("/") if p and p != "~"]
    return parts[-1] if parts else None


def _project(candidate: str) -> str | None:
    """``candidate`` if it can name a project; None for files, paths to files and pages."""
    candidate = _TAGS.sub("", candidate).strip()
    if not candidate or len(candidate) > 128:
        return None
    if candidate.startswith(("~", "/")):
        return None if _FILE.match(candidate) else _last_path_part(candidate)
    if candidate.startswith(("…", "...")) or _FILE.match(candidate):
        # JetBrains shows "…/src/main.py"; either way it is a file.
        return None
    folded = candidate.casefold()
    if folded in _NOT_PROJECTS or folded.startswith("untitled"):
        return None
    return candidate


def _from_web_page(page: str) -> str | None:
    for pattern in _WEB_REPO:
        if m := pattern.search(page):
            return m.group("repo")
    return None


def infer_workspace(title: str | None) -> str | None:
    """The project or repository a window title names, or None.

    "Project - Editor" -> "Project"; "main.py - repoB - Visual Studio Code" ->
    "repoB"; "user@host: ~/src/repoB" -> "repoB"; "repoB – main.py" (JetBrains)
    -> "repoB". Browser titles give a hint only when the page is clearly a
    repository (GitHub, GitLab). An inference: callers mark it ``?ws`` in the
    provenance line. When in doubt the answer is None.
    """
    if not title:
        return None
    title = title.strip().lstrip("●*• ").strip()
    if m := _TERMINAL.match(title) or _PATH_ONLY.match(title):
        return _last_path_part(m.group("path"))

    family: str | None = None
    if m := _APP.search(title):
        family = m.lastgroup
        title = title[: m.start()]
    if family == "browser":
        return _from_web_page(title)
    if family == "nothing":
        return None

    parts = [p.strip() for p in _SEP.split(title) if p.strip()]
    if family is None:
        # An app we do not know: its name is the last part, if there are two.
        if len(parts) < 2:
            return None
        parts = parts[:-1]
    if not parts:
        return None
    if family == "sublime":
        m = _SUBLIME_PROJECT.search(parts[0])
        return m.group("project").strip() if m else None
    if family == "konsole":
        # Konsole's default title is "%d : %n", directory then program.
        return _project(parts[0].split(" : ")[0])
    for part in parts:
        if m := _FILE_IN_DIR.match(part):
            return _last_path_part(m.group("dir"))
    # "file - project" (VS Code and most editors) or "project - file" (JetBrains, Zed).
    for candidate in dict.fromkeys((parts[-1], parts[0])):
        if hint := _project(candidate):
            return hint
    return None
