"""Running the app: single instance, the live socket, signals, clean stop.

``run_app`` takes an exclusive lock on ``app.lock`` (a second start says one
is running and exits non-zero), binds the socket with mode 0600 (a stale
socket file from a killed app is replaced), serves each connection in its own
thread, and stops cleanly on SIGTERM / SIGINT. What crosses the socket is
``noru.appwire``'s: this module only reads a request line and writes the reply.
"""

from __future__ import annotations

import contextlib
import faulthandler
import fcntl
import logging
import os
import signal
import socket
import socketserver
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from noru import __version__, appwire
from noru.errors import Busy, CaptureError, EditRefused, NoruError, Refusal
from noru.paths import socket_path

if TYPE_CHECKING:
    from noru.app.core import App

__all__ = ["AlreadyRunning", "run_app"]

log = logging.getLogger("noru.app")

MAX_CONNECTIONS = 32
# Seconds a stop may take: past them the app writes where each thread is (to
# stderr) and exits with status 1, so a stuck thread never keeps a stopped app
# (its lock and socket) alive. What the writer committed is safe in SQLite.
STOP_REPORT = 20.0


class AlreadyRunning(NoruError):
    pass


def _reply(line: bytes, app: App) -> appwire.Reply:
    try:
        request = appwire.decode_request(line)
    except appwire.Malformed as exc:
        return appwire.Failed(f"malformed request: {exc}")
    if isinstance(request, appwire.Mismatch):
        return appwire.Mismatch(protocol=appwire.PROTOCOL, app_version=__version__)
    try:
        return app.handle(request)
    except Refusal as exc:
        return appwire.Refused.of(exc)
    except (CaptureError, EditRefused) as exc:
        return appwire.Failed(str(exc))
    except Exception:
        log.exception("live request failed")
        return appwire.Failed("internal error in the app")


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        if not self.server.slots.acquire(blocking=False):
            self._send(appwire.Refused.of(Busy("too many requests")))
            return
        try:
            line = self.rfile.readline(appwire.MAX_REQUEST + 1)
            if not line.endswith(b"\n"):
                return
            self._send(_reply(line, self.server.app))
        finally:
            self.server.slots.release()

    def _send(self, reply: appwire.Reply) -> None:
        data = appwire.encode(reply)
        if len(data) > appwire.MAX_REPLY:
            data = appwire.encode(appwire.Failed("answer too large"))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)  # the asker may have gone away; nothing to tell


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 turns a burst of agents into refused
    # connections, which clients would read as "app not running".
    request_queue_size = 128

    def __init__(self, path: str, app: App) -> None:
        self.app = app
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        old = os.umask(0o177)  # the socket is born 0600: no window for others
        try:
            super().__init__(path, _Handler)
        finally:
            os.umask(old)


def _halt(server: _Server) -> None:
    """Stop ``server``. ``shutdown`` asks ``serve_forever`` to end after its
    wait for a connection, which has no short timeout (an idle app does not
    wake to look at a flag), so connections of our own end the wait until
    it is over."""
    halting = threading.Thread(target=server.shutdown, daemon=True)
    halting.start()
    while halting.is_alive():
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as wake:
            wake.connect(server.server_address)
        halting.join(0.05)


def _take_lock(home: Path) -> int:
    fd = os.open(home / "app.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise AlreadyRunning("a Noru app is already running for this data dir") from None
    return fd


def run_app(home: Path, *, ready: threading.Event | None = None) -> int:
    """Run until SIGTERM/SIGINT; returns the exit status."""
    from noru.app.core import App
    from noru.app.hotkey import Hotkey
    from noru.app.memory import tune_malloc
    from noru.panel.item import Panel, console_command

    tune_malloc()  # before any thread starts: see noru.app.memory
    # Handlers first: a stop asked for during start-up is honoured once serving.
    # The kernel may hand SIGTERM to any of the app's threads. Python then
    # runs its handler on the main thread only when that thread next runs
    # Python, and the main thread waits: on the menu's start, then for the
    # serving thread, which sleeps in its wait for a connection (an hour at
    # most, see _halt): a stop must not hang on either. So the
    # signal's number is also written to a socket (``set_wakeup_fd``, done by
    # whichever thread the signal lands on), and a thread started now halts
    # the server when it reads it. The handler itself starts no thread: it
    # runs between any two steps of the main thread, maybe while that thread
    # holds a lock that starting a thread takes.
    serving: list[_Server] = []
    ready_to_halt = threading.Event()
    woken, wake = socket.socketpair()
    wake.setblocking(False)

    def stop(signum: int, frame: object) -> None:
        with contextlib.suppress(OSError):  # full: a byte already waits
            wake.send(b"\0")  # a stop from the Noru menu's thread, not a signal

    def halt_when_asked() -> None:
        woken.recv(1)
        # A stop that hangs says where, and ends (STOP_REPORT).
        faulthandler.dump_traceback_later(STOP_REPORT, exit=True)
        ready_to_halt.wait()
        for server in serving:
            _halt(server)

    threading.Thread(target=halt_when_asked, name="noru-stop", daemon=True).start()
    signal.set_wakeup_fd(wake.fileno(), warn_on_full_buffer=False)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    lock = _take_lock(home)
    path = socket_path(home)
    path.unlink(missing_ok=True)  # we hold the lock: any socket file here is stale
    app = App(home)
    app.start_ocr()
    app.start_ax()
    app.pruner.start()
    app.indexer.start()
    server = _Server(str(path), app)
    serving.append(server)
    hotkey = Hotkey(app)
    panel = Panel(app, quit=lambda: stop(signal.SIGTERM, None), console=console_command())
    app.on_look = panel.looked
    app.menu = panel.menu_state
    # Requests are answered from the moment the socket listens: the hotkey and
    # the menu start meanwhile (a session bus that never answers holds the
    # menu's start for seconds, and `noru status` must not read that as no app).
    answering = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 3600.0},  # woken by connections: see _halt
        name="noru-serve",
    )
    answering.start()
    ready_to_halt.set()  # a stop from now on (or asked before) halts it
    try:
        hotkey.start()
        panel.start()
        print(f"Noru app running; data in {home}. Stop with Ctrl-C.", file=sys.stderr, flush=True)
        status = app.status()
        notes = [mode.reason for mode in status.screen.degraded]
        if panel.problem:
            notes.append(panel.problem)
        if status.screen.state is not appwire.ScreenState.GRANTED:
            notes += [f"cannot capture: {status.screen.detail}", *status.screen.details]
        for line in notes:
            print(f"note: {line}", file=sys.stderr, flush=True)
        if ready is not None:
            ready.set()
        answering.join()  # until halted (signals still reach ``stop``: see above)
    finally:
        if answering.is_alive():  # the start failed: stop answering first
            _halt(server)
            answering.join()
        app.on_look = None
        panel.close()
        hotkey.stop()
        server.server_close()
        path.unlink(missing_ok=True)
        app.close()
        os.close(lock)
        faulthandler.cancel_dump_traceback_later()
        signal.set_wakeup_fd(-1)
    print("Noru app stopped.", file=sys.stderr, flush=True)
    return 0
