"""The web console: the person's timeline, search, viewer and controls, on loopback.

It is the person's trusted UI, as the CLI is: it can change what agents may
do, so ``guard`` lets only the person's own browser in (loopback Host, a
one-time sign-in link exchanged for a SameSite=Strict cookie, writes from
its own pages only). ``app`` holds the routes, ``pages`` the HTML. It never
speaks MCP, and ``noru mcp`` never serves it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from noru.loopback import listen, serve

__all__ = ["run_console"]


def run_console(
    home: Path,
    *,
    port: int = 0,
    open_browser: bool = False,
    opener: Callable[[str], None] | None = None,
    capture: str | None = None,
) -> int:
    """Serve the console on 127.0.0.1 until SIGTERM or SIGINT; the exit status.

    Prints the one-time sign-in URL (port 0: a free one), which leads to
    ``capture``'s page if given; ``opener`` opens it (else the browser, with
    ``open_browser``)."""
    from noru.console.app import create_app
    from noru.console.guard import Keys

    try:
        sock = listen("127.0.0.1", port)
    except OSError as exc:
        print(f"noru console: cannot listen on 127.0.0.1:{port}: {exc.strerror}", file=sys.stderr)
        return 1
    keys = Keys()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/signin?token={keys.token}"
    if capture is not None:
        url += f"&capture={capture}"

    def started() -> None:
        print(f"Noru console: open {url}", flush=True)
        print("(the link works once; stop the console with Ctrl-C)", file=sys.stderr, flush=True)
        if opener is not None:
            opener(url)
        elif open_browser:
            import webbrowser

            webbrowser.open(url)

    serve(create_app(home, keys), sock, started=started)
    return 0
