"""docs/cli.md documents every command, and every command has help."""

from __future__ import annotations

from pathlib import Path

import pytest

from noru.cli import main
from tests.noru_cli import invoke

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
CLI_DOC = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
COMMANDS = sorted(main.commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_section_in_docs_cli(command: str) -> None:
    assert f"### noru {command}\n" in CLI_DOC


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert main.commands[command].help  # type: ignore[attr-defined]


def test_the_readme_shows_the_two_commands() -> None:
    assert "make run" in README and "make test" in README


def test_the_readme_is_read_in_five_minutes() -> None:
    """At most 10 kB: what Noru is, the two commands, a client, the tools, the
    controls, where data lives; the rest is in docs/. (Its commands beside
    `make run` are run by tests/test_run.py, on a private display.)"""
    assert len(README.encode()) <= 10_000


@pytest.mark.parametrize(
    "doc", sorted(p.name for p in (Path(__file__).resolve().parents[1] / "docs").glob("*.md"))
)
def test_the_readme_links_every_page_of_docs(doc: str) -> None:
    assert f"](docs/{doc})" in README


ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_of_the_checkout(page: Path) -> None:
    """A link a newcomer follows (``[text](docs/x.md)``, an image) finds its file."""
    import re

    targets = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", page.read_text())
    local = [t for t in targets if "://" not in t and not t.startswith("mailto:")]
    missing = [t for t in local if not (page.parent / t).exists()]
    assert missing == []


# The README's commands: the block for "another terminal" needs the running
# app that `make run` starts, and runs beside it in
# tests/test_run.py::test_the_readmes_next_commands_pass_beside_make_run_doctor_included.
# The commands its section on connecting a client writes inline (each
# client's snippet, the HTTP token) run here as written, in a data dir of
# their own.
def readme_inline_commands() -> list[str]:
    import re

    section = README.split("## Connect an MCP client", 1)[1].split("\n## ", 1)[0]
    found = []
    for code in re.findall(r"`([^`\n]+)`", section):
        for part in code.split(" > ")[0].split(" >> ")[0].split("$(")[-1:]:
            part = part.strip().strip('"').removesuffix(")").strip()
            if part.startswith("noru ") and "CLIENT" not in part:
                found.append(part)
    return sorted(set(found))


def test_the_readme_writes_inline_commands_to_connect_clients() -> None:
    commands = readme_inline_commands()
    assert "noru config claude-code" in commands, commands
    assert "noru token show" in commands, commands
    assert any("--http" in c for c in commands), commands


@pytest.mark.parametrize("command", readme_inline_commands())
def test_each_command_the_readme_writes_inline_runs_as_written(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shlex

    monkeypatch.setenv("NORU_HOME", str(tmp_path / "noru"))
    args = shlex.split(command)[1:]
    if args[:1] == ["mcp"]:
        # `noru mcp --http 8765` serves until stopped: its help is what the
        # README's reader can run here; tests/test_http.py runs the server.
        args = [*args, "--help"]
    result = invoke(*args)
    assert result.exit_code == 0, f"{command}: {result.output}"
    assert result.stdout.strip(), command
