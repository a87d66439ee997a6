"""observe_screen beside two peer MCP servers and a plain Pillow pipeline, in one run.

On a private 2560x1600 Xvfb filled with a full-screen window of source code
(the capture_pipeline bench's screen), the official MCP Python SDK client
(``mcp``, stdio transport) starts each server, initializes, and takes 3
looks to warm up, then N (default 30), one look of each in turn so that all
see the same machine (this shared host's speed drifts within minutes). A
look is timed on the client's wall clock, from the ``call_tool`` to its
parsed result:

    noru                   observe_screen(target="display"), from an allowed app
                           without OCR and ocr_settle 0 (the capture path alone,
                           as in observe_vs_pipeline's pair): a 1568 px PNG inline
    noru get_capture       a capture of that screen kept in the history (its
                           original read and served), whole and a 600x400 region
    computer-control-mcp   take_screenshot() with no arguments: mss grabs every
                           monitor, saved to a PNG in a new temp dir (never removed;
                           here under a temp dir of ours), and sent back inline as
                           an image, full size
    mcp-screenshot-server  capture_screenshot(mode="fullscreen") returns only an
                           id and the size (JSON, no pixels; Pillow's ImageGrab over
                           XCB); get_image(image_id) then returns the stored PNG
                           inline. A look is both calls; each is also printed
    in-process Pillow      in this process, in the same turns: grab (mss, Pillow
      pipeline             decoding its BGRX), Pillow's Lanczos to 1568 px on one
                           thread, PNG at Pillow's default level, base64 (the
                           yardstick issue 26 names)

Then, on a second Xvfb with two 2560x1600 RandR monitors side by side,
Noru's observe_screen(target="all_displays") alone, timed alike.

The peers are pinned (``PEERS``) and installed from PyPI into their own
virtualenv, bench/out/peers-venv, made once and reused (``ensure_peers``);
computer-control-mcp pins its own dependencies (mcp 1.13.0, Pillow 11.3.0),
which mcp-screenshot-server's loose ones accept. Both need DISPLAY (the
pyautogui computer-control-mcp imports opens it at start) and no screenshot
program (no scrot: Pillow's wheels grab over XCB); computer-control-mcp also
needs tkinter in the interpreter (pyautogui's MouseInfo exits without it:
python3-tk with Debian's Python; the capture_pipeline screen needs it too).
Each result is checked to hold an image. Prints the median and p95 of each
look, in ms, the served images' pixels and bytes, and Noru's ratios to the
fastest peer and to the Pillow pipeline. Every server is stopped by the SDK
(stdin closed, then its process group killed); none may be left running
after (pgrep), and each one's stderr is kept in bench/out/<name>.stderr.

    .venv/bin/python bench/peers.py [--runs 30]
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import anyio
import mss
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, ImageContent
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
from capture_pipeline import MAX_EDGE, host_speed, screen_of_code
from noru.imaging import fit_long_edge
from observe_vs_pipeline import BIN, Agent, app_running, p95, x11_session


@dataclass(frozen=True)
class Look:
    """How a server looks at the whole screen: ``tool`` with ``arguments``, then,
    for a server that answers with an id, ``fetch`` given that ``image_id``."""

    tool: str
    arguments: dict[str, object]
    fetch: str | None = None


@dataclass(frozen=True)
class Peer:
    version: str
    script: str  # its console script, an MCP server on stdio with no arguments
    look: Look


PEERS = {
    "computer-control-mcp": Peer("0.3.14", "computer-control-mcp", Look("take_screenshot", {})),
    "mcp-screenshot-server": Peer(
        "0.1.0",
        "mcp-screenshot-server",
        Look("capture_screenshot", {"mode": "fullscreen"}, fetch="get_image"),
    ),
}
NORU_LOOK = Look("observe_screen", {"target": "display"})
PILLOW = "in-process Pillow pipeline"  # the yardstick (pillow_pipeline)


@dataclass(frozen=True)
class Server:
    argv: list[str]
    env: dict[str, str]  # over the SDK's default environment (HOME, PATH, ...)
    look: Look


class Served(NamedTuple):
    """The image a look returned (the first, when it returned several)."""

    width: int
    height: int
    mime_type: str
    size: int  # bytes of the images
    wire: int  # characters of their base64
    count: int = 1


@dataclass
class Timing:
    looks: list[float] = field(default_factory=list)  # ms per look, all its calls
    calls: dict[str, list[float]] = field(default_factory=dict)  # ms per call, by tool
    image: Served | None = None  # of the last look


def _installed(venv: Path) -> bool:
    """Whether ``venv`` runs and holds every peer at its pinned version."""
    check = "import importlib.metadata as m, sys; sys.exit(any(m.version(n) != v for n, v in {}))"
    pins = [(name, peer.version) for name, peer in PEERS.items()]
    python = venv / "bin" / "python"
    return (
        python.exists()
        and all((venv / "bin" / peer.script).exists() for peer in PEERS.values())
        and subprocess.run([python, "-c", check.format(pins)], capture_output=True).returncode == 0
    )


def ensure_peers(root: Path) -> dict[str, list[str]]:
    """A virtualenv at ``root / "peers-venv"`` holding the pinned peers, made
    (from PyPI) unless it already works; {peer: argv of its stdio MCP server}."""
    venv = root / "peers-venv"
    if not _installed(venv):
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pins = [f"{name}=={peer.version}" for name, peer in PEERS.items()]
        subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "-q", *pins], check=True)
        if not _installed(venv):
            raise SystemExit(f"the peers did not install into {venv}")
    return {name: [str(venv / "bin" / peer.script)] for name, peer in PEERS.items()}


def served(result: CallToolResult) -> Served:
    """The images in a tool's result; fails unless there is one at least."""
    images = [block for block in result.content if isinstance(block, ImageContent)]
    assert images, result
    data = [base64.b64decode(image.data) for image in images]
    with Image.open(io.BytesIO(data[0])) as first:
        width, height = first.size
    return Served(
        width,
        height,
        images[0].mime_type,
        sum(len(d) for d in data),
        sum(len(image.data) for image in images),
        len(images),
    )


async def _call(
    session: ClientSession, tool: str, arguments: dict[str, object], ms: dict[str, float]
) -> CallToolResult:
    start = time.perf_counter()
    result = await session.call_tool(tool, arguments)
    ms[tool] = (time.perf_counter() - start) * 1000
    assert not result.is_error, result
    return result


async def look_once(session: ClientSession, look: Look) -> tuple[dict[str, float], Served]:
    """One look: the ms of each call, and the image it ended with."""
    ms: dict[str, float] = {}
    result = await _call(session, look.tool, look.arguments, ms)
    if look.fetch is not None:
        assert result.structured_content is not None, result
        image_id = result.structured_content["image_id"]
        result = await _call(session, look.fetch, {"image_id": image_id}, ms)
    return ms, served(result)


async def _open(stack: AsyncExitStack, server: Server, errlog: Path) -> ClientSession:
    log = stack.enter_context(errlog.open("w"))
    params = StdioServerParameters(command=server.argv[0], args=server.argv[1:], env=server.env)
    read, write = await stack.enter_async_context(stdio_client(params, errlog=log))
    session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=60))
    await session.initialize()
    return session


async def time_servers(
    servers: dict[str, Server],
    runs: int,
    warmups: int = 3,
    logs: Path | None = None,
    local: dict[str, Callable[[], Served]] | None = None,
) -> dict[str, Timing]:
    """Each server's ``runs`` looks after ``warmups``, one look of each in turn,
    and in the same turns each of ``local`` (in-process pipelines, timed
    alike); the servers' stderr into ``logs / "<name>.stderr"`` (default:
    discarded)."""
    timings = {name: Timing() for name in (*servers, *(local or {}))}
    async with AsyncExitStack() as stack:
        sessions = {
            name: await _open(stack, server, logs / f"{name}.stderr" if logs else Path(os.devnull))
            for name, server in servers.items()
        }
        for run in range(warmups + runs):
            turns: list[tuple[str, dict[str, float], Served]] = []
            for name, session in sessions.items():
                turns.append((name, *await look_once(session, servers[name].look)))
            for name, pipeline in (local or {}).items():
                start = time.perf_counter()
                image = pipeline()
                turns.append((name, {name: (time.perf_counter() - start) * 1000}, image))
            if run < warmups:
                continue
            for name, ms, image in turns:
                timing = timings[name]
                timing.looks.append(sum(ms.values()))
                for tool, t in ms.items():
                    timing.calls.setdefault(tool, []).append(t)
                timing.image = image
    return timings


def pillow_pipeline(screen: mss.MSS) -> Served:
    """The issue's yardstick, in this process: grab the display (mss, its
    BGRX decoded by Pillow: the plain way, not Noru's capture code, so that
    a change there cannot move the yardstick), Pillow's Lanczos to 1568 px
    on one thread, Pillow's PNG at its default level (6), base64."""
    shot = screen.grab(screen.monitors[1])
    image = Image.frombytes("RGB", shot.size, shot.raw, "raw", "BGRX")
    size = fit_long_edge(image.width, image.height, MAX_EDGE)
    buffer = io.BytesIO()
    image.resize(size, Image.Resampling.LANCZOS).save(buffer, format="PNG")
    wire = base64.b64encode(buffer.getvalue())
    return Served(size[0], size[1], "image/png", len(buffer.getvalue()), len(wire))


def _pgrep(*args: str) -> set[int]:
    found = subprocess.run(["pgrep", *args], capture_output=True, text=True).stdout
    return {int(pid) for pid in found.split()}


def report(timings: dict[str, Timing], runs: int) -> None:
    print(f"2560x1600 screen of code, {runs} looks each after 3 warm-ups, in turn; ms")
    print(f"{'server: look':54} {'median':>8} {'p95':>8}  served image")
    for name, timing in timings.items():
        rows = [(f"{name}: {' + '.join(timing.calls)}", timing.looks)]
        if len(timing.calls) > 1:
            rows += [(f"  {tool}", times) for tool, times in timing.calls.items()]
        image = timing.image
        assert image is not None
        shown = (
            f"  {f'{image.count} x ' if image.count > 1 else ''}{image.width}x{image.height} "
            f"{image.mime_type}, {image.size:,} B ({image.wire:,} base64)"
        )
        for i, (label, times) in enumerate(rows):
            line = f"{label:54} {statistics.median(times):8.1f} {p95(times):8.1f}"
            print(line + shown if i == 0 else line)


def _ratios(timings: dict[str, Timing]) -> None:
    noru = statistics.median(timings["noru"].looks)
    fastest = min(statistics.median(timings[name].looks) for name in PEERS)
    pillow = statistics.median(timings[PILLOW].looks)
    print(
        f"noru observe_screen / fastest peer: {noru / fastest:.2f}  (goal <= 0.17); "
        f"/ in-process Pillow pipeline: {noru / pillow:.2f}  (goal <= 0.30)"
    )


def _side_by_side(out: Path, tmp: Path, runs: int) -> dict[str, Timing]:
    """Noru's looks (live, a stored capture, a region of it), the peers' and
    the in-process Pillow pipeline, in turn, on one 2560x1600 screen."""
    peers = ensure_peers(out)
    with (
        screen_of_code() as display,
        app_running(tmp / "noru", x11_session(display), settle=0, ocr=False) as (_, env),
        mss.MSS(display=display) as screen,
    ):
        agent = Agent(env)
        try:
            _, _, stored = agent.look_at("display")  # a capture kept in the history
        finally:
            agent.close()
        noru = [str(BIN / "noru"), "mcp"]
        peer_env = {"DISPLAY": display, "TMPDIR": str(tmp)}
        servers = {
            "noru": Server(noru, env, NORU_LOOK),
            "noru get_capture (stored)": Server(noru, env, Look("get_capture", {"id": stored})),
            "noru get_capture (region 600x400)": Server(
                noru, env, Look("get_capture", {"id": stored, "region": [400, 250, 600, 400]})
            ),
            **{name: Server(argv, peer_env, PEERS[name].look) for name, argv in peers.items()},
        }
        local = {PILLOW: lambda: pillow_pipeline(screen)}
        return anyio.run(time_servers, servers, runs, 3, out, local)


def _two_monitors(out: Path, tmp: Path, runs: int) -> dict[str, Timing]:
    """observe_screen of all displays on two 2560x1600 monitors side by side."""
    with (
        screen_of_code(monitors=2) as display,
        app_running(tmp / "noru-two", x11_session(display), settle=0, ocr=False) as (_, env),
    ):
        look = Look("observe_screen", {"target": "all_displays"})
        servers = {"noru all_displays (2 monitors)": Server([str(BIN / "noru"), "mcp"], env, look)}
        return anyio.run(time_servers, servers, runs, 3, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    out = Path(__file__).parent / "out"
    children = _pgrep("-P", str(os.getpid()))
    speed = host_speed()
    with tempfile.TemporaryDirectory() as tmp:
        timings = _side_by_side(out, Path(tmp), args.runs)
        two = _two_monitors(out, Path(tmp), args.runs)
    left = (_pgrep("-P", str(os.getpid())) - children) | _pgrep("-f", str(out / "peers-venv"))
    report(timings, args.runs)
    _ratios(timings)
    report(two, args.runs)
    print(
        f"host speed (bench/capture_pipeline.host_speed): {speed:.0f} ms before, "
        f"{host_speed():.0f} ms after"
    )
    if left:
        raise SystemExit(f"left running: {sorted(left)}")


if __name__ == "__main__":
    main()
