"""Running the `noru` command as a person would: one process, run to its end.

- ``noru_command`` is how to start this checkout's `noru` (the installed
  script beside this Python, else ``python -m noru``).
- ``noru(*args, home=..., env=..., prefix=..., ok=...)`` runs it and returns
  the finished process with its text output. ``home`` becomes ``NORU_HOME``;
  ``env`` is the whole environment (``os.environ`` unless given, so a
  desktop fixture's ``env`` is passed as is); ``prefix`` runs it under
  another program (``setpriv``, say); ``ok=True`` asserts that it exited 0.
  Whatever it ran, a Python traceback in its output fails the test: a
  command meets bad input with a clear error, never a trace.
- ``invoke(*args, input=...)`` runs it in this process (click's
  ``CliRunner``: quicker, and what it does is seen by the test's own
  process), by the same rule: an exception the command did not turn into
  its message and exit status fails the test (``CliRunner`` would
  otherwise report it as exit status 1, like a clear refusal).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from click.testing import CliRunner, Result

__all__ = ["invoke", "noru", "noru_command"]

TIMEOUT = 120.0  # seconds: a guard against a hang, not a measurement


def noru_command() -> list[str]:
    exe = Path(sys.executable).parent / "noru"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "noru"]


def noru(
    *args: str,
    home: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    prefix: Sequence[str] = (),
    ok: bool = False,
    timeout: float = TIMEOUT,
) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ if env is None else env)
    if home is not None:
        environment["NORU_HOME"] = str(home)
    done = subprocess.run(
        [*prefix, *noru_command(), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )
    output = done.stdout + done.stderr
    assert "Traceback (most recent call last)" not in output, output
    if ok:
        assert done.returncode == 0, f"noru {' '.join(args)} exited {done.returncode}: {output}"
    return done


def invoke(*args: str, input: str | None = None) -> Result:
    from noru.cli import main

    result = CliRunner().invoke(main, list(args), input=input)
    crash = result.exception
    if crash is not None and not isinstance(crash, SystemExit):
        raise AssertionError(f"noru {' '.join(args)} raised {crash!r}:\n{result.output}") from crash
    return result
