"""The real agent clients, each installed at a pinned version and run headless.

An ``Agent`` knows one client: its npm package and pinned version, the
command it installs, the model API it speaks (a ``standin.Dialect``), the
exact ``clientInfo.name`` it sends, how it names Noru's tools to its model,
and how it is set up in a private HOME:

- with Noru configured the way a person would (from `noru config CLIENT`:
  the client's own file, or its own ``mcp add`` line; for Streamable HTTP
  from `noru config CLIENT --http URL`, with ``NORU_TOKEN`` in the client's
  environment as that snippet says, or left out to see the client refused);
- pointed at the stand-in model through the client's own base-URL setting;
- with nothing reaching beyond loopback (telemetry, update checks and
  feature flags off through the client's own settings).

``install`` brings every pinned client from the npm registry into the cache
(scripts/node-tools), once. ``Agent.run`` runs one prompt to the end and
returns what the process said; the stand-in holds what the model got.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.clients.standin import Anthropic, Call, ChatCompletions, Dialect, Gemini, Responses
from tests.wire import noru_command

__all__ = ["AGENTS", "Agent", "Launch", "Noru", "install"]

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("NORU_CACHE") or Path.home() / ".cache" / "noru")
RUN_TIMEOUT = 300  # a whole tour of the tools, on a loaded machine (a guard)


@dataclass(frozen=True)
class Noru:
    """How a client reaches Noru: ``noru mcp`` over stdio in data dir ``home``,
    or the Streamable HTTP endpoint ``url``, with ``token`` (what `noru token
    show` printed) in the client's ``NORU_TOKEN``, or None for a client
    without it."""

    home: Path
    url: str | None = None
    token: str | None = None

    def config(self, client: str) -> tuple[str, str]:
        """`noru config CLIENT` (with ``--http URL`` for a URL): (stdout, stderr)."""
        return _noru_config(client, self.home, *(("--http", self.url) if self.url else ()))

    def env(self) -> dict[str, str]:
        """What the person exported where the client starts."""
        return {"NORU_TOKEN": self.token} if self.url and self.token else {}


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    cwd: Path


def _noru_config(client: str, home: Path, *options: str) -> tuple[str, str]:
    """`noru config CLIENT [OPTIONS]` as the person runs it: (stdout, stderr)."""
    done = subprocess.run(
        [*noru_command(), "config", client, *options],
        env={**os.environ, "NORU_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def _folders(work: Path) -> tuple[Path, Path]:
    """The client's private HOME and its project (where it runs) in ``work``, made."""
    home, project = work / "home", work / "project"
    for folder in (home, project):
        folder.mkdir(exist_ok=True)
    return home, project


def _env(home: Path, node_bin: Path, noru: Noru, own: dict[str, str]) -> dict[str, str]:
    """A clean environment: a private HOME, Node 22 first on PATH, no proxy;
    then the client's ``own`` settings, and what the person exported for
    Noru (``Noru.env``)."""
    return {
        "HOME": str(home),
        "PATH": f"{node_bin}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        **own,
        **noru.env(),
    }


def _prefixed(prefix: str) -> Callable[[str], tuple[str, str | None]]:
    """A client that offers Noru's tool ``name`` to its model as ``prefix``
    and the name, in no namespace."""
    return lambda name: (f"{prefix}{name}", None)


@dataclass(frozen=True)
class Agent:
    key: str  # `noru config KEY`, and the client's row in docs/clients.md
    product: str
    package: str
    version: str
    program: str  # its command in node_modules/.bin
    dialect: Dialect
    client_name: str  # the clientInfo.name it sends at initialize
    # Noru's tool `name` as the client offers it to its model: (name, namespace).
    exposed: Callable[[str], tuple[str, str | None]]
    prepare: Callable[[Path, Path, Path, str, Noru, dict[str, Any]], Launch]
    # `CLIENT mcp list`: its arguments; and what its output says of a connected Noru.
    list_args: tuple[str, ...] = ("mcp", "list")
    connected: Callable[[str], bool] = lambda out: False
    # The client's own tool that reads an MCP resource, called for a URI.
    resource: Callable[[str], Call] | None = None
    # The client's own search of deferred tools, and how a found tool shows in
    # its result (Received text).
    search: Callable[[str], Call] | None = None
    found: Callable[[str], str] = lambda name: name

    def tool(self, name: str, arguments: dict[str, Any] | None = None, **more: Any) -> Call:
        exposed, namespace = self.exposed(name)
        return Call(exposed, dict(arguments or {}), namespace=namespace, **more)

    def executable(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / self.program

    def launch(
        self, prefix: Path, node_bin: Path, work: Path, api: str, noru: Noru, **options: Any
    ) -> Launch:
        """Set the client up in ``work`` (its HOME and project) and say how to
        run it with ``prompt`` still to be added."""
        work.mkdir(parents=True, exist_ok=True)
        exe = self.executable(prefix)
        launch = self.prepare(exe, work, node_bin, api, noru, options)
        return Launch([str(exe), *launch.argv], launch.env, launch.cwd)

    def run(self, launch: Launch, prompt: str, log: Path) -> subprocess.CompletedProcess[str]:
        """The client run headless on ``prompt`` to its end (its output kept in ``log``)."""
        argv = [a.replace("{prompt}", prompt) for a in launch.argv]
        done = _run_in(launch, argv)
        log.write_text(
            f"$ {shlex.join(argv)}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
        )
        return done

    def list_servers(self, launch: Launch) -> tuple[int, str]:
        """`CLIENT mcp list` in the set-up ``launch``'s HOME and project: its
        exit status, and what it printed (stdout, then stderr), colours removed."""
        done = _run_in(launch, [launch.argv[0], *self.list_args])
        return done.returncode, re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)


def _run_in(launch: Launch, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv`` run to its end in ``launch``'s environment and folder, with
    nothing on its stdin; its output kept."""
    return subprocess.run(
        argv,
        env=launch.env,
        cwd=launch.cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


# --- Claude Code ---------------------------------------------------------------------


def _claude_prepare(
    exe: Path, work: Path, node_bin: Path, api: str, noru: Noru, options: dict[str, Any]
) -> Launch:
    home, project = _folders(work)
    own = {
        "ANTHROPIC_BASE_URL": api,
        "ANTHROPIC_API_KEY": "sk-ant-stand-in",
        # Nothing beyond loopback: no telemetry, error reports or update checks.
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    if options.get("tool_search") is False:
        own["ENABLE_TOOL_SEARCH"] = "false"
    env = _env(home, node_bin, noru, own)
    # The README's line, as `noru config claude-code [--http URL]` prints it.
    _, where = noru.config("claude-code")
    line = where.split("Alternatively: ", 1)[1].splitlines()[0].strip()
    words = shlex.split(line)
    assert words[:3] == ["claude", "mcp", "add"], line
    added = subprocess.run(
        [str(exe), *words[1:]],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr
    argv = [
        "-p", "{prompt}",
        # A person allows Noru's tools once; headless, the allowance is given here.
        "--allowedTools", "mcp__noru,ReadMcpResourceTool,ListMcpResourcesTool",
        "--output-format", "json",
    ]  # fmt: skip
    return Launch(argv, env, project)


def _claude_connected(out: str) -> bool:
    return any(line.startswith("noru: ") and "✔ Connected" in line for line in out.splitlines())


CLAUDE_CODE = Agent(
    key="claude-code",
    product="Claude Code",
    package="@anthropic-ai/claude-code",
    version="2.1.332",
    program="claude",
    dialect=Anthropic(),
    client_name="claude-code",
    exposed=_prefixed("mcp__noru__"),
    prepare=_claude_prepare,
    connected=_claude_connected,
    resource=lambda uri: Call("ReadMcpResourceTool", {"server": "noru", "uri": uri}),
    search=lambda query: Call("ToolSearch", {"query": query}),
    found=lambda name: f"[tool_reference mcp__noru__{name}]",
)


# --- OpenAI Codex CLI ----------------------------------------------------------------

# A model of Codex's own catalog that calls tools as functions (the newest
# ones call them from JavaScript in "code mode"); its tools are deferred
# behind Codex's tool search, as for every catalog model.
CODEX_MODEL = "gpt-5.5"


def _codex_prepare(
    exe: Path, work: Path, node_bin: Path, api: str, noru: Noru, options: dict[str, Any]
) -> Launch:
    home, project = _folders(work)
    codex_home = work / "codex"
    codex_home.mkdir(exist_ok=True)
    server, _ = noru.config("codex")  # `noru config codex [--http URL]`, as it is
    config = f"""model = "{options.get("model", CODEX_MODEL)}"
model_provider = "stand_in"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false

[model_providers.stand_in]
name = "stand-in"
base_url = "{api}/v1"
wire_api = "responses"
env_key = "STAND_IN_API_KEY"
request_max_retries = 0
stream_max_retries = 0

{server}
required = true
"""
    (codex_home / "config.toml").write_text(config)
    env = _env(
        home, node_bin, noru, {"CODEX_HOME": str(codex_home), "STAND_IN_API_KEY": "sk-stand-in"}
    )
    argv = ["exec", "--skip-git-repo-check", "--ephemeral", "--json", "{prompt}"]
    return Launch(argv, env, project)


def _codex_exposed(name: str) -> tuple[str, str | None]:
    return name, "mcp__noru"


def _codex_connected(out: str) -> bool:
    # Its JSON, then its warnings (a CODEX_HOME under /tmp gets one).
    try:
        servers, _ = json.JSONDecoder().raw_decode(out[out.index("[") :])
    except ValueError:
        return False
    return any(s.get("name") == "noru" and s.get("enabled") for s in servers)


CODEX = Agent(
    key="codex",
    product="OpenAI Codex CLI",
    package="@openai/codex",
    version="0.171.0",
    program="codex",
    dialect=Responses(),
    client_name="codex-mcp-client",
    exposed=_codex_exposed,
    prepare=_codex_prepare,
    list_args=("mcp", "list", "--json"),
    connected=_codex_connected,
    resource=lambda uri: Call("read_mcp_resource", {"server": "noru", "uri": uri}),
    search=lambda query: Call("tool_search", {"query": query}, kind="tool_search"),
    found=lambda name: f"[tool mcp__noru.{name}]",
)


# --- Gemini CLI ----------------------------------------------------------------------


def _gemini_prepare(
    exe: Path, work: Path, node_bin: Path, api: str, noru: Noru, options: dict[str, Any]
) -> Launch:
    home, project = _folders(work)
    (home / ".gemini").mkdir(exist_ok=True)
    servers = json.loads(noru.config("gemini")[0])["mcpServers"]
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "mcpServers": servers,
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))
    own = {
        "GEMINI_API_KEY": "stand-in-key",
        "GOOGLE_GEMINI_BASE_URL": api,
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }
    env = _env(home, node_bin, noru, own)
    return Launch(["-p", "{prompt}", "-o", "json"], env, project)


def _gemini_connected(out: str) -> bool:
    return any(
        line.strip().startswith("✓ noru:") and line.rstrip().endswith("Connected")
        for line in out.splitlines()
    )


GEMINI = Agent(
    key="gemini",
    product="Gemini CLI",
    package="@google/gemini-cli",
    version="0.61.0",
    program="gemini",
    dialect=Gemini(),
    client_name="gemini-cli-mcp-client",
    exposed=_prefixed("mcp_noru_"),
    prepare=_gemini_prepare,
    connected=_gemini_connected,
    resource=lambda uri: Call("read_mcp_resource", {"uri": uri}),
)


# --- opencode --------------------------------------------------------------------------

# A model opencode is told takes images and calls tools, behind an
# OpenAI-compatible provider (built into opencode: nothing is downloaded).
_OPENCODE_MODEL = {
    "name": "stand-in",
    "tool_call": True,
    "attachment": True,
    "modalities": {"input": ["text", "image"], "output": ["text"]},
    "limit": {"context": 200000, "output": 8192},
}


def _opencode_prepare(
    exe: Path, work: Path, node_bin: Path, api: str, noru: Noru, options: dict[str, Any]
) -> Launch:
    home, project = _folders(work)
    config_dir = home / ".config" / "opencode"
    # Its plugin package counts as installed, so it does not ask the npm
    # registry for it at every start.
    (config_dir / "node_modules").mkdir(parents=True, exist_ok=True)
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}
    (config_dir / "package-lock.json").write_text(json.dumps(lock))
    servers = json.loads(noru.config("opencode")[0])["mcp"]
    config = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": "stand-in/model",
        "small_model": "stand-in/model",
        "enabled_providers": ["stand-in"],
        "provider": {
            "stand-in": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Stand-in",
                "options": {"baseURL": f"{api}/v1", "apiKey": "sk-stand-in"},
                "models": {"model": _OPENCODE_MODEL},
            }
        },
        "mcp": servers,
    }
    (config_dir / "opencode.json").write_text(json.dumps(config, indent=2))
    own = {
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    }
    return Launch(["run", "{prompt}"], _env(home, node_bin, noru, own), project)


def _opencode_connected(out: str) -> bool:
    return "✓ noru connected" in out


OPENCODE = Agent(
    key="opencode",
    product="opencode",
    package="opencode-ai",
    version="1.18.33",
    program="opencode",
    dialect=ChatCompletions(),
    client_name="opencode",
    exposed=_prefixed("noru_"),
    prepare=_opencode_prepare,
    connected=_opencode_connected,
    resource=lambda uri: Call("read_mcp_resource", {"server": "noru", "uri": uri}),
)


# --- GitHub Copilot CLI ----------------------------------------------------------------


def _copilot_prepare(
    exe: Path, work: Path, node_bin: Path, api: str, noru: Noru, options: dict[str, Any]
) -> Launch:
    home, project = _folders(work)
    copilot_home = home / ".copilot"
    copilot_home.mkdir(exist_ok=True)
    (copilot_home / "mcp-config.json").write_text(noru.config("copilot")[0])
    # A model of the person's own provider ("bring your own key"): no GitHub
    # account then. Copilot passes an image on only to a model it is told sees.
    providers = {
        "providers": [
            {"name": "stand-in", "type": "openai", "baseUrl": f"{api}/v1", "apiKey": "sk-stand-in"}
        ],
        "models": [
            {"id": "model", "provider": "stand-in", "capabilities": {"supports": {"vision": True}}}
        ],
    }
    (copilot_home / "providers.json").write_text(json.dumps(providers, indent=2))
    own = {
        "COPILOT_HOME": str(copilot_home),
        "COPILOT_AUTO_UPDATE": "false",
        # The package it unpacks at its first start (235 MB), kept between runs.
        "XDG_CACHE_HOME": str(CACHE / "copilot"),
    }
    env = _env(home, node_bin, noru, own)
    argv = [
        "-p", "{prompt}",
        "--model", "stand-in/model",
        "--allow-all-tools",
        "--no-auto-update",
        "--disable-client-telemetry",
        "--disable-builtin-mcps",
        "--no-custom-instructions",
        "--no-ask-user",
    ]  # fmt: skip
    return Launch(argv, env, project)


COPILOT = Agent(
    key="copilot",
    product="GitHub Copilot CLI",
    package="@github/copilot",
    version="1.0.102",
    program="copilot",
    dialect=ChatCompletions(),
    client_name="copilot-cli",
    exposed=_prefixed("noru-"),
    prepare=_copilot_prepare,
    # It only reads its file; whether Noru connects shows in a run.
    connected=lambda out: "noru (local)" in out,
)


AGENTS: dict[str, Agent] = {a.key: a for a in (CLAUDE_CODE, CODEX, GEMINI, OPENCODE, COPILOT)}


def install(agents: list[Agent]) -> tuple[Path, dict[str, Path]]:
    """Node 22 and every agent's pinned package (scripts/node-tools, once into
    the cache): Node's bin directory, and each agent's install prefix."""
    done = subprocess.run(
        [str(ROOT / "scripts" / "node-tools"), *(f"{a.package}@{a.version}" for a in agents)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"could not install the agent clients: {done.stderr[-2000:]}")
    lines = done.stdout.split()
    node_bin, prefixes = Path(lines[0]), [Path(p) for p in lines[1:]]
    return node_bin, {a.key: p for a, p in zip(agents, prefixes, strict=True)}


if __name__ == "__main__":  # `python -m tests.clients.agents`: install them now
    print(install(list(AGENTS.values())), file=sys.stderr)
