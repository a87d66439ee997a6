"""What every kind of test module may need, with no fixtures and no test imports.

A helper module rather than ``conftest.py``, so that helpers (``tests.xserver``,
test modules) can import it without importing conftest, and conftest can
import them without a cycle.

- ``IN_CI``: the run is CI's (``CI=true``), where a missing real part fails.
- ``require``: skip on a developer machine, fail under CI, when a real part is missing;
  ``require_family``: that for a font family fontconfig must have by its very name.
- ``FIGURES``: figures tests measure, printed at the end of the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

__all__ = ["FIGURES", "IN_CI", "require", "require_family"]

IN_CI = os.environ.get("CI") == "true"

# Figures tests measure (inputs fuzzed, kills survived, concurrent clients),
# printed at the end of the run so CI's log carries them.
FIGURES: list[str] = []


def require(condition: bool, why: str) -> None:
    """Skip when a real part is missing on a developer machine; fail under CI."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"missing real part under CI=true: {why}")
    pytest.skip(why)


def require_family(family: str, package: str = "") -> None:
    """``require`` fontconfig to have ``family`` by that very name (it
    falls back to another family without a word)."""
    require(shutil.which("fc-match") is not None, "fc-match is not installed (apt: fontconfig)")
    found = subprocess.run(
        ["fc-match", "-f", "%{family}", family], capture_output=True, text=True, check=True
    ).stdout
    apt = f" (apt: {package})" if package else ""
    require(family in found.split(","), f"font family {family!r} is not installed{apt}: {found}")
