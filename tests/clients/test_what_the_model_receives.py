"""What the model receives: Noru in the agent clients people use, end to end.

Each real agent client (tests/clients/agents.py, pinned, from the npm
registry) runs headless against a real `noru app` on a real X server with
a real xterm showing known text, Noru configured as `noru config CLIENT`
says, and the model's API stood in on loopback (tests/clients/standin.py,
the one fake: the model cannot run here). The stand-in's model takes the
tour (tests/clients/tour.py): the capture the person just took, history by
id and by region, search, the list, a fresh look, the status, a look while
paused, a resource; the client's own tool search where it has one. Every
request the client then sent its model is recorded, and each test checks
one answer as the model got it: its image, header, the words the xterm
showed, the note, the prov line, the steering and its Next: step.

A client release that stops delivering any of them fails here; so does a
client that starts delivering what Noru's table says it drops (the
``contract`` runs: the person's ``result_shape = "contract"``), which means
the table's row is out of date.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from noru import accesslog
from noru.access import set_control
from noru.mcp.clients import MEASURED
from noru.mcp.session import instructions
from noru.mcp.tools.catalog import TOOLS
from noru.store import Reader
from tests import real_terminals
from tests.app_process import SETTLE_FOR_TESTS, running_app, wait_until
from tests.clients.agents import AGENTS, Agent, Noru
from tests.clients.harness import Installed, Run, installed, noru_token, run_client
from tests.clients.standin import Received
from tests.clients.tour import Expect, Step, missing
from tests.http_process import HttpServer
from tests.parts import require
from tests.real_clients import Client
from tests.wire import noru_command
from tests.xserver import XServer

# What the xterm shows (its bitmap font, which Noru reads exactly), and the
# person's note on their capture.
SCREEN = (
    "$ kubectl rollout status deploy/ledger-api",
    'Waiting for deployment "ledger-api" rollout to finish: 2 of 3 updated',
    'error: deployment "ledger-api" exceeded its progress deadline',
    "$ grep -n QUARTZ config/app.env",
    "14:QUARTZ_LEDGER_REGION=eu-west-3",
    "15:QUARTZ_LEDGER_POOL=17",
    "$ tail -n 2 logs/worker.log",
    "worker-7 retry 4/5: upstream timed out after 30s",
    "worker-7 giving up on batch 88213",
)
WORDS = ("ledger-api", "exceeded its progress deadline", "QUARTZ_LEDGER_REGION=eu-west-3",
         "batch 88213")  # fmt: skip
NOTE = "the rollout that stalled"
# What a person types into a client's tool search.
SEARCHES = ("screen", "what is on my screen", "look at my screen", "screenshot")
LIVE = ("get_latest_capture", "observe_screen")


@pytest.fixture(scope="module")
def clients() -> Installed:
    return installed()


@pytest.fixture(scope="module")
def terminal(desktop: XServer) -> Iterator[Client]:
    problem = real_terminals.missing("xterm")
    require(problem is None, problem or "")
    with real_terminals.open_xterm(desktop, SCREEN, columns=80, rows=12, x=240, y=180) as client:
        yield client


@dataclass
class Screen:
    home: Path
    env: dict[str, str]
    terminal: Client
    work: Path
    runs: dict[str, Run] = field(default_factory=dict)


@pytest.fixture(scope="module")
def screen(
    tmp_path_factory: pytest.TempPathFactory, desktop: XServer, terminal: Client
) -> Iterator[Screen]:
    home = tmp_path_factory.mktemp("clients-home")
    home.chmod(0o700)
    (home / "config.toml").write_text(SETTLE_FOR_TESTS)
    set_control(home, "allow")
    env = {**desktop.env, "NORU_HOME": str(home)}
    with running_app(home, env, home / "app.log"):
        yield Screen(home, env, terminal, tmp_path_factory.mktemp("clients"))


def take_capture(screen: Screen) -> str:
    """The person's capture of the xterm, with a note, once its text is read."""
    screen.terminal.bring_under_pointer()
    taken = subprocess.run(
        [*noru_command(), "capture", "--note", NOTE],
        env=screen.env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert taken.returncode == 0, taken.stderr
    capture_id = taken.stdout.strip().split()[-1]

    def read() -> bool:
        with Reader.open(screen.home) as reader:
            record = reader.get(capture_id)
        return record is not None and record.ocr_state != "pending"

    wait_until(read, "the OCR of the person's capture")
    return capture_id


def region_of_first_lines(screen: Screen, capture_id: str) -> list[int]:
    """A region of the capture's served image holding the xterm's first two rows."""
    with Reader.open(screen.home) as reader:
        record = reader.get(capture_id)
    assert record is not None
    lines = [line for line in record.images[0].ocr_lines or () if line.text]
    # Served at native size (the window is small): the rows above the third.
    return [0, 0, record.images[0].width, lines[2].box[1]]


# --- the tour --------------------------------------------------------------------


def capture_expect(*, note: bool, words: tuple[str, ...] = WORDS) -> Expect:
    return Expect(image=True, header=True, words=words, note=NOTE if note else None, prov=True)


def tour(agent: Agent, screen: Screen, capture_id: str, *, search: bool) -> list[Step]:
    """Every tool once, in the order an agent would call them."""
    steps: list[Step] = []
    if search:
        steps += search_steps(agent)
    region = region_of_first_lines(screen, capture_id)
    added = dict.fromkeys(MEASURED[agent.client_name].adds, True)
    steps += [
        Step("get_latest_capture", agent.tool("get_latest_capture"), capture_expect(note=True)),
        # With what the client adds to every tool's schema, as its model may send it.
        Step("get_capture", agent.tool("get_capture", {"id": capture_id, **added}),
             capture_expect(note=True)),
        Step("get_capture region", agent.tool("get_capture", {"id": capture_id,
                                                               "region": region}),
             Expect(image=True, header=True, words=("kubectl rollout status",),
                    absent=("QUARTZ_LEDGER_POOL",), prov=True)),
        Step("search_captures", agent.tool("search_captures", {"query": "progress deadline"}),
             Expect(words=("Noru search for",), ids=(capture_id,), prov=True)),
        Step("list_captures", agent.tool("list_captures", {"limit": 5}),
             Expect(words=("Noru history:",), ids=(capture_id,), prov=True)),
        Step("observe_screen", agent.tool("observe_screen", {}), capture_expect(note=False)),
        Step("get_status", agent.tool("get_status"),
             Expect(words=("Noru status", "Live requests now: allowed"))),
        Step("observe_screen while paused",
             agent.tool("observe_screen", {}, before=lambda: set_control(screen.home, "pause")),
             Expect(tag="Noru paused", next_step=True)),
    ]  # fmt: skip
    if agent.resource is not None:
        steps.append(
            Step(
                "resources/read",
                agent.resource(f"noru-capture://{capture_id}"),
                # The text entry, as the client passes a resource on (often as JSON).
                Expect(words=(f"Noru capture {capture_id}", "ledger-api", "prov: !px")),
            )
        )
    return steps


def search_steps(agent: Agent) -> list[Step]:
    """The client's own search of its deferred tools, with a person's words."""
    steps = []
    for query in SEARCHES:
        call = agent.search(query) if agent.search is not None else None
        if call is not None:
            found = tuple(agent.found(name) for name in LIVE)
            steps.append(Step(f"tool search {query!r}", call, Expect(words=found)))
    return steps


VARIANTS: dict[str, dict[str, Any]] = {
    "stdio": {},
    "http": {"http": True},
    "contract": {"result_shape": "contract"},  # the person forces contract 4
    "no tool search": {"tool_search": False},  # Claude Code's ENABLE_TOOL_SEARCH=false
}


def run_tour(screen: Screen, clients: Installed, key: str, variant: str) -> Run:
    """The tour by client ``key`` in ``variant``, run once per module."""
    name = f"{key} {variant}"
    if name not in screen.runs:
        agent, options = AGENTS[key], VARIANTS[variant]
        capture_id = take_capture(screen)
        searching = agent.search is not None and options.get("tool_search", True)
        steps = tour(agent, screen, capture_id, search=searching)
        try:
            screen.runs[name] = run_client(
                agent, steps, clients=clients, home=screen.home, settings=SETTLE_FOR_TESTS,
                work=screen.work / name.replace(" ", "-"), variant=variant,
                capture_id=capture_id, **options,
            )  # fmt: skip
        finally:
            set_control(screen.home, "resume")
    return screen.runs[name]


# --- the tests ---------------------------------------------------------------------

MAIN = [(key, step) for key in AGENTS for step in (
    "get_latest_capture", "get_capture", "get_capture region", "search_captures",
    "list_captures", "observe_screen", "get_status", "observe_screen while paused",
)]  # fmt: skip


@pytest.mark.parametrize(("key", "label"), MAIN, ids=[f"{k}: {s}" for k, s in MAIN])
def test_the_model_receives_every_answer_whole(
    screen: Screen, clients: Installed, key: str, label: str
) -> None:
    run = run_tour(screen, clients, key, "stdio")
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    step, got = run.got(label)
    lost = missing(step, got)
    assert not lost, f"{AGENTS[key].product} did not pass on: {'; '.join(lost)}"


@pytest.mark.parametrize(("key", "label"), MAIN, ids=[f"{k}: {s}" for k, s in MAIN])
def test_over_streamable_http_the_model_receives_every_answer_whole(
    screen: Screen, clients: Installed, key: str, label: str
) -> None:
    run = run_tour(screen, clients, key, "http")
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    assert {entry["transport"] for entry in run.log} == {"http"}
    step, got = run.got(label)
    lost = missing(step, got)
    assert not lost, f"{AGENTS[key].product} over HTTP did not pass on: {'; '.join(lost)}"


SEARCHING = [(key, query) for key, agent in AGENTS.items() if agent.search for query in SEARCHES]


@pytest.mark.parametrize(("key", "query"), SEARCHING, ids=[f"{k}: {q}" for k, q in SEARCHING])
def test_a_client_s_tool_search_finds_noru_s_live_tools_by_a_person_s_words(
    screen: Screen, clients: Installed, key: str, query: str
) -> None:
    run = run_tour(screen, clients, key, "stdio")
    step, got = run.got(f"tool search {query!r}")
    lost = missing(step, got)
    assert not lost, f"{AGENTS[key].product}'s search for {query!r} did not find: {lost}"


def test_with_its_tool_search_off_claude_code_offers_every_noru_tool_at_once(
    screen: Screen, clients: Installed
) -> None:
    run = run_tour(screen, clients, "claude-code", "no tool search")
    first = run.stand_in.turns[0].body
    offered = run.agent.dialect.tools(first)
    assert {f"mcp__noru__{name}" for name in TOOLS} <= set(offered)
    assert "ToolSearch" not in offered
    told = run.agent.dialect.told(first)
    assert all(spec.description in told for spec in TOOLS.values())
    for step in run.steps:
        assert not missing(step, run.got(step.label)[1]), step.label


RESOURCES = [key for key, agent in AGENTS.items() if agent.resource]
RESOURCE_IMAGES = {"opencode"}


@pytest.mark.parametrize("key", RESOURCES)
def test_a_resource_read_reaches_the_model_as_its_text_and_prov_line(
    screen: Screen, clients: Installed, key: str
) -> None:
    run = run_tour(screen, clients, key, "stdio")
    step, got = run.got("resources/read")
    lost = missing(step, got)
    assert not lost, f"{AGENTS[key].product} did not pass on the resource's {lost}"
    # Only opencode shows a resource's PNG blob to its model as an image.
    assert got is not None and bool(got.images) is (key in RESOURCE_IMAGES)


DROPPING = [key for key, agent in AGENTS.items() if MEASURED[agent.client_name].drops]


@pytest.mark.parametrize("key", DROPPING)
def test_served_contract_4_as_it_is_the_client_still_drops_what_its_row_says(
    screen: Screen, clients: Installed, key: str
) -> None:
    """The evidence behind the table's row: with structuredContent present
    (result_shape = "contract"), the model loses what the row names. When a
    client release stops dropping it, this fails: measure again and update
    noru.mcp.clients and docs/clients.md."""
    run = run_tour(screen, clients, key, "contract")
    drops = MEASURED[run.agent.client_name].drops
    assert {entry["shape"] for entry in run.log if entry["method"] == "tools/call"} == {"contract"}
    _, got = run.got("get_capture")
    assert got is not None
    lost = set()
    if not got.images:
        lost.add("image")
    if not all(part in got.text for part in (f"Noru capture {run.capture_id}", NOTE, "prov: !px")):
        lost.add("text")
    assert lost == set(drops), (lost, got.text[:500])
    # Its model gets the JSON of structuredContent, and was not told of a prov line.
    assert f'"id":"{run.capture_id}"' in got.text.replace(" ", "")
    told = "\n".join(run.agent.dialect.told(turn.body) for turn in run.stand_in.turns)
    assert "'prov:' line" not in told


def test_the_model_is_told_of_the_prov_line_only_where_it_receives_it(
    screen: Screen, clients: Installed
) -> None:
    for key in AGENTS:
        for variant in ("stdio", "contract") if key in DROPPING else ("stdio",):
            run = run_tour(screen, clients, key, variant)
            told = "\n".join(run.agent.dialect.told(turn.body) for turn in run.stand_in.turns)
            received = run.stand_in.received()
            captures = [
                got for step, got in zip(run.steps, received, strict=False) if step.expect.header
            ]
            gets_prov = all("prov: " in got.text for got in captures)
            if "'prov:' line" in told:
                assert gets_prov, f"{key} {variant}: told of a prov line it does not get"


# What each client passes on of initialize's instructions, as measured:
# whole, or not at all (Copilot CLI passes only those of servers on a list of
# GitHub's).
INSTRUCTED = {"claude-code": True, "codex": True, "gemini": True, "opencode": True,
              "copilot": False}  # fmt: skip


@pytest.mark.parametrize("key", sorted(AGENTS))
def test_initialize_s_instructions_reach_the_model_where_the_client_passes_them(
    screen: Screen, clients: Installed, key: str
) -> None:
    run = run_tour(screen, clients, key, "stdio")
    told = "\n".join(run.agent.dialect.told(turn.body) for turn in run.stand_in.turns)
    whole = instructions(gets_text=True)
    assert (whole in told or whole.replace("'", "\\'") in told) is INSTRUCTED[key], told[:3000]
    # Every tool's description reaches it, in the turn that offers the tool.
    assert all(spec.description in told.replace("\\n", "\n") for spec in TOOLS.values())


@pytest.mark.parametrize("key", sorted(AGENTS))
def test_each_client_loads_noru_from_its_noru_config_snippet(
    screen: Screen, clients: Installed, key: str, tmp_path: Path
) -> None:
    agent = AGENTS[key]
    node_bin, prefixes = clients
    launch = agent.launch(
        prefixes[key], node_bin, tmp_path, "http://127.0.0.1:9", Noru(screen.home)
    )
    status, out = agent.list_servers(launch)
    assert status == 0 and agent.connected(out), out[-2000:]
    # And the tour's session was this client's, as it named itself.
    run = run_tour(screen, clients, key, "stdio")
    assert {entry["client"] for entry in run.log} == {agent.client_name}
    assert {entry["client_version"] for entry in run.log} == {agent.version}


# The clients whose `mcp list` connects to each server it lists (Codex and
# Copilot CLI only read their files there; their HTTP tours connect).
LISTING = ("claude-code", "gemini", "opencode")


@pytest.mark.parametrize("key", LISTING)
def test_over_http_a_client_connects_with_its_snippet_and_token_and_is_refused_without(
    clients: Installed, key: str, tmp_path: Path
) -> None:
    agent = AGENTS[key]
    node_bin, prefixes = clients
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    server = HttpServer(home, tmp_path)
    try:
        url = server.url()
        listed = {}
        for name, token in (("with", noru_token(home)), ("without", None)):
            launch = agent.launch(
                prefixes[key], node_bin, tmp_path / name, "http://127.0.0.1:9",
                Noru(home, url=url, token=token),
            )  # fmt: skip
            listed[name] = agent.list_servers(launch)
    finally:
        assert server.stop() == 0
    status, out = listed["with"]
    assert status == 0 and agent.connected(out), out[-2000:]
    assert not agent.connected(listed["without"][1]), listed["without"][1][-2000:]
    refused = [e["refused"] for e in accesslog.read(home) if e.get("method") == "refused"]
    # The client without it sent an empty Bearer or none: refused, every time.
    assert sum(r["count"] for r in refused) >= 1, refused
    assert sum(r["wrong"] + r["missing"] for r in refused) == sum(r["count"] for r in refused)
    assert noru_token(home) not in server.stderr()


CLIENTS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
CAPTURES = ("get_latest_capture", "get_capture", "get_capture region", "observe_screen")


def table(page: str, heading: str) -> dict[str, dict[str, str]]:
    """The Markdown table under ``heading``: each row by its first cell."""
    lines = page.split(f"## {heading}\n", 1)[1].splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("##"))
    rows = [line for line in lines[:end] if line.startswith("|")]
    head = [cell.strip() for cell in rows[0].strip("|").split("|")]
    return {
        cells[0]: dict(zip(head, cells, strict=True))
        for cells in ([c.strip() for c in row.strip("|").split("|")] for row in rows[2:])
    }


def measured_row(run: Run) -> dict[str, str]:
    """The row docs/clients.md must have for ``run``, from what its model got."""
    agent = run.agent

    def yes(passed: bool) -> str:
        return "yes" if passed else "no"

    def got(label: str) -> Received | None:
        return run.got(label)[1]

    capture = [got(label) for label in CAPTURES]
    whole = [got(label) for label in ("get_latest_capture", "get_capture", "observe_screen")]
    row = MEASURED[agent.client_name]
    serves = "content shape" if row.drops else "contract 4"
    if row.glues:
        serves += ", each text block ending a line"
    if agent.resource is None:
        resources = "not offered to the model"
    else:
        step, read = run.got("resources/read")
        resources = (
            ("text and image" if read and read.images else "text")
            if not missing(step, read)
            else "no"
        )
    if agent.search is None:
        search = "none: every tool offered"
    else:
        found = all(not missing(s, got(s.label)) for s in run.steps if s.label.startswith("tool"))
        search = "finds Noru's live tools" if found else "no"
    told = "\n".join(agent.dialect.told(turn.body) for turn in run.stand_in.turns)
    return {
        "client": agent.product,
        "version": agent.version,
        "Noru serves": serves,
        "image": yes(all(r is not None and r.images for r in capture)),
        "on-screen text": yes(
            all(r is not None and all(w in r.text for w in WORDS) for r in whole)
        ),
        "note": yes(all(r is not None and NOTE in r.text for r in whole[:2])),
        "prov line": yes(all(r is not None and "prov: " in r.text for r in capture)),
        "steering and Next:": yes(not missing(*run.got("observe_screen while paused"))),
        "resources/read": resources,
        "its tool search": search,
        "instructions": yes(instructions(gets_text=True) in told.replace("\\'", "'")),
    }


def test_the_table_in_docs_clients_md_is_what_the_harness_measured(
    screen: Screen, clients: Installed
) -> None:
    documented = table(CLIENTS_PAGE.read_text(), "What the model receives")
    measured = {AGENTS[key].product: measured_row(run_tour(screen, clients, key, "stdio"))
                for key in AGENTS}  # fmt: skip
    assert documented == measured
    # And each row of Noru's own table names the release the harness runs.
    assert {AGENTS[k].client_name: AGENTS[k].version for k in AGENTS} == {
        name: row.version for name, row in MEASURED.items()
    }
