"""Facts made from a redacted value are redacted with it, through a real
`noru mcp` (the official MCP SDK client over stdio) against a real store.

A window title holding a secret is redacted; so must be everything made
from it or beside it: the workspace hint inferred from the title, app
names, display names, in every row, header, sources list, resource listing
and no-match answer. And no filter matches inside a redacted value: an
agent filtering by a piece of the secret gets the answer it gets for a
random string, so it cannot rebuild the secret a character at a time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from noru.redact import index
from noru.redact import policy as policies
from noru.sources import Source, infer_workspace
from noru.store import NewImage, OcrLine, Store
from tests.history_data import png
from tests.sdk import sdk_params

HF = "hf_E03jo6QmT9vXr2LkPz8WnYc4BdHs7UaGf1"
PG = "jRxIq8Lm2Vp5Tz9W"
SK = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
TITLES = {
    "hf": f"HF_TOKEN={HF} python train.py - xterm",
    "pg": f"psql postgresql://admin:{PG}@db.internal/prod - xterm",
    # several secrets in one title
    "two": f"OPENAI_API_KEY={SK} PGPASSWORD={PG}x deploy.sh - xterm",
    # unicode around the secret
    "uni": f"Jörg’s büro — psql postgresql://jörg:{PG}y@db/prod – 数据 - xterm",
    # very long: the secret past the place a row would cut the title
    "long": "make " + "x" * 300 + f" HF_TOKEN={HF} - xterm",
}
# A title no rule matches is served as it is, and its hint with it.
PLAIN = "main.py - ledger-service - Visual Studio Code"
SECRETS = (HF, PG, SK)


def _pieces(secret: str) -> list[str]:
    """What an agent would try: prefixes, a middle, a suffix."""
    return [secret[:6], secret[:10], secret[4:12], secret[-6:]]


def _store(
    home: Path, *, app_name: str = "XTerm", display: str = "DP-1", indexed: bool = False
) -> dict[str, str]:
    """The captures of ``TITLES`` and ``PLAIN``; ``indexed``: agents' index
    made too (as the app makes it), so that their facts are read from it."""
    ids = {}
    with Store.open(home) as store:
        for key, title in [*TITLES.items(), ("plain", PLAIN)]:
            source = Source(
                display_index=1,
                display_name=display,
                app_id=app_name.lower() if key != "plain" else "code",
                app_name=app_name if key != "plain" else "Code",
                window_title=title,
                workspace_hint=infer_workspace(title),
            )
            record = store.add_capture(
                [NewImage(png(320, 200), 320, 200, source, "320x200")], origin="user"
            )
            store.set_ocr(
                record.id, engine="t", lines_per_image=[[OcrLine("select 1;", (0, 0, 90, 20), 1)]]
            )
            ids[key] = record.id
        if indexed:
            assert index.refresh(store, ["secrets", "cards"]) == len(ids)
    return ids


def _has(text: str, capture_id: str) -> bool:
    """Whether ``text`` names ``capture_id`` (not one of the same second's, ``-2``)."""
    return re.search(re.escape(capture_id) + r"(?![-0-9])", text) is not None


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def _served(result: Any) -> str:
    return _text(result) + json.dumps(result.structured_content or {})


def _leaks(served: str) -> list[str]:
    return [piece for secret in SECRETS for piece in _pieces(secret) if piece in served]


async def _with_client(home: Path, tmp_path: Path, body: Any) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    with (tmp_path / "sdk.stderr").open("w") as errlog:
        transport = stdio_client(sdk_params(home, tmp_path / "wire.log"), errlog=errlog)
        async with Client(transport, mode="legacy", read_timeout_seconds=60) as client:
            await body(client)


def _run(home: Path, tmp_path: Path, body: Any) -> None:
    anyio.run(_with_client, home, tmp_path, body)


def _same_but_value(a: str, b: str, value_a: str, value_b: str) -> bool:
    return a.replace(value_a, "VALUE") == b.replace(value_b, "VALUE")


@pytest.mark.parametrize("indexed", [False, True], ids=["computed", "indexed"])
def test_no_match_answers_list_only_values_as_agents_get_them(
    home: Path, tmp_path: Path, indexed: bool
) -> None:
    _store(home, indexed=indexed)
    answers: list[str] = []

    async def body(client: Any) -> None:
        for args in ({"workspace": "no-such-project"}, {"app": "no-such-app"}):
            answers.append(_text(await client.call_tool("list_captures", args)))
            answers.append(_text(await client.call_tool("get_capture", args)))
        answers.append(_text(await client.call_tool("search_captures", {"query": "nothingatall"})))

    _run(home, tmp_path, body)
    assert all(answer.startswith("Noru no match") for answer in answers), answers
    for answer in answers:
        assert _leaks(answer) == [], answer
        assert "ledger-service" in answer  # the plain title's hint is still named


@pytest.mark.parametrize("indexed", [False, True], ids=["computed", "indexed"])
def test_filters_never_match_inside_a_redacted_value(
    home: Path, tmp_path: Path, indexed: bool
) -> None:
    _store(home, indexed=indexed)
    random = "qZ7wK3"
    pairs: list[tuple[str, str, str, str]] = []

    async def body(client: Any) -> None:
        for tool in ("list_captures", "get_capture", "search_captures"):
            base = {"query": "select"} if tool == "search_captures" else {}
            guessed = _text(await client.call_tool(tool, {**base, "workspace": random}))
            for secret in SECRETS:
                for piece in _pieces(secret):
                    for name in ("workspace", "app"):
                        got = _text(await client.call_tool(tool, {**base, name: piece}))
                        pairs.append((got, guessed, piece, random))

    _run(home, tmp_path, body)
    for got, guessed, piece, random_value in pairs:
        assert got.startswith("Noru no match"), (piece, got)
        assert _same_but_value(got.replace("app=", "workspace="), guessed, piece, random_value), (
            got,
            guessed,
        )


def test_every_row_header_source_and_resource_is_as_agents_get_it(
    home: Path, tmp_path: Path
) -> None:
    ids = _store(home)
    served: list[str] = []
    plain: list[str] = []

    async def body(client: Any) -> None:
        served.append(_served(await client.call_tool("list_captures", {"limit": 50})))
        served.append(_served(await client.call_tool("search_captures", {"query": "select"})))
        for key, capture_id in ids.items():
            result = await client.call_tool("get_capture", {"id": capture_id})
            (plain if key == "plain" else served).append(_served(result))
        resources = await client.list_resources()
        served.append(json.dumps([r.model_dump(mode="json") for r in resources.resources]))
        for capture_id in ids.values():
            read = await client.read_resource(f"noru-capture://{capture_id}")
            served.append(read.contents[0].text)

    _run(home, tmp_path, body)
    everything = "\n".join(served)
    assert _leaks(everything) == []
    assert "[redacted: " in everything
    # A title no rule matches, and its hint, are served as they are.
    assert PLAIN in plain[0] and '"workspace_hint": "ledger-service"' in plain[0]
    # The workspace filter still finds it, and only it.
    found: list[str] = []

    async def filtered(client: Any) -> None:
        found.append(_text(await client.call_tool("list_captures", {"workspace": "ledger"})))

    _run(home, tmp_path, filtered)
    assert _has(found[0], ids["plain"])
    assert not any(_has(found[0], ids[key]) for key in TITLES)


@pytest.mark.parametrize("indexed", [False, True], ids=["computed", "indexed"])
def test_app_and_display_names_holding_a_secret_are_redacted_and_never_matched(
    home: Path, tmp_path: Path, indexed: bool
) -> None:
    hostile = f"deploy PGPASSWORD={PG}"
    ids = _store(home, app_name=hostile, display=f"HDMI token={SK}", indexed=indexed)
    served: list[str] = []
    asked = [("app", PG[:8]), ("display", SK[:10]), ("display", SK[-6:])]

    async def body(client: Any) -> None:
        served.append(_served(await client.call_tool("list_captures", {"limit": 50})))
        served.append(_served(await client.call_tool("get_capture", {"id": ids["hf"]})))
        served.append(_served(await client.call_tool("list_captures", {"app": "nothing"})))
        resources = await client.list_resources()
        served.append(json.dumps([r.model_dump(mode="json") for r in resources.resources]))
        for name, piece in asked:
            served.append(_served(await client.call_tool("list_captures", {name: piece})))

    _run(home, tmp_path, body)
    for n, (name, piece) in enumerate(asked, 4):
        assert served[n].startswith("Noru no match"), served[n]
        served[n] = served[n].replace(f"{name}={piece}", "VALUE")  # the agent's own words
    assert _leaks("\n".join(served)) == []
    assert "deploy PGPASSWORD=[redacted: " in served[0]
    assert "HDMI token=[redacted: " in served[0]


@pytest.mark.parametrize("key", sorted(TITLES))
def test_each_hostile_title_is_redacted_in_its_hint(key: str) -> None:
    """The unit rule behind the above: the hint an agent gets holds nothing of
    a redacted span, whatever the title (several secrets, unicode, long)."""
    from noru.redact.apply import source_for_agent
    from noru.redact.policy import Policy

    title = TITLES[key]
    raw = Source(app_name="XTerm", window_title=title, workspace_hint=infer_workspace(title))
    seen, kinds = source_for_agent(raw, Policy.of(["secrets", "cards"]))
    assert kinds
    assert _leaks(json.dumps(seen.as_dict())) == []
    assert seen.workspace_hint is None or seen.workspace_hint in re.sub(
        r"\[redacted: [a-z0-9-]+\]", "", seen.window_title or ""
    )


def _answers(home: Path, tmp_path: Path, ids: dict[str, str]) -> list[str]:
    """What an agent gets of every source fact: no-match values, filtered rows."""
    answers: list[str] = []

    async def body(client: Any) -> None:
        answers.append(_text(await client.call_tool("list_captures", {"workspace": "nothing"})))
        answers.append(_text(await client.call_tool("list_captures", {"workspace": "ledger"})))
        answers.append(_text(await client.call_tool("list_captures", {"app": "code"})))
        for piece in _pieces(HF) + _pieces(PG):
            answers.append(_text(await client.call_tool("list_captures", {"workspace": piece})))
        answers.append(_served(await client.call_tool("get_capture", {"id": ids["plain"]})))

    _run(home, tmp_path, body)
    return answers


def _agent_facts(home: Path) -> list[tuple[Any, ...]]:
    import sqlite3

    db = sqlite3.connect(home / "noru.sqlite3")
    try:
        return db.execute(
            "SELECT workspace_hint, agent_workspace_hint, agent_app_name FROM images"
        ).fetchall()
    finally:
        db.close()


def test_a_store_from_before_the_upgrade_is_served_redacted_then_indexed_again(
    home: Path, tmp_path: Path
) -> None:
    import sqlite3

    ids = _store(home, indexed=True)
    now = _answers(home, tmp_path, ids)
    # As a store of the version before: no agent_* facts, its index made.
    db = sqlite3.connect(home / "noru.sqlite3", isolation_level=None)
    db.execute("DELETE FROM migrations WHERE name = '0008_agent_sources'")
    for fact in ("app_name", "app_id", "workspace_hint", "display_name"):
        db.execute(f"ALTER TABLE images DROP COLUMN agent_{fact}")
    db.close()
    # noru mcp reads it before any writer has upgraded it: computed, the same.
    assert _answers(home, tmp_path, ids) == now
    assert _leaks(now[0]) == [] and "ledger-service" in now[0]
    with Store.open(home) as store:  # the upgrade forgets agents' index ...
        assert store.agents_fingerprint() is None
        assert index.refresh(store, ["secrets", "cards"]) == len(ids)  # ... made again
    facts = _agent_facts(home)
    assert _leaks(json.dumps([row[1:] for row in facts])) == []
    assert any(_leaks(str(row[0])) for row in facts)  # the person's copy stays as taken
    assert ("ledger-service", "ledger-service", "Code") in facts
    assert _answers(home, tmp_path, ids) == now


def test_a_rule_change_reaches_the_facts_at_once_and_the_index_after(
    home: Path, tmp_path: Path
) -> None:
    ids = _store(home, indexed=True)
    policies.add(home, policies.Pattern(r"ledger-\w+", "project"))
    before = _answers(home, tmp_path, ids)
    assert before[1].startswith("Noru no match")  # workspace=ledger finds nothing now
    assert "ledger-service" not in "\n".join(before)
    assert "[redacted: project]" in before[-1]
    with Store.open(home) as store:
        assert index.refresh(store, ["secrets", "cards"]) == len(ids)
    assert _answers(home, tmp_path, ids) == before
    assert not any("ledger" in str(row[1]) for row in _agent_facts(home))


@pytest.mark.parametrize(
    ("title", "hint"),
    [
        # the project beside the secret is still named
        (f"HF_TOKEN={HF} python train.py - ~/src/ml - xterm", "ml"),
        # a hint that is a secret, or holds part of one, is none
        (f"me@box: ~/src/{SK}", None),
        (f"psql postgresql://admin:{PG}@db.internal/prod - xterm", None),
        # a title no rule matches keeps its hint
        ("mysql -u root ledger - prod", "mysql -u root ledger"),
    ],
)
def test_the_hint_is_read_again_from_the_title_as_agents_get_it(
    title: str, hint: str | None
) -> None:
    from noru.redact.facts import source_for_agent
    from noru.redact.policy import Policy

    raw = Source(window_title=title, workspace_hint=infer_workspace(title))
    seen, _ = source_for_agent(raw, Policy.of(["secrets", "cards"]))
    assert seen.workspace_hint == hint


def test_the_persons_view_shows_the_source_facts_as_agents_get_them(home: Path) -> None:
    """`noru show` and the console say what agents get: a redacted title too."""
    from noru.redact.apply import agents_get
    from noru.redact.policy import Policy
    from noru.store import Reader

    ids = _store(home)
    with Reader.open(home) as reader:
        record = reader.get(ids["pg"])
        assert record is not None and PG in (record.images[0].source.window_title or "")
        seen = agents_get(record, Policy.of(["secrets", "cards"]))
    assert seen is not None and seen.summary == "1: url-password"
    (line,) = seen.lines
    assert line.startswith('source: app XTerm, window "psql postgresql://admin:[redacted: ')
    assert _leaks(line) == []
