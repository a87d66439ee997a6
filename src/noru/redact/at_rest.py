"""``redact_at_rest``: the person's own history keeps only the redacted forms.

By default a capture is kept as taken, and only what agents get is
redacted (``apply``). With ``redact_at_rest = true`` in ``config.toml``,
a capture's recognised text is redacted before it is first stored: its
image files are rewritten with each span's box filled and its
accessibility text with each span replaced, and only then is its OCR text
stored, redacted too (``noru.recognition.CaptureText.save``). A failure on
the way stores no text: the capture stays "not recognised", so agents get
none of it, and it is read again. Rules that cannot be read store no text
either (``OcrError``). The accessibility text the app reads at a capture
is redacted before it is stored (``ax_at_rest``; with rules that cannot be
read, none is stored): a capture taken while it is on never has its
secrets' text in the database. The app holds its images in memory
(``paths.held_dir``) until its text is read; then only the filled ones are
written to the images folder (``Store.rewrite``; ``Store.keep_held`` when
there is nothing to fill). Without a memory file system to hold them in,
they are written as taken and replaced by the filled ones (the old files'
bytes overwritten with zeros, ``files.replace_file``). Text stored
before it was turned on leaves its old terms in the search index's
segments when rewritten, until they are merged (SQLite's FTS5 before 3.42
has no secure delete): ``noru reocr`` merges them all at its end
(``Store.scrub_search``), and the app's indexer after it has replaced such
text (``Store.scrub_due``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from noru import imaging
from noru.errors import OcrError
from noru.redact.apply import FILL, for_agent, redact_texts
from noru.redact.policy import Policy
from noru.store import AxLine, OcrLine, Store

__all__ = ["ax_at_rest", "redacted_lines"]


def redacted_lines(
    store: Store,
    capture_id: str,
    lines_per_image: Sequence[Sequence[OcrLine]],
    policy: Policy,
) -> tuple[tuple[OcrLine, ...], ...]:
    """Rewrite a capture's images and accessibility text as redacted by
    ``policy`` given its just recognised ``lines_per_image``, and give those
    lines as they are to be stored (redacted). ``OcrError`` when the rules
    cannot be read."""
    from PIL import Image

    if policy.problem:
        raise OcrError(f"redact_at_rest is on and {policy.problem}: its text is not stored")
    record = store.get(capture_id)
    given = tuple(tuple(lines) for lines in lines_per_image)
    if record is None:
        return given
    if not policy.on or len(given) != len(record.images):
        store.keep_held(capture_id, record)
        return given
    read = replace(
        record,
        ocr_state="done",
        images=tuple(
            replace(image, ocr_lines=lines)
            for image, lines in zip(record.images, given, strict=True)
        ),
    )
    seen = for_agent(read, policy)
    if not seen.count:
        store.keep_held(capture_id, record)  # nothing to fill: as taken is its redacted form
        return given
    pngs: list[bytes | None] = []
    for image, boxes in zip(record.images, seen.boxes, strict=True):
        if not boxes:
            pngs.append(None)
            continue
        with Image.open(store.image_file(image)) as original:
            original.load()
            picture = original.convert("RGB") if original.mode not in ("RGB", "RGBA") else original
            edges = [(x, y, x + w, y + h) for x, y, w, h in boxes]
            pngs.append(imaging.encode_png(imaging.fill_rects(picture, edges, FILL)))
    store.rewrite(  # its OCR text is stored next, redacted, by set_ocr
        capture_id,
        pngs=pngs,
        ax=[(image.ax_lines, image.ax_text) for image in seen.record.images],
        record=record,
    )
    return tuple(tuple(image.ocr_lines or ()) for image in seen.record.images)


def ax_at_rest(lines: Sequence[AxLine], policy: Policy) -> tuple[AxLine, ...]:
    """Accessibility lines as they are kept with ``redact_at_rest``: each
    span replaced; none at all while the rules cannot be read."""
    if policy.problem:
        return ()
    if not policy.categories:
        return tuple(lines)
    texts, _ = redact_texts([line.text for line in lines], policy)
    return tuple(replace(line, text=text) for line, text in zip(lines, texts, strict=True))
