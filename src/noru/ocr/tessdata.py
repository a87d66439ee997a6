"""Finding Tesseract's English language data (``eng.traineddata``).

Noru never downloads a model: the data comes from the system package
(Debian: ``tesseract-ocr-eng``), or from a path the person configured. A
configured path is taken at its word: when it holds no data, that is an
error naming the path, not a silent fall-back to some other copy.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from noru.errors import OcrError

__all__ = ["INSTALL_ADVICE", "LANGUAGE", "locate_tessdata", "require_tessdata", "search_paths"]

LANGUAGE = "eng"
INSTALL_ADVICE = (
    "install the English OCR data: apt-get install tesseract-ocr-eng "
    "(Fedora: dnf install tesseract-langpack-eng; macOS: brew install tesseract), "
    "or point the ocr tessdata setting or TESSDATA_PREFIX at a folder holding eng.traineddata"
)

# Debian and Ubuntu put the data under a version folder that changed between
# releases (4.00 on bullseye, 5 on trixie); the others are fixed paths of
# other distributions and of Homebrew.
_VERSIONED = (Path("/usr/share/tesseract-ocr"), Path("/usr/local/share/tesseract-ocr"))
_FIXED = (
    Path("/usr/share/tessdata"),
    Path("/usr/local/share/tessdata"),
    Path("/opt/homebrew/share/tessdata"),
)


def _holding(path: Path) -> Path | None:
    """The folder holding the data, given that folder, the file, or (the
    Tesseract 3 meaning of TESSDATA_PREFIX) the folder above ``tessdata``."""
    name = f"{LANGUAGE}.traineddata"
    for folder in (path, path / "tessdata"):
        if (folder / name).is_file():
            return folder
    if path.name == name and path.is_file():
        return path.parent
    return None


def _version_key(folder: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", folder.name)) or (0,)


def search_paths() -> Iterator[Path]:
    """Where the data is looked for when no path is configured, in order.
    Debian's versioned folders are listed only when they exist."""
    prefix = os.environ.get("TESSDATA_PREFIX")
    if prefix:
        yield Path(prefix)
    for root in _VERSIONED:
        try:
            versions = sorted(root.iterdir(), key=_version_key, reverse=True)
        except OSError:
            continue
        # Newest release first, so a leftover 4.00 folder does not win over 5.
        yield from (folder / "tessdata" for folder in versions)
    yield from _FIXED


def locate_tessdata(configured: Path | None = None) -> Path | None:
    """The folder holding ``eng.traineddata``, or None when there is none."""
    if configured is not None:
        return _holding(Path(configured).expanduser())
    for candidate in search_paths():
        found = _holding(candidate)
        if found is not None:
            return found
    return None


def require_tessdata(configured: Path | None = None) -> Path:
    """Like ``locate_tessdata``, but a missing data file is an ``OcrError``
    that says where Noru looked and what to install."""
    found = locate_tessdata(configured)
    if found is not None:
        return found
    if configured is not None:
        raise OcrError(
            f"no {LANGUAGE}.traineddata in the configured path {configured}; {INSTALL_ADVICE}"
        )
    looked = ", ".join(str(path) for path in search_paths())
    raise OcrError(
        f"Tesseract's {LANGUAGE}.traineddata was not found (looked in {looked}); {INSTALL_ADVICE}"
    )
