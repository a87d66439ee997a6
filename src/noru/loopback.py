"""Loopback: what a Host or Origin header must name for Noru's local servers
(`noru mcp --http`, `noru console`) to answer it, and the socket and server
loop both run on.

A page on any web site can make the browser send requests to 127.0.0.1; with
DNS rebinding its own host name can even resolve there. Checking that the
Host header names loopback (and, for a browser's writes, the Origin) is what
stops such a page.
"""

from __future__ import annotations

import ipaddress
import signal
import socket
from collections.abc import Callable
from typing import Any

__all__ = [
    "is_loopback_authority",
    "is_loopback_name",
    "is_loopback_origin",
    "listen",
    "serve",
    "split_authority",
]


def is_loopback_name(host: str, *, bracketed: bool) -> bool:
    """``localhost``, an IPv4 address in 127.0.0.0/8, or (in brackets) ::1."""
    if not bracketed and host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback and (address.version == 6) == bracketed


def split_authority(value: str) -> tuple[str, bool, str | None] | None:
    """``host[:port]`` or ``[v6]:port`` as (host, bracketed, port); None if malformed."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest, bracketed = value[1:end], value[end + 1 :], True
        if rest and not rest.startswith(":"):
            return None
        port = rest[1:] if rest else None
    else:
        host, sep, tail = value.partition(":")
        port, bracketed = (tail if sep else None), False
    if port is not None and not (port.isascii() and port.isdigit() and len(port) <= 5):
        return None
    return host, bracketed, port


def is_loopback_authority(value: str) -> bool:
    """Whether a Host header value (``host[:port]``) names this machine's loopback."""
    parts = split_authority(value)
    return parts is not None and is_loopback_name(parts[0], bracketed=parts[1])


def is_loopback_origin(value: str) -> bool:
    """Whether an Origin header value (``scheme://host[:port]``) is loopback."""
    scheme, sep, authority = value.partition("://")
    return bool(sep) and scheme.lower() in ("http", "https") and is_loopback_authority(authority)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on a loopback ``host`` (``localhost``: 127.0.0.1)."""
    address = "127.0.0.1" if host.lower() == "localhost" else host
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio turns Nagle off (TCP_NODELAY) only on
    # sockets that say so, and with Nagle on, every answer waits ~40 ms for the
    # client's delayed ACK of its headers before the body goes out.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((address, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve(app: Any, sock: socket.socket, *, started: Callable[[], None] = lambda: None) -> None:
    """Serve the ASGI ``app`` on ``sock`` with uvicorn until SIGTERM or SIGINT;
    ``started`` runs once the stop signals are in place, before serving."""
    import uvicorn

    config = uvicorn.Config(
        app,
        http="h11",
        ws="none",
        lifespan="off",
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=5,
    )
    server = uvicorn.Server(config)

    def stop(signum: int, frame: object) -> None:
        # Before uvicorn takes the signals over, and again when it re-raises the
        # one it caught after a graceful shutdown: either way, just stop.
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    started()
    with sock:
        server.run(sockets=[sock])
