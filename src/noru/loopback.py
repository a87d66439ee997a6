"""Loopback addresses: what a Host or Origin header must name for Noru's
local servers (`noru mcp --http`, `noru console`) to answer it.

A page on any web site can make the browser send requests to 127.0.0.1; with
DNS rebinding its own host name can even resolve there. Checking that the
Host header names loopback (and, for a browser's writes, the Origin) is what
stops such a page.
"""

from __future__ import annotations

import ipaddress

__all__ = ["is_loopback_authority", "is_loopback_name", "is_loopback_origin", "split_authority"]


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
