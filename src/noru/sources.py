"""Where a captured image came from: typed, nullable facts.

Unknown values are ``None``, never a placeholder string. Facts are captured at
source time by a capture backend (or given by the person on import); only
``workspace_hint`` is inferred, from the window title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Source", "infer_workspace"]


@dataclass(frozen=True)
class Source:
    display_index: int | None = None
    display_name: str | None = None
    app_id: str | None = None
    app_name: str | None = None
    window_title: str | None = None
    workspace_hint: str | None = None

    def as_dict(self) -> dict[str, int | str | None]:
        return {
            "display_index": self.display_index,
            "display_name": self.display_name,
            "app_id": self.app_id,
            "app_name": self.app_name,
            "window_title": self.window_title,
            "workspace_hint": self.workspace_hint,
        }

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


# Separators editors and IDEs put between file, project and app name.
_SEP = re.compile(r"\s+[-–—|]\s+")
# "user@host: ~/src/repo" or "user@host:~/src/repo$" (terminal titles).
_TERMINAL = re.compile(r"^[\w.-]+@[\w.-]+:\s*(?P<path>[~/][^\s]*)")
# "~/src/repo" alone (some terminals title with the cwd only).
_PATH_ONLY = re.compile(r"^(?P<path>~?/[^\s]*)$")


def _last_path_part(path: str) -> str | None:
    parts = [p for p in path.rstrip("/$#").split("/") if p and p != "~"]
    return parts[-1] if parts else None


def infer_workspace(title: str | None) -> str | None:
    """The project or repository a window title names, or None.

    "Project - Editor" -> "Project"; "main.py - repoB - Visual Studio Code" ->
    "repoB"; "user@host: ~/src/repoB" -> "repoB". An inference: callers mark it
    ``?ws`` in the provenance line.
    """
    if not title:
        return None
    title = title.strip().lstrip("●*• ").strip()
    if m := _TERMINAL.match(title) or _PATH_ONLY.match(title):
        return _last_path_part(m.group("path"))
    parts = [p.strip() for p in _SEP.split(title) if p.strip()]
    if len(parts) >= 3:
        # file - project - app
        return parts[-2]
    if len(parts) == 2:
        # project - app
        return parts[0]
    return None
