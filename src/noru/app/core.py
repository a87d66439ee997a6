"""The app itself (``App``): what it holds, the captures it takes, the requests it answers.

It captures on the shortcut and on request, stores through its one writer
thread, runs OCR in the background, and keeps the history within its
retention settings (its pruner thread); ``noru.app.server`` gives it the
live socket (0600, in the data dir). A capture the disk cannot take is
refused whole, as a ``CaptureError`` the person and the agent read. ``noru
mcp`` asks it for live targets; the CLI asks it to capture. The requests and replies are the
typed values of ``noru.appwire``:

- ``Ping`` -> ``Pong``; ``GetStatus`` -> ``AppStatus`` (screen access, OCR
  engine, the shortcut, degraded modes);
- ``Capture`` (the person's CLI) -> ``Captured``: a user capture;
- ``Latest`` (get_latest_capture) -> ``Delivered``: hands off the newest user
  capture within the handoff window, once, decided in the store's transaction;
- ``Observe`` (observe_screen) -> ``Delivered``: captures now as an agent capture.

Live requests re-check the access state themselves (defence in depth: ``noru
mcp`` checked it first) and wait up to the OCR settle time for text. A
refusal is raised as its ``Refusal`` and crosses the socket whole.

Each request, and each OCR job, reads the person's configuration as it
stands then (``App.settings``: parsed again only when config.toml changed),
so an edit applies without a restart; only the shortcut and ``ax_switch``
are taken once, at start (``App.config``).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from noru import __version__, access, appwire, imaging
from noru.app.memory import SOON, Trimmer, malloc_trim
from noru.ax.base import AxAbsent
from noru.config import Config
from noru.edits import note_text
from noru.errors import Busy, CaptureError, NoruError, NothingNew, PermissionDenied, StoreError
from noru.settings import policy as redaction_policy
from noru.settings import snapshot
from noru.store import NewImage, Origin, Store
from noru.times import format_duration

if TYPE_CHECKING:
    from noru.app.ocr_worker import OcrWorker
    from noru.capture import Grab

__all__ = ["App"]

log = logging.getLogger("noru.app")

# How long a live request waits for another capture to finish before "busy".
CAPTURE_WAIT = 0.25
SERVED_CACHE = 4
# Captures whose text's settling is remembered, newest last: an agent waits
# on its own look at once, and the handoff on the person's newest capture;
# the person's captures no agent claims would otherwise each keep one.
SETTLING_KEPT = 64


class App:
    def __init__(self, home: Path, *, config: Config | None = None) -> None:
        from noru.app.indexer import Indexer
        from noru.app.pruner import Pruner
        from noru.app.writer import Writer
        from noru.capture import Capturer

        self.home = home
        self._given = config
        # The configuration at start: what stays until a restart (the
        # shortcut, ax_switch). Each request reads ``settings()`` instead.
        self.config = config or snapshot(home).config
        self.writer = Writer(home, min_free=self.config.min_free)
        # Keeps the history within keep_days and max_disk (started by run_app),
        # reading them again at each run: a change applies without a restart.
        self.pruner = Pruner(home, self.settings, self.writer)
        # Keeps agents' search index of the redacted text up to date (started
        # by run_app, woken as each capture's text settles).
        self.indexer = Indexer(self.settings, self.writer)
        # The accessibility text is read beside each grab, within its budget.
        self.capturer = Capturer(ax_budget=self.config.ax_budget or None)
        self._capture_lock = threading.Lock()
        # Told of every delivery to an agent (observe_screen, the handoff): the
        # Noru menu shows it. Never of the person's own captures.
        self.on_look: Callable[[str, str | None, str], None] | None = None
        self._settled: dict[str, threading.Event] = {}
        self._settled_lock = threading.Lock()
        self.ocr: OcrWorker | None = None
        self.hotkey = appwire.HotkeyState(self.config.hotkey, grabbed=False, problem="not started")
        # Whether a panel shows the Noru menu (run_app gives the panel's own word).
        self.menu: Callable[[], appwire.MenuState] = lambda: appwire.MenuState(
            False, "this app shows no menu"
        )
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="noru-encode")
        # Served PNGs of the newest captures, so a live reply needs no re-encode.
        self._served: dict[str, list[imaging.Served]] = {}
        self._served_lock = threading.Lock()
        self._trimmer = Trimmer(trim=self._quiet)
        self._ax_switched_on = False  # by this app, at the person's ax_switch

    def settings(self) -> Config:
        """The person's configuration as it stands now (``noru.settings``:
        parsed again only when the file changed), read once a request: an
        edit is seen by the next capture, look or OCR job."""
        return self._given if self._given is not None else snapshot(self.home).config

    # --- accessibility -----------------------------------------------------

    def start_ax(self) -> None:
        """Connect to the accessibility bus before the first capture needs it (the
        first connection can take longer than a capture's budget), and switch
        accessibility on for the session when the person asked (``ax_switch``):
        then it is switched back off when the app stops, if it was off before."""
        if not self.config.ax_budget:
            return
        threading.Thread(target=self._ax_session, name="noru-ax-start", daemon=True).start()

    def _ax_session(self) -> None:
        from noru import ax

        before = ax.session_status()
        if before.reason:
            log.info("accessibility text: %s", before.reason)
            return
        if self.config.ax_switch and before.enabled is False:
            after = ax.set_session_enabled(True)
            if after.enabled:
                self._ax_switched_on = True
                log.info("accessibility switched on for the session (ax_switch = true)")
            else:
                log.warning("could not switch accessibility on: %s", after.reason)

    # --- OCR ---------------------------------------------------------------

    def start_ocr(self) -> None:
        """Read captures' text in the OCR child, with the engine the
        configuration names at each job (one that cannot run leaves them
        pending, and the status says why)."""
        from noru.app.ocr_worker import OcrWorker

        self.ocr = OcrWorker(self.writer, settings=self.settings, on_settled=self._settle)
        self.ocr.start()

    def _event(self, capture_id: str) -> threading.Event:
        """Set once ``capture_id``'s text has settled. Only the newest
        ``SETTLING_KEPT`` are kept: a wait on an older one lasts the settle."""
        with self._settled_lock:
            event = self._settled.setdefault(capture_id, threading.Event())
            while len(self._settled) > SETTLING_KEPT:
                self._settled.pop(next(iter(self._settled)))
            return event

    def _quiet(self) -> bool:
        """Quiet for a while (``Trimmer``): the grab's shared memory and every
        free heap page go back to the system. Not while a capture runs."""
        if self._capture_lock.acquire(blocking=False):
            try:
                self.capturer.release()
            finally:
                self._capture_lock.release()
        return malloc_trim()

    def _settle(self, capture_id: str) -> None:
        self._event(capture_id).set()
        self.indexer.wake()  # after the answer it may wait for, not before

    def _wait_for_text(self, capture_id: str, config: Config) -> None:
        if self.ocr is not None and self.ocr.available:
            self._event(capture_id).wait(config.ocr_settle)
        with self._settled_lock:
            self._settled.pop(capture_id, None)

    # --- capturing ---------------------------------------------------------

    def _grab(self, request: appwire.Capture | appwire.Observe) -> list[Grab]:
        if isinstance(request, appwire.Observe):
            mode: str = request.target
            which = "active"  # an agent looks at what the person is working in
        else:
            mode, which = request.mode, request.which
        if mode == "window":
            return self.capturer.grab_window("pointer" if which == "pointer" else "active")
        if mode == "display":
            return self.capturer.grab_display(request.display)
        if mode == "all_displays":
            return self.capturer.grab_all_displays()
        if isinstance(request, appwire.Capture) and request.region is not None:
            return self.capturer.grab_region(*request.region)
        raise CaptureError("a region capture needs its rectangle")

    def capture(self, request: appwire.Capture | appwire.Observe, *, origin: Origin) -> str:
        """Grab, store (through the writer), queue OCR; returns the capture id.

        The lossless originals are encoded on the pool while this thread makes
        the served images (libvips scales them on its own threads), which are
        kept for the live reply (and, for the person's captures, for the
        handoff). OCR is held still meanwhile. A note the person's edits
        refuse (``noru.edits``: too long) refuses the capture before any grab.
        """
        note = note_text(request.note) if isinstance(request, appwire.Capture) else None
        config = self.settings()
        if not self._capture_lock.acquire(timeout=CAPTURE_WAIT):
            raise Busy("another capture is in progress")
        try:
            with self.ocr.paused() if self.ocr is not None else nullcontext():
                capture_id, pixels = self._take(request, origin=origin, note=note, config=config)
        finally:
            self._capture_lock.release()
            self._trimmer.busy(None if origin == "agent" else SOON)
        if self.ocr is not None:
            self._event(capture_id)
            self.ocr.enqueue(capture_id, pixels, awaited=origin == "agent")
        return capture_id

    def _exclusions(self, config: Config) -> None:
        """The person's exclusions as they stand now (they may change while the
        app runs); a file that cannot be read refuses the capture (fail closed)."""
        from noru import exclusions

        rules = exclusions.load(self.home, apps=config.exclude_apps, titles=config.exclude_titles)
        self.capturer.excluded = (
            (lambda w: rules.excludes(w.app_id, w.app_name, w.title)) if rules else None
        )

    def _take(
        self,
        request: appwire.Capture | appwire.Observe,
        *,
        origin: Origin,
        note: str | None,
        config: Config,
    ) -> tuple[str, list[imaging.Scanlines]]:
        """The capture taken and stored: its id, and its images' pixels as
        stored, as a PNG's rows (for the OCR child, which need not decode
        them again)."""
        self._exclusions(config)
        self.capturer.ax_budget = config.ax_budget or None
        grabs = self._grab(request)
        # One copy of each grab's pixels, as a PNG's rows (X11 grabs come as
        # them: no image is decoded on this path): both PNGs are written from it.
        lines = [grab.rows or _rows(grab) for grab in grabs]
        originals = [self._pool.submit(imaging.png_of_rows, rows) for rows in lines]
        kept_ax = [grab.ax.lines if grab.ax else () for grab in grabs]
        held = False  # its images held in memory until their redaction is done
        if config.redact_at_rest:  # the person keeps only redacted forms: from the start
            from noru.redact import at_rest

            in_force = redaction_policy(self.home, config.redact)
            kept_ax = [at_rest.ax_at_rest(lines, in_force) for lines in kept_ax]
            held = self.ocr is not None and self.ocr.available and in_force.on

        def stored() -> tuple[str, list[NewImage]]:
            """The capture stored once its originals are written (on the pool,
            while this thread makes the served images)."""
            images = [
                NewImage(
                    png=original.result(),
                    width=grab.size[0],
                    height=grab.size[1],
                    source=grab.source,
                    display_mode=grab.display_mode,
                    windows=grab.windows,
                    ax_lines=ax_lines,
                    ax_note=self._ax_note(grab, config),
                    excluded=grab.excluded,
                    screen_rect=grab.geometry,
                )
                for grab, original, ax_lines in zip(grabs, originals, kept_ax, strict=True)
            ]

            def store(store: Store) -> str:
                return store.add_capture(images, origin=origin, note=note, held=held).id

            return self.writer.call(store), images

        # Submitted after the originals: a pool thread takes it only once every
        # original has a thread, so its waits on them always end.
        storing = self._pool.submit(stored)
        served = [imaging.serve_rows(rows, config.max_edge) for rows in lines]
        try:
            capture_id, images = storing.result()
        except StoreError as exc:  # a full disk: refused whole, nothing half-written
            raise CaptureError(str(exc)) from exc
        self.pruner.added(sum(len(image.png) for image in images))
        self.indexer.wake()  # agents' searches see its note until its text is read
        with self._served_lock:
            self._served[capture_id] = served
            while len(self._served) > SERVED_CACHE:
                self._served.pop(next(iter(self._served)))
        return capture_id, lines

    def _ax_note(self, grab: Grab, config: Config) -> str | None:
        """In words: why a grab has no accessibility text, or why it is partial."""
        if not config.ax_budget:
            return "switched off (ax_budget = 0 in config.toml)"
        if grab.ax is None:
            return "no window to ask: the active window is not in the capture"
        if grab.ax.lines and not grab.ax.partial:
            return None
        # What is stored is what agents are told: no process ids, no window ids.
        if grab.ax.absent is AxAbsent.NO_BUS:
            return "no accessibility bus in this session"
        if grab.ax.absent is AxAbsent.NO_TREE:
            return "the app exposes no accessibility tree for this window"
        return grab.ax.reason or "the app reported no text"

    # --- ops ---------------------------------------------------------------

    def _check_live_access(self) -> None:
        access.live_decision(access.load(self.home)).enforce()

    def handle(self, request: appwire.Request) -> appwire.Reply:
        """Answer one request; refusals and failures are raised."""
        if isinstance(request, appwire.Ping):
            return appwire.Pong(__version__)
        if isinstance(request, appwire.GetStatus):
            return self.status()
        if isinstance(request, appwire.Capture):
            return appwire.Captured(self.capture(request, origin="user"))
        config = self.settings()
        if isinstance(request, appwire.Latest):
            self._check_live_access()
            window = timedelta(seconds=config.handoff_window)
            now = datetime.now(UTC)

            def claim(store: Store) -> str | None:
                return store.claim_latest(now=now, window=window)

            claimed = self.writer.call(claim)
            if claimed is None:
                raise NothingNew(
                    "no new capture from the person within the handoff window "
                    f"({format_duration(config.handoff_window)}), or it was already delivered"
                )
            self._wait_for_text(claimed, config)
            self._looked("handoff", request.client, claimed)
            return self._delivered(claimed, text_only=request.text_only)
        self._check_live_access()
        capture_id = self.capture(request, origin="agent")
        self._wait_for_text(capture_id, config)
        self._looked("observe", request.client, capture_id)
        return self._delivered(capture_id, text_only=request.text_only)

    def _looked(self, how: str, client: str | None, capture_id: str) -> None:
        """An agent was given a capture: the visible sign (the Noru menu)."""
        if self.on_look is not None:
            try:
                self.on_look(how, client, capture_id)
            except Exception:  # the sign never fails the delivery
                log.exception("showing that an agent looked failed")

    def _delivered(self, capture_id: str, *, text_only: bool) -> appwire.Delivered:
        with self._served_lock:
            served = self._served.get(capture_id)
        images = () if served is None or text_only else tuple(served)
        return appwire.Delivered(capture_id, served=images)

    def status(self) -> appwire.AppStatus:
        try:
            modes = self.capturer.degraded_modes()
            detail = f"display {self.capturer.display_name} reachable"
            screen = appwire.ScreenAccess(
                appwire.ScreenState.GRANTED, detail, degraded=tuple(modes)
            )
        except PermissionDenied as exc:  # the app keeps running; live requests say why
            screen = appwire.ScreenAccess(
                appwire.ScreenState.DENIED, exc.summary or str(exc), tuple(exc.details)
            )
        except NoruError as exc:
            reason = getattr(exc, "summary", "") or str(exc)
            screen = appwire.ScreenAccess(appwire.ScreenState.UNAVAILABLE, reason)
        if self.ocr is not None:
            ocr = self.ocr.state()
        else:
            ocr = appwire.OcrState(False, self.settings().ocr_engine, problem="not started")
        return appwire.AppStatus(
            __version__,
            screen=screen,
            ocr=ocr,
            hotkey=self.hotkey,
            session=appwire.AppSession.current(os.environ),
            menu=self.menu(),
        )

    def close(self) -> None:
        if self._ax_switched_on:
            from noru import ax

            ax.set_session_enabled(False)
        self._pool.shutdown(wait=True)
        self._trimmer.close()
        self.pruner.close()
        self.indexer.close()
        if self.ocr is not None:
            self.ocr.close()
        self.writer.close()
        self.capturer.close()


def _rows(grab: Grab) -> imaging.Scanlines:
    """A grab's pixels as a PNG's rows, from its image (a backend that gives images)."""
    rows = imaging.scanlines(grab.image)
    if rows is None:  # every grab is 8-bit RGB
        raise CaptureError(f"a grab of mode {grab.image.mode} cannot be stored")
    return rows
