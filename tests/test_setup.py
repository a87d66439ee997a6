"""The set-up itself: a person's clone, with nothing beside it, passes.

The working tree's tracked files (``git ls-files``: a file never added is not
in a clone either, while uncommitted edits to tracked files count) are copied
to a fresh directory with no ``shared/`` beside it, and the suite's
schema-validating modules (in memory, over real stdio pipes and HTTP sockets,
and through the official MCP SDK client) run there with this virtualenv's
Python and the copy's own code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.parts import require

ROOT = Path(__file__).resolve().parents[1]
MODULES = [
    "tests/test_negotiation.py",
    "tests/test_jsonrpc.py",
    "tests/test_tools.py",
    "tests/test_contract.py",
    "tests/test_wire.py",
    # Real `noru mcp` processes over pipes and sockets, and the official SDK client.
    "tests/test_history.py",
    "tests/test_stdio.py",
    "tests/test_stdio_history.py",
    "tests/test_http.py",
]
NOT_FOUND = (
    "official MCP schemas: not found; validated with mcp.types and Noru's per-revision rules"
)


def tracked_files() -> list[str]:
    require(shutil.which("git") is not None, "git is needed to list the tracked files")
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, timeout=60
    )
    require(listed.returncode == 0, f"not a git checkout: {listed.stderr.decode()[-500:]}")
    return [name for name in listed.stdout.decode().split("\0") if name]


def clone_without_neighbours(target: Path) -> None:
    for name in tracked_files():
        source = ROOT / name
        if not source.is_file():  # deleted in the working tree, not yet committed
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)


def run(command: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run ``command`` to its end; it is killed by its pid if the test gives up."""
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        out, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out


def test_a_clone_with_nothing_beside_it_validates_every_response_and_passes(
    tmp_path: Path,
) -> None:
    clone = tmp_path / "noru"
    clone_without_neighbours(clone)
    assert not (tmp_path / "shared").exists()
    env = {k: v for k, v in os.environ.items() if k not in ("NORU_MCP_SCHEMAS", "CI")}
    env["PYTHONPATH"] = str(clone / "src")

    # The copy's code is what runs, not this checkout's (installed editable).
    code, out = run(
        [
            sys.executable,
            "-c",
            "import noru, tests.wire; print(noru.__file__, tests.wire.__file__)",
        ],
        cwd=clone,
        env=env,
    )
    assert code == 0, out
    assert [Path(p).is_relative_to(clone) for p in out.split()] == [True, True], out

    code, out = run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", *MODULES],
        cwd=clone,
        env=env,
    )
    assert code == 0, out[-6000:]
    assert NOT_FOUND in out.splitlines(), out[-3000:]
    summary = out.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed, \d+ skipped in .*", summary), summary
    # Only what needs the official schemas themselves is skipped.
    skips = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert skips and all("needs the official MCP schemas" in line for line in skips), skips
