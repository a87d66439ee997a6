"""MCP over stdio: newline-delimited UTF-8 JSON.

stdout carries protocol only: anything else that tries to print goes to
stderr. The server exits cleanly (status 0) on EOF and on SIGTERM.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
from pathlib import Path
from typing import BinaryIO

from noru.errors import InvalidRequest
from noru.mcp.session import Session, serve

__all__ = ["MAX_LINE", "StdioStream", "run_stdio"]

MAX_LINE = 16 * 1024 * 1024  # one message; the largest legitimate request is tiny


class StdioStream:
    def __init__(self, reader: BinaryIO, writer: BinaryIO, *, max_line: int = MAX_LINE) -> None:
        self.reader = reader
        self.writer = writer
        self.max_line = max_line

    def receive(self) -> bytes | None:
        while True:
            line = self.reader.readline(self.max_line + 1)
            if not line:
                return None
            if len(line) > self.max_line and not line.endswith(b"\n"):
                self._drain()
                raise InvalidRequest(f"Invalid request: message larger than {self.max_line} bytes")
            line = line.strip(b" \t\r\n")
            if line:
                return line

    def _drain(self) -> None:
        """Skip the rest of an oversized line, in bounded chunks."""
        while True:
            chunk = self.reader.readline(1024 * 1024)
            if not chunk or chunk.endswith(b"\n"):
                return

    def send(self, data: bytes) -> None:
        self.writer.write(data + b"\n")
        self.writer.flush()


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(0)


def run_stdio(home: Path) -> None:
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="noru mcp: %(levelname)s %(message)s"
    )
    reader, writer = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must never corrupt the protocol stream
    signal.signal(signal.SIGTERM, _stop)
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(Session(home=home, transport="stdio"), StdioStream(reader, writer))
