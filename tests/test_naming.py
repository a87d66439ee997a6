"""What a capture is called, and where the person's controls are said to be.

A display capture is named as a display wherever it is described (the
agent's header and image label, locator rows and resources, `noru list` and
`noru show`, the console's cards, captions and alternative text), a window
as its window; the contract's ``structuredContent`` sources stay its six
facts. A refusal the person lifts in the Noru menu adds, where no panel
shows that menu, that the same control is in the Noru console. Real parts
throughout: a real app on Xvfb, the official MCP SDK client over a real
`noru mcp`'s pipes, the CLI and the console as processes, a real session
bus with this test as the panel host.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from noru.access import set_control
from tests.app_process import running_app, wait_until
from tests.history_data import seed
from tests.noru_cli import noru
from tests.panel_host import PanelHost
from tests.sdk import sdk_params, validate_log
from tests.session_bus import running_session_bus
from tests.test_app import configure, window_under_pointer
from tests.test_console import running_console

if TYPE_CHECKING:
    from tests.xserver import TkWindow, XServer

    OpenWindow = Callable[..., TkWindow]

TITLE = "bash - secrets demo"
CONSOLE_TOO = "the same control is in the Noru console"
# "display 1", with the output's name when the platform gives one.
DISPLAY = r"display 1(?: \([^)]*\))?"


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if block.type == "text"]


def sdk_calls(home: Path, log: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The official SDK client's results for ``calls``, in order, over a real `noru mcp`."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    results: list[Any] = []

    async def body() -> None:
        with (log.parent / "sdk.stderr").open("w") as errlog:
            transport = stdio_client(sdk_params(home, log), errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=60) as client:
                for name, arguments in calls:
                    if name == "resources/list":
                        results.append(await client.list_resources())
                    else:
                        results.append(await client.call_tool(name, arguments))

    anyio.run(body)
    assert validate_log(log) >= len(calls)
    return results


def test_a_display_capture_is_named_as_a_display_and_a_window_as_its_window(
    home: Path, desktop: XServer, open_window: OpenWindow, tmp_path: Path
) -> None:
    """An observe_screen of the display with a terminal active is described
    to the model as the display (its active window after it), not as the
    terminal; a window capture keeps its window's name; the person's list,
    show and console say the same."""
    configure(home)
    window_under_pointer(desktop, open_window, title=TITLE)
    with running_app(home, desktop.env, tmp_path / "app.log"):
        set_control(home, "allow")
        shot, look = sdk_calls(
            home,
            tmp_path / "wire.log",
            [("observe_screen", {"target": "display"}), ("observe_screen", {})],
        )
    display_id = shot.structured_content["id"]
    window_id = look.structured_content["id"]

    # The agent's header and image label.
    header, label = texts(shot)[:2]
    assert re.search(rf"origin agent; {DISPLAY}, active window \"{TITLE}\"", header), header
    assert re.match(rf"Image 1 of 1: {DISPLAY}, served at ", label), label
    header, label = texts(look)[:2]
    assert f'window "{TITLE}"' in header and "active window" not in header
    assert label.startswith(f'Image 1 of 1: window "{TITLE}", served at '), label

    # Contract 4's sources stay the six facts, the window's title among them.
    (fetched,) = sdk_calls(home, tmp_path / "wire2.log", [("get_capture", {"id": display_id})])
    (source,) = fetched.structured_content["sources"]
    assert set(source) == {
        "display_index", "display_name", "app_id", "app_name", "window_title", "workspace_hint",
    }  # fmt: skip
    assert source["window_title"] == TITLE and source["display_index"] == 1
    assert re.match(rf"Image 1 of 1: {DISPLAY}, served at ", texts(fetched)[1])

    # The agent's rows and the person's, one line each.
    listed, resources = sdk_calls(
        home, tmp_path / "wire3.log", [("list_captures", {}), ("resources/list", {})]
    )
    described = {r.name: r.description for r in resources.resources}
    assert re.search(rf"1 image\(s\), {DISPLAY} · active: {TITLE}", described[display_id])
    assert f", Noru-test · {TITLE}" in described[window_id]
    for rows in (texts(listed)[0], noru("list", home=home, ok=True).stdout):
        # Both may be taken in one second: the second's id is the first's and "-2".
        display_row = next(line for line in rows.splitlines() if f" {display_id} · " in line)
        window_row = next(line for line in rows.splitlines() if f" {window_id} · " in line)
        assert re.search(rf" · {DISPLAY} · active window \"{TITLE}\"", display_row), display_row
        assert f'window "{TITLE}"' in window_row and "active window" not in window_row
    rows = {row["id"]: row for row in json.loads(noru("list", "--json", home=home, ok=True).stdout)}
    assert rows[display_id]["shows"] == "display" and rows[window_id]["shows"] == "window"
    assert rows[display_id]["window_title"] == TITLE  # the active window, as sources say
    shown = noru("show", display_id, home=home, ok=True).stdout
    assert re.search(rf"image 1 +\d+x\d+ px; {DISPLAY}, active window \"{TITLE}\"", shown)

    # The console's cards, captions and alternative text.
    with running_console(home) as console:
        cookie = console.sign_in()
        _, _, page = console.request("GET", "/", cookie=cookie)
        timeline = page.decode()
        _, _, page = console.request("GET", f"/capture/{display_id}", cookie=cookie)
        viewer = page.decode()
        _, _, page = console.request("GET", f"/capture/{window_id}", cookie=cookie)
        window_viewer = page.decode()
    card = timeline[timeline.index(f'data-capture="{display_id}"') :].split("</li>", 1)[0]
    assert re.search(r'<span class="src">display 1 · active: [^<]+</span>', card), card
    assert re.search(rf'alt="Capture of {DISPLAY}, “{TITLE}” active, ', card), card
    card = timeline[timeline.index(f'data-capture="{window_id}"') :].split("</li>", 1)[0]
    assert re.search(r'<span class="src">Noru-test window · [^<]*display 1</span>', card), card
    assert f'alt="Capture of the window “{TITLE}”, ' in card
    assert re.search(rf"<figcaption>\d+x\d+ px · {DISPLAY} · active: {TITLE}", viewer), viewer
    assert "<dt>Shows</dt><dd>the whole of display 1" in viewer
    assert "<dt>Active window</dt>" in viewer
    assert re.search(rf"<figcaption>\d+x\d+ px · window: {TITLE} · ", window_viewer)
    assert "<dt>Shows</dt><dd>one window, on display 1" in window_viewer


def test_without_a_running_app_a_revoke_points_at_the_console_too(
    home: Path, tmp_path: Path
) -> None:
    """No app, no Noru menu: the steering keeps the menu's words and adds the
    console, and never a command an agent could run to let itself in."""
    seed(home)
    set_control(home, "revoke")
    (listed,) = sdk_calls(home, tmp_path / "wire.log", [("list_captures", {})])
    text = texts(listed)[0]
    assert text.startswith("Noru history revoked")
    next_line = text.splitlines()[-1]
    assert "open the Noru menu and explicitly restore agent observations" in next_line
    assert CONSOLE_TOO in next_line
    assert "noru allow" not in text and "noru console" not in text


def test_the_console_is_named_only_while_no_panel_shows_the_menu(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    """While a panel host shows the running app's menu, a pause is answered
    with the menu's words alone; once the host leaves, the same answer adds
    the console, and `noru status` says where the controls are."""
    configure(home)
    with (
        running_session_bus(tmp_path / "bus") as bus,
        running_app(home, {**desktop.env, **bus.env}, tmp_path / "app.log"),
    ):
        host = PanelHost(bus.address)
        try:
            wait_until(lambda: len(host.items) == 1, "the menu registered with the host")
            set_control(home, "allow")
            set_control(home, "pause")
            assert "Noru menu: shown in the panel" in noru("status", home=home, ok=True).stdout
            (shown,) = sdk_calls(home, tmp_path / "wire.log", [("observe_screen", {})])
        finally:
            host.close()
        wait_until(
            lambda: "Noru menu: not shown" in noru("status", home=home, ok=True).stdout,
            "the app noticing the host left",
        )
        (hidden,) = sdk_calls(home, tmp_path / "wire2.log", [("observe_screen", {})])
    for result in (shown, hidden):
        assert texts(result)[0].startswith("Noru paused")
        assert "Resume Agent Perception in the Noru menu" in texts(result)[0]
    assert "Noru console" not in texts(shown)[0]
    assert CONSOLE_TOO in texts(hidden)[0].splitlines()[-1]
