"""The web console: the person's timeline, search, viewer and controls, on loopback.

It is the person's trusted UI, as the CLI is: it can change what agents may
do, so ``guard`` lets only the person's own browser in (loopback Host, a
one-time sign-in link exchanged for a SameSite=Strict cookie, writes from
its own pages only). ``app`` holds the routes, ``pages`` the HTML. It never
speaks MCP, and ``noru mcp`` never serves it.
"""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path

__all__ = ["run_console"]


def _listen(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def run_console(home: Path, *, port: int = 0, open_browser: bool = False) -> int:
    """Serve the console on 127.0.0.1 until SIGTERM or SIGINT; the exit status.

    Prints the one-time sign-in URL (port 0: a free one)."""
    import uvicorn

    from noru.console.app import create_app
    from noru.console.guard import Keys

    try:
        sock = _listen(port)
    except OSError as exc:
        print(f"noru console: cannot listen on 127.0.0.1:{port}: {exc.strerror}", file=sys.stderr)
        return 1
    keys = Keys()
    bound = sock.getsockname()[1]
    url = f"http://127.0.0.1:{bound}/signin?token={keys.token}"
    config = uvicorn.Config(
        create_app(home, keys),
        http="h11",
        ws="none",
        lifespan="off",
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)

    def stop(signum: int, frame: object) -> None:
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"Noru console: open {url}", flush=True)
    print("(the link works once; stop the console with Ctrl-C)", file=sys.stderr, flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    with sock:
        server.run(sockets=[sock])
    return 0
