"""What every kind of test module may need, with no fixtures and no test imports.

A helper module rather than ``conftest.py``, so that helpers (``tests.xserver``,
test modules) can import it without importing conftest, and conftest can
import them without a cycle.

- ``IN_CI``: the run is CI's (``CI=true``), where a missing real part fails.
- ``require``: skip on a developer machine, fail under CI, when a real part is missing.
- ``FIGURES``: figures tests measure, printed at the end of the run.
"""

from __future__ import annotations

import os

import pytest

__all__ = ["FIGURES", "IN_CI", "require"]

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
