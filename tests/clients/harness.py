"""One agent client's run against Noru and the stand-in model, for the tests.

- ``installed``: Node 22 and every pinned client (``agents.install``); a
  missing npm or registry skips on a developer machine and fails under CI.
- ``run_client``: one client, set up in its own folder, asked one prompt
  while the stand-in model makes ``steps``' calls; Noru in data dir ``home``
  over stdio, or over a `noru mcp --http` started for the run and stopped
  by its pid. The person's ``config.toml`` for the run is ``settings`` plus
  ``result_shape`` when given, and is ``settings`` again afterwards.
  Everything the model got is kept in the run's folder (``model.jsonl``)
  beside the client's output (``run.log``). Over HTTP the client has the
  install's token as `noru token show` prints it (``NORU_TOKEN``), unless
  ``token=False``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noru import accesslog
from tests.clients.agents import AGENTS, Agent, Noru, install
from tests.clients.standin import Received, StandIn
from tests.clients.tour import Step
from tests.http_process import HttpServer
from tests.parts import FIGURES, require
from tests.wire import noru_command

__all__ = ["PROMPT", "Installed", "Run", "installed", "noru_token", "run_client"]

PROMPT = "What is on my screen right now?"
Installed = tuple[Path, dict[str, Path]]  # Node's bin directory, each client's prefix


def noru_token(home: Path) -> str:
    """`noru token show`, as the person runs it."""
    done = subprocess.run(
        [*noru_command(), "token", "show"],
        env={**os.environ, "NORU_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def installed() -> Installed:
    require(shutil.which("npm") is not None, "npm is needed to install the agent clients")
    try:
        return install(list(AGENTS.values()))
    except RuntimeError as exc:
        require(False, str(exc))
        raise


@dataclass
class Run:
    agent: Agent
    variant: str
    steps: list[Step]
    stand_in: StandIn
    process: subprocess.CompletedProcess[str]
    seconds: float
    log: list[dict[str, Any]]  # the access log's entries of the run
    capture_id: str | None = None  # the person's capture the run was about

    def got(self, label: str) -> tuple[Step, Received | None]:
        """The step called ``label`` and the model's copy of its result."""
        index = next(i for i, step in enumerate(self.steps) if step.label == label)
        received = self.stand_in.received()
        return self.steps[index], received[index] if index < len(received) else None


def run_client(
    agent: Agent,
    steps: list[Step],
    *,
    clients: Installed,
    home: Path,
    settings: str,
    work: Path,
    variant: str,
    capture_id: str | None = None,
    http: bool = False,
    result_shape: str | None = None,
    **options: Any,
) -> Run:
    node_bin, prefixes = clients
    shape = f'result_shape = "{result_shape}"\n' if result_shape else ""
    (home / "config.toml").write_text(settings + shape)
    before = len(list(accesslog.read(home)))
    work.mkdir(parents=True, exist_ok=True)
    server = HttpServer(home, work) if http else None
    try:
        noru = Noru(home)
        if server is not None:
            token = noru_token(home) if options.pop("token", True) else None
            noru = Noru(home, url=server.url(), token=token)
        with StandIn(agent.dialect, [step.call for step in steps]) as stand_in:
            launch = agent.launch(
                prefixes[agent.key], node_bin, work, stand_in.url, noru, **options
            )
            started = time.monotonic()
            done = agent.run(launch, PROMPT, work / "run.log")
            seconds = time.monotonic() - started
    finally:
        (home / "config.toml").write_text(settings)
        if server is not None:
            server.stop()
    with (work / "model.jsonl").open("w") as kept:
        for request in stand_in.requests:
            kept.write(json.dumps({"path": request.path, "body": request.body}) + "\n")
    assert not stand_in.failures, stand_in.failures
    log = list(accesslog.read(home))[before:]
    FIGURES.append(
        f"agent client {agent.key} ({variant}): {len(steps)} calls in {seconds:.1f} s, "
        f"{len(stand_in.turns)} turns, exit {done.returncode}"
    )
    return Run(agent, variant, steps, stand_in, done, seconds, log, capture_id)
