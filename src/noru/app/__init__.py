"""The Noru app: the person's long-running process, the only one that sees pixels.

It owns the live socket (0600, in the data dir), captures on the shortcut and
on request, stores through its one writer thread, and runs OCR in the
background. ``noru mcp`` asks it for live targets; the CLI asks it to capture.

Ops on the socket (see ``noru.live`` for the framing):

- ``ping``: is the app there.
- ``status``: screen access, OCR engine, hotkey, degraded modes.
- ``capture`` (from the person's CLI): ``mode`` window|display|all_displays|
  region, ``display``, ``region``, ``note`` -> a user capture.
- ``latest`` (get_latest_capture): hands off the newest user capture within
  the handoff window, once, decided in the store's transaction.
- ``observe`` (observe_screen): captures now as an agent capture.

Live ops re-check the access state themselves (defence in depth: ``noru mcp``
checked it first) and wait up to the OCR settle time for text.
"""

from __future__ import annotations

import base64
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from noru import access, imaging
from noru.app.memory import Trimmer
from noru.config import Config, load_config
from noru.errors import Busy, CaptureError, NoruError, NothingNew
from noru.store import NewImage, Origin, Store
from noru.times import format_duration

__all__ = ["App"]

log = logging.getLogger("noru.app")

# How long a live request waits for another capture to finish before "busy".
CAPTURE_WAIT = 0.25
SERVED_CACHE = 4


class App:
    def __init__(self, home: Path, *, config: Config | None = None) -> None:
        from noru.app.writer import Writer
        from noru.capture import Capturer

        self.home = home
        self.config = config or load_config(home)
        self.writer = Writer(home)
        self.capturer = Capturer()
        self._capture_lock = threading.Lock()
        self._settled: dict[str, threading.Event] = {}
        self._settled_lock = threading.Lock()
        self.ocr: Any = None
        self.ocr_problem: str | None = None
        self.hotkey_status = "not started"
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="noru-encode")
        # Served PNGs of the newest captures, so a live reply needs no re-encode.
        self._served: dict[str, list[imaging.Served]] = {}
        self._served_lock = threading.Lock()
        self._trimmer = Trimmer()

    # --- OCR ---------------------------------------------------------------

    def start_ocr(self, engine: str = "tesseract") -> None:
        from noru.app.ocr_worker import OcrWorker
        from noru.errors import OcrError

        try:
            self.ocr = OcrWorker(self.writer, engine_name=engine, on_settled=self._settle)
        except OcrError as exc:
            self.ocr_problem = str(exc)
            log.warning("OCR unavailable: %s", exc)
            return
        self.ocr.start()

    def _event(self, capture_id: str) -> threading.Event:
        with self._settled_lock:
            return self._settled.setdefault(capture_id, threading.Event())

    def _settle(self, capture_id: str) -> None:
        self._event(capture_id).set()

    def _wait_for_text(self, capture_id: str) -> None:
        if self.ocr is not None:
            self._event(capture_id).wait(self.config.ocr_settle)
        with self._settled_lock:
            self._settled.pop(capture_id, None)

    # --- capturing ---------------------------------------------------------

    def _grab(self, mode: str, args: dict[str, Any]) -> list[Any]:
        if mode == "window":
            return self.capturer.grab_window(args.get("which", "active"))
        if mode == "display":
            return self.capturer.grab_display(args.get("display"))
        if mode == "all_displays":
            return self.capturer.grab_all_displays()
        if mode == "region":
            x, y, w, h = args["region"]
            return self.capturer.grab_region(int(x), int(y), int(w), int(h))
        raise CaptureError(f"unknown capture mode {mode!r}")

    def capture(self, mode: str, args: dict[str, Any], *, origin: Origin) -> str:
        """Grab, store (through the writer), queue OCR; returns the capture id.

        The lossless originals are encoded on the pool while this thread makes
        the served images (sharing their scaling with the pool), which are
        kept for the live reply (and, for the person's captures, for the
        handoff). OCR is held still meanwhile.
        """
        if not self._capture_lock.acquire(timeout=CAPTURE_WAIT):
            raise Busy("another capture is in progress")
        try:
            with self.ocr.paused() if self.ocr is not None else nullcontext():
                capture_id = self._take(mode, args, origin=origin)
        finally:
            self._capture_lock.release()
            self._trimmer.busy()
        if self.ocr is not None:
            self._event(capture_id)
            self.ocr.enqueue(capture_id)
        return capture_id

    def _take(self, mode: str, args: dict[str, Any], *, origin: Origin) -> str:
        grabs = self._grab(mode, args)
        originals = [self._pool.submit(imaging.encode_png, grab.image) for grab in grabs]
        served = [imaging.serve(grab.image, self.config.max_edge, self._pool) for grab in grabs]
        images = [
            NewImage(
                png=original.result(),
                width=grab.image.width,
                height=grab.image.height,
                source=grab.source,
                display_mode=grab.display_mode,
                windows=grab.windows,
            )
            for grab, original in zip(grabs, originals, strict=True)
        ]
        note = args.get("note") if origin == "user" else None

        def store(store: Store) -> str:
            return store.add_capture(images, origin=origin, note=note).id

        capture_id = self.writer.call(store)
        with self._served_lock:
            self._served[capture_id] = served
            while len(self._served) > SERVED_CACHE:
                self._served.pop(next(iter(self._served)))
        return capture_id

    # --- ops ---------------------------------------------------------------

    def _check_live_access(self) -> None:
        access.live_decision(access.load(self.home)).enforce()

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "ping":
            return {"app": "noru"}
        if op == "status":
            return self.status()
        if op == "capture":
            capture_id = self.capture(args.get("mode", "window"), args, origin="user")
            return {"id": capture_id}
        if op == "latest":
            self._check_live_access()
            window = timedelta(seconds=self.config.handoff_window)
            now = datetime.now(UTC)

            def claim(store: Store) -> str | None:
                return store.claim_latest(now=now, window=window)

            claimed = self.writer.call(claim)
            if claimed is None:
                raise NothingNew(
                    "no new capture from the person within the handoff window "
                    f"({format_duration(self.config.handoff_window)}), or it was already delivered"
                )
            self._wait_for_text(claimed)
            return self._reply(claimed, args)
        if op == "observe":
            self._check_live_access()
            target = args.get("target", "window")
            capture_id = self.capture(target, args, origin="agent")
            self._wait_for_text(capture_id)
            return self._reply(capture_id, args)
        raise CaptureError(f"unknown op {op!r}")

    def _reply(self, capture_id: str, args: dict[str, Any]) -> dict[str, Any]:
        reply: dict[str, Any] = {"id": capture_id}
        with self._served_lock:
            served = self._served.get(capture_id)
        if served is not None and not args.get("text_only"):
            reply["max_edge"] = self.config.max_edge
            reply["served"] = [
                {
                    "png": base64.b64encode(image.png).decode("ascii"),
                    "width": image.width,
                    "height": image.height,
                    "downscaled_from": image.downscaled_from,
                }
                for image in served
            ]
        return reply

    def status(self) -> dict[str, Any]:
        try:
            notes = list(self.capturer.status_notes())
            screen = "granted (display reachable)"
        except NoruError as exc:  # the app keeps running; live requests say why
            reason = getattr(exc, "summary", "") or str(exc)
            notes = [f"cannot capture: {reason}"]
            screen = f"refused: {reason}"
        return {
            "screen_access": screen,
            "ocr": self.ocr.label if self.ocr is not None else f"unavailable: {self.ocr_problem}",
            "hotkey": self.hotkey_status,
            "notes": notes,
        }

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self._trimmer.close()
        if self.ocr is not None:
            self.ocr.close()
        self.writer.close()
        self.capturer.close()
