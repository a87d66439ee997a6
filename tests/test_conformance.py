"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, run by
scripts/conformance with Node 22 from the npm registry) against a real
`noru mcp --http`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.noru_cli import noru_command
from tests.parts import require

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = (
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "dns-rebinding-protection",
)
RESULT = re.compile(r"^conformance: (\S+): (PASS|FAIL) \((\d+)/(\d+) checks", re.M)
CANNOT_INSTALL = 3  # scripts/conformance: Node 22 or the suite could not be installed


def test_the_official_conformance_scenarios_pass(home: Path) -> None:
    require(shutil.which("npm") is not None, "npm is needed to install Node 22 and the suite")
    env = {**os.environ, "NORU_HOME": str(home)}
    command = noru_command()
    if len(command) == 1:
        env["NORU_BIN"] = command[0]
    proc = subprocess.Popen(
        [str(ROOT / "scripts" / "conformance"), *SCENARIOS],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=900)  # the first run downloads Node 22
    finally:
        if proc.poll() is None:
            proc.terminate()  # its EXIT trap stops the server it started
            try:
                proc.communicate(timeout=60)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    require(
        proc.returncode != CANNOT_INSTALL,
        f"could not install Node 22 or the conformance suite: {err[-2000:]}",
    )
    results = {m[1]: (m[2], int(m[3]), int(m[4])) for m in RESULT.finditer(out)}
    assert sorted(results) == sorted(SCENARIOS), out + err[-4000:]
    for scenario, (verdict, passed, total) in results.items():
        assert verdict == "PASS" and passed == total >= 1, (scenario, out, err[-4000:])
    assert proc.returncode == 0, err[-4000:]
    assert "Traceback" not in err
