"""The largest answers Noru sends, against what each real client passes on.

A 2560x1600 display filled by a dense terminal (a real xterm, 420 columns of
log lines), and all displays of two screens (2560x1440 and 1920x1080, a
dense xterm on each), looked at with observe_screen by each agent client.
Each client's model must get the answer's end, its prov line, and either all
of the on-screen text or Noru's own cut, said in words with where the rest
is; never the client's own cut (its truncation marker, a preview, a file
path). The sizes are printed with the figures at the end of the run.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from noru.access import set_control
from noru.mcp.clients import MEASURED
from noru.store import Reader
from tests import real_terminals
from tests.app_process import SETTLE_FOR_TESTS, running_app
from tests.clients.agents import AGENTS
from tests.clients.harness import Installed, Run, installed, run_client
from tests.clients.tour import Expect, Step, missing
from tests.parts import FIGURES, require
from tests.real_clients import Client
from tests.xserver import XServer

# What a client puts in place of a result it cut (measured on each).
CLIENT_CUT = re.compile(
    r"<persisted-output>|\[OUTPUT TRUNCATED|exceeds maximum allowed tokens|Image left out"
    r"|tokens truncated|\[omitted \d+|Output too large|output was truncated"
)


def log_lines(count: int, columns: int, seed: int) -> list[str]:
    """Dense log lines, each as wide as the terminal (deterministic)."""
    pick = random.Random(seed)
    routes = ("/v1/accounts", "/v1/ledger/entries", "/v2/payouts", "/healthz", "/v1/rates")
    lines = []
    for n in range(count):
        line = (
            f"2026-12-02T05:{n % 60:02d}:{pick.randrange(60):02d}.{pick.randrange(1000):03d}Z "
            f"{pick.choice(('INFO', 'WARN', 'DEBUG'))} ledger-api[{7700 + n % 40}] "
            f"req={pick.randrange(16**6):06x} route={pick.choice(routes)}/{pick.randrange(99999)}"
        )
        while len(line) < columns - 24:
            line += f" k{pick.randrange(100)}={pick.randrange(10**6)}"
        lines.append(line[: columns - 1])
    return lines


@dataclass
class Screens:
    home: Path
    work: Path
    runs: dict[str, Run] = field(default_factory=dict)


def screens(
    tmp_path_factory: pytest.TempPathFactory, server: XServer, terminals: list[Client], name: str
) -> Iterator[Screens]:
    home = tmp_path_factory.mktemp(f"sizes-{name}")
    home.chmod(0o700)
    (home / "config.toml").write_text(SETTLE_FOR_TESTS)
    set_control(home, "allow")
    with running_app(home, {**server.env, "NORU_HOME": str(home)}, home / "app.log"):
        yield Screens(home, tmp_path_factory.mktemp(f"sizes-{name}-runs"))
    for terminal in terminals:
        terminal.close()


def dense(server: XServer, columns: int, rows: int, x: int, seed: int) -> Client:
    problem = real_terminals.missing("xterm")
    require(problem is None, problem or "")
    lines = log_lines(rows, columns, seed)
    return real_terminals.open_xterm(server, lines, columns=columns, rows=rows, x=x, y=0)


@pytest.fixture(scope="module")
def one_display(tmp_path_factory: pytest.TempPathFactory, desktop: XServer) -> Iterator[Screens]:
    terminal = dense(desktop, 420, 116, 0, seed=1)
    terminal.activate()
    yield from screens(tmp_path_factory, desktop, [terminal], "display")


@pytest.fixture(scope="module")
def two_displays(
    tmp_path_factory: pytest.TempPathFactory, two_monitors: XServer
) -> Iterator[Screens]:
    left = dense(two_monitors, 420, 104, 0, seed=2)
    right = dense(two_monitors, 316, 78, 2560, seed=3)
    left.activate()
    yield from screens(tmp_path_factory, two_monitors, [left, right], "two")


@pytest.fixture(scope="module")
def clients() -> Installed:
    return installed()


LOOKS = {"display": {"target": "display", "display": 1}, "all_displays": {"target": "all_displays"}}
CASES = [(key, look) for look in LOOKS for key in AGENTS]


@pytest.mark.parametrize(("key", "look"), CASES, ids=[f"{k}: {w}" for k, w in CASES])
def test_the_largest_answers_reach_the_model_whole_or_cut_by_noru_saying_so(
    request: pytest.FixtureRequest, clients: Installed, key: str, look: str
) -> None:
    where: Screens = request.getfixturevalue("one_display" if look == "display" else "two_displays")
    agent = AGENTS[key]
    step = Step(look, agent.tool("observe_screen", LOOKS[look]), Expect(image=True, header=True,
                                                                          prov=True))  # fmt: skip
    run = run_client(
        agent, [step], clients=clients, home=where.home, settings=SETTLE_FOR_TESTS,
        work=where.work / f"{key}-{look}", variant=f"largest answer, {look}",
    )  # fmt: skip
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    _, got = run.got(look)
    lost = missing(step, got)
    assert not lost, f"{agent.product} did not pass on: {'; '.join(lost)}"
    assert got is not None
    assert not CLIENT_CUT.search(got.text), f"{agent.product} cut the answer itself"
    served = next(e for e in run.log if e["target"] == "observe_screen")["captures"][0]["id"]
    with Reader.open(where.home) as reader:
        record = reader.get(served)
    assert record is not None and record.ocr_state == "done"
    expected = len(record.images)
    assert len(got.images) == expected
    stored = [line for line in record.ocr_text.splitlines() if line.strip()]
    cut = "Cut to fit:" in got.text
    budget = MEASURED[agent.client_name].budget
    if not cut:
        assert all(line in got.text for line in stored), "text lost without Noru saying so"
    else:
        assert budget is not None and len(stored) > 0
        # And where the rest is: a region of image 1, or which images' text.
        assert re.search(r"region \[\d+, \d+, \d+, \d+\]|text of image \d+ and after", got.text)
    FIGURES.append(
        f"largest answer, {look} ({record.images[0].width}x{record.images[0].height}"
        f"{' + ' + str(len(record.images) - 1) + ' more' if len(record.images) > 1 else ''}),"
        f" {agent.key}: {len(record.ocr_text.encode()):,} bytes of on-screen text,"
        f" the model got {len(got.text.encode()):,} bytes of text and {len(got.images)} image(s);"
        f" {'cut by Noru to its budget of ' + format(budget, ',') if cut else 'whole'}"
    )
