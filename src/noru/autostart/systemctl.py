"""``systemctl --user`` behind one call: ``Systemctl.run`` is the one place it
runs, the seam tests replace to play a reachable user manager."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Answer", "Session", "Systemctl"]


@dataclass(frozen=True)
class Answer:
    ok: bool
    output: str  # stdout, stripped: is-enabled and is-active print their word here
    error: str = ""  # systemctl's own words on stderr, or why it did not run


@dataclass(frozen=True)
class Session:
    """What systemd's user manager says about the graphical session."""

    reachable: bool
    graphical: bool
    reason: str  # in the person's words, for why the XDG entry was chosen


class Systemctl:
    """``systemctl --user``; ``run`` is the one call that leaves this process."""

    timeout = 15.0

    def run(self, *args: str) -> Answer:
        exe = shutil.which("systemctl")
        if exe is None:
            return Answer(False, "", "systemctl is not installed")
        env = dict(os.environ)
        runtime = Path(f"/run/user/{os.getuid()}")
        if not env.get("XDG_RUNTIME_DIR") and runtime.is_dir():
            # A shell from su or cron lacks it, yet the user's manager is there.
            env["XDG_RUNTIME_DIR"] = str(runtime)
        try:
            done = subprocess.run(
                [exe, "--user", *args],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=self.timeout,
                env=env,
            )
        except subprocess.TimeoutExpired:
            return Answer(False, "", f"no answer in {self.timeout:.0f} s")
        except OSError as exc:
            return Answer(False, "", exc.strerror or str(exc))
        # Its info lines ("Created symlink ...") come before the error: all are said.
        said = "; ".join(line.strip() for line in done.stderr.splitlines() if line.strip())
        if done.returncode == 0:
            return Answer(True, done.stdout.strip())
        return Answer(False, done.stdout.strip(), said or f"exit status {done.returncode}")

    def session(self) -> Session:
        answer = self.run("is-active", "graphical-session.target")
        if answer.output == "active":
            return Session(True, True, "the desktop's session runs under systemd")
        if answer.output:  # inactive, failed...: the manager answered
            return Session(
                True,
                False,
                f"systemd's user manager runs no graphical session now "
                f"(graphical-session.target is {answer.output})",
            )
        return Session(False, False, f"systemd's user manager does not answer ({answer.error})")
