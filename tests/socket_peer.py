"""A stand-in for the app at its socket: every connection gets one fixed reply.

The one seam where tests put something other than the real app: to speak
another protocol version than this checkout's, or to hold a state (OCR
working, say) the real app would reach only by a race.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from noru.paths import socket_path

__all__ = ["OneShotApp"]


class OneShotApp:
    """A socket in the data dir answering every connection with one fixed line."""

    def __init__(self, home: Path, answer: bytes) -> None:
        self.answer = answer
        self.received: list[bytes] = []
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(socket_path(home)))
        self.listener.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn, conn.makefile("rb") as reader:
                self.received.append(reader.readline())
                conn.sendall(self.answer)

    def close(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.thread.join(timeout=10)
