"""``redact_at_rest``: the person's own history keeps only the redacted forms.

By default a capture is kept as taken, and only what agents get is
redacted (``apply``). With ``redact_at_rest = true`` in ``config.toml``,
once a capture's text is recognised its stored images are rewritten with
each span's box filled and its stored text with each span replaced, so the
secret is in no file Noru keeps (the search index included). A capture
whose text is never recognised cannot be redacted and is kept as taken
(agents get none of it: ``noru.present``). Files first, then the rows: a
crash between them leaves the pixels redacted and the text not, which the
next reading of that text (``noru reocr``) finishes.
"""

from __future__ import annotations

from noru import imaging
from noru.redact.apply import for_agent
from noru.redact.policy import Policy
from noru.store import Store

__all__ = ["FILL", "keep_redacted"]

FILL = (0, 0, 0)  # as what agents get: solid black


def keep_redacted(store: Store, capture_id: str, policy: Policy) -> int:
    """Rewrite a stored capture as redacted; the number of spans taken out."""
    from PIL import Image, ImageDraw

    record = store.get(capture_id)
    if record is None or record.ocr_state != "done" or policy.problem or not policy.on:
        return 0
    seen = for_agent(record, policy)
    if not seen.count:
        return 0
    pngs: list[bytes | None] = []
    for image, boxes in zip(record.images, seen.boxes, strict=True):
        if not boxes:
            pngs.append(None)
            continue
        with Image.open(store.image_file(image)) as original:
            original.load()
            picture = original.convert("RGB") if original.mode not in ("RGB", "RGBA") else original
            picture = picture.copy()
        draw = ImageDraw.Draw(picture)
        for x, y, w, h in boxes:
            draw.rectangle((x, y, x + w - 1, y + h - 1), fill=FILL)
        pngs.append(imaging.encode_png(picture))
    store.rewrite(
        capture_id,
        pngs=pngs,
        ocr_lines=[image.ocr_lines for image in seen.record.images],
        ax=[(image.ax_lines, image.ax_text) for image in seen.record.images],
    )
    return seen.count
