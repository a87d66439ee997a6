"""The abstract message stream the session engine runs over, and an in-memory one.

A stream carries whole messages (one JSON text each). Transports adapt real
pipes and sockets to it; ``MemoryStream`` lets tests drive a session without
processes.
"""

from __future__ import annotations

import queue
from typing import Protocol

__all__ = ["MemoryStream", "MessageStream"]


class MessageStream(Protocol):
    def receive(self) -> bytes | None:
        """The next whole message, or None when the peer is gone."""

    def send(self, data: bytes) -> None:
        """Deliver one whole message to the peer."""


class MemoryStream:
    """Two queues: the test puts requests in and takes answers out."""

    def __init__(self) -> None:
        self.incoming: queue.Queue[bytes | None] = queue.Queue()
        self.outgoing: queue.Queue[bytes] = queue.Queue()

    def receive(self) -> bytes | None:
        return self.incoming.get()

    def send(self, data: bytes) -> None:
        self.outgoing.put(data)

    def close(self) -> None:
        self.incoming.put(None)
