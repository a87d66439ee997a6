"""Lines as the whole screen shows them: a line a display's edge cuts is
searched as one across the seam, and what is found is given back to each part.

A capture of all displays is one image per display, each read on its own.
A window that straddles two displays has its lines cut at the seam, and
each half alone lacks the prefix or the length a rule needs. The images
are put side by side as they lie on the whole screen and the parts of each
line the seam cuts paired (``noru.redact.seam_pairs``). A terminal's rows
the seam cuts are put together whole, as one grid (``noru.redact.seam_grid``)
and searched as the terminal wrapped them (``noru.redact.wrap``).
Proportional text is joined as read, with a space where the parts lie
apart; a long run across the seam is also tried with the glyph the seam
cut read on neither side (``CUT_AS``, or what makes a format's fixed part
whole, in the space) or as a mark or a stroke on one side.

What is found in the joined text is given back to each part, to be
replaced and filled there; a part a secret runs into the seam with also
has the strip between its box and the seam filled (the half glyph no line
holds). Each part is also searched on its own (``apply``), so a join made
in error can only widen what is redacted: a terminal's row's part only
within ``PART_REACH`` of its seam (the row put together whole holds the
rest of it, as the screen shows it), a proportional line's part whole.
The joined text's cut cell variants and the proportional joins are
searched only around the seam (``detect.find_near``): away from it they
hold what the parts do.

A line cut by a horizontal seam (a window straddling displays one above
the other) has half of each glyph on each side; neither half is text, and
nothing is joined there.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from noru.geometry import Rect
from noru.redact.detect import Allowed, Finding, Own, find_near
from noru.redact.seam_grid import (
    CUT_AS,
    CUT_VARIANTS,
    STROKES,
    TOKEN_RUN,
    Joined,
    Part,
    beyond,
    completing,
    grid_rows,
    lead,
    run_across,
)
from noru.redact.seam_pairs import Placed, cut_lines, seams_of
from noru.redact.wrap import find_written, grid_of, merged
from noru.store import ImageRecord, OcrLine

__all__ = ["PART_REACH", "WIDE_GAP", "Across", "across", "seam_lines"]

# Parts of a proportional line further apart than this (line heights): a space.
WIDE_GAP = 0.25
# How far (characters) from its seam a terminal's row's part is searched on
# its own, then on to whole words: the rest of it is searched in the row
# put together whole.
PART_REACH = 16


@dataclass(frozen=True)
class Across:
    """What searching across the seams found: per image, per OCR line, the
    spans to merge with what the line gives alone; per image, the strips
    between a secret's part and its seam, to fill (image pixels); the
    widths of the terminals' grids the seams cut (``columns``); and the
    rows of those terminals, each with where in its text its seams are
    (``near``): the row put together whole was searched, so on its own it
    need only be searched there."""

    found: tuple[tuple[tuple[Finding, ...], ...], ...]
    strips: tuple[tuple[Rect, ...], ...]
    columns: dict[tuple[int, int], int]
    near: dict[tuple[int, int], list[int]]
    ends_at_seam: dict[tuple[int, int], bool]

    def alone(
        self, position: int, lines: Sequence[OcrLine], found: Sequence[Sequence[Finding]]
    ) -> list[list[Finding]]:
        """``found``, what image ``position``'s ``lines`` give on their own,
        but what a part of a line the seam cuts gives alone up to the seam
        where the line put together across it gives nothing: a label's
        value cut short there (``password = getpas`` of ``getpass.getpass()``)."""
        out = []
        for i, (line, findings) in enumerate(zip(lines, found, strict=True)):
            at_end = self.ends_at_seam.get((position, i))
            if at_end is None or not findings:
                out.append(list(findings))
                continue
            whole = self.found[position][i]
            text = line.text
            out.append(
                [
                    f
                    for f in findings
                    if not (f.end >= len(text.rstrip(" ")) if at_end else f.start <= lead(text))
                    or any(g.start < f.end and g.end > f.start for g in whole)
                ]
            )
        return out

    def near_of(self, position: int, count: int) -> list[list[int] | None] | None:
        """For ``find_written``: per line of image ``position`` (``count``
        of them), where alone it is searched on its own (``PART_REACH``
        either side), or None to search it whole; None when every line is."""
        if not any(image == position for image, _ in self.near):
            return None
        return [self.near.get((position, i)) for i in range(count)]

    def lines(self, position: int, lines: Sequence[OcrLine]) -> list[OcrLine]:
        """Image ``position``'s ``lines`` as its own rows are searched: a
        terminal's row the seam cuts is not at its grid's last column there
        (its grid is as wide as it is on both sides, ``columns``), so it is
        not joined with the row below as if the terminal had wrapped it."""
        return [
            replace(line, columns=self.columns.get((position, i), line.columns))
            for i, line in enumerate(lines)
        ]


def seam_lines(images: Sequence[ImageRecord]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The lines the seams cut: pairs of ``(image, line)``, the left part
    first (see the module's doc)."""
    return [
        ((a.image, a.index), (b.image, b.index))
        for left, right in seams_of(images)
        for a, b in cut_lines(images, left, right)
    ]


def _proportional(
    pairs: list[tuple[Placed, Placed]], on_grid: set[tuple[int, int]]
) -> list[Joined]:
    """The pairs not on a shared grid, joined as read: with a space where
    they lie apart; a long run across the seam also with ``CUT_AS`` there."""
    joined = []
    for a, b in pairs:
        if (a.image, a.index) in on_grid:
            continue
        ta, tb = a.line.text.rstrip(" "), b.line.text.lstrip(" ")
        lead_b = len(b.line.text) - len(tb)
        apart = b.left - a.right > WIDE_GAP * max(a.height, b.height)
        parts = (
            Part(a.image, a.index, 0, len(ta)),
            Part(b.image, b.index, len(ta) - lead_b, len(b.line.text)),
        )
        touching = Joined(ta + tb, parts, _misread_at_junction(ta, tb))
        spaced = Part(b.image, b.index, len(ta) + 1 - lead_b, len(b.line.text))
        across_space = Joined(ta + " " + tb, (parts[0], spaced), _lost_at_junction(ta, tb))
        joined += [across_space, touching] if apart else [touching, across_space]
    return joined


def _cell_variants(text: str, at: int) -> tuple[str, ...]:
    """``text`` with the cell at ``at`` (a glyph the seam cut) as a token's
    character (``CUT_AS``, ``CUT_VARIANTS``), and as each character that makes a format's fixed part
    whole there (``completing``); none where no long run of a token's
    characters goes through it."""
    if run_across(text[:at] + CUT_AS + text[at + 1 :], at) < TOKEN_RUN:
        return ()
    tried = dict.fromkeys((CUT_AS, *CUT_VARIANTS, *completing(text, at)))
    return tuple(text[:at] + c + text[at + 1 :] for c in tried)


def _lost_at_junction(ta: str, tb: str) -> tuple[str, ...]:
    """Variants of ``ta`` and ``tb`` a space apart: the glyph the seam cut
    read on neither side, in that space."""
    return _cell_variants(ta + " " + tb, len(ta))


def _misread_at_junction(ta: str, tb: str) -> tuple[str, ...]:
    """Variants of ``ta`` and ``tb`` put together: the glyph the seam cut
    read as a mark or a stroke (``\\``, ``|``) on one side, the last of
    ``ta`` or the first of ``tb``."""
    out: list[str] = []
    for at in (len(ta) - 1, len(ta)):
        text = ta + tb
        if 0 <= at < len(text) and (not text[at].isalnum() or text[at] in STROKES):
            out += [v for v in _cell_variants(text, at) if v != text]
    return tuple(dict.fromkeys(out))


def _spans_seam(joined: Joined, findings: Sequence[Finding]) -> bool:
    """Whether a finding already runs across the seam of ``joined``: its
    variants could not find more there."""
    if len(joined.parts) < 2:
        return False
    at = joined.parts[1].offset
    return any(f.start < at and f.end > at for f in findings)


def _in_variants(
    joined: Joined, categories: Collection[str], own: Sequence[Own | Allowed]
) -> list[Finding]:
    """What ``joined``'s variants show at the junction that its text does
    not: a finding that holds the cut cell or starts or ends beside it. A
    variant differs from the text in that cell only, so it is searched
    only around it (``PART_REACH``: a card's groups beside it too)."""
    if not joined.variants:
        return []
    at = joined.joins[0]
    out: list[Finding] = []
    near = [joined.joins] * len(joined.variants)
    for findings in find_near(joined.variants, near, categories, own, reach=PART_REACH):
        out = merged(out, [f for f in findings if f.start <= at + 1 and f.end >= at])
    return out


def _given_back(
    joined: Joined, findings: Sequence[Finding], found: list[list[list[Finding]]]
) -> None:
    for part in joined.parts:
        start, end = part.offset, part.offset + part.length
        local = [
            Finding(max(f.start, start) - start, min(f.end, end) - start, f.kind)
            for f in findings
            if f.start < end and f.end > start
        ]
        local = [f for f in local if f.start >= 0 and f.end > f.start]
        if local:
            here = found[part.image][part.index]
            found[part.image][part.index] = merged(here, local)


def across(
    images: Sequence[ImageRecord],
    categories: Collection[str],
    own: Sequence[Own | Allowed] = (),
) -> Across | None:
    """What is found in the lines the seams between ``images`` cut, given
    back to each image's lines, and the widths of the terminals' grids the
    seams cut; None when no two images meet at a seam."""
    placed = [i for i, image in enumerate(images) if image.screen_rect and image.ocr_lines]
    if len(placed) < 2:
        return None
    seams = seams_of(images)
    if not seams:
        return None
    grids = {i: grid_of(images[i].ocr_lines or ()) for i in placed}
    found: list[list[list[Finding]]] = [[[] for _ in image.ocr_lines or ()] for image in images]
    columns: dict[tuple[int, int], int] = {}
    near: dict[tuple[int, int], list[int]] = {}
    ends_at_seam: dict[tuple[int, int], bool] = {}
    every_pair: list[tuple[Placed, Placed]] = []
    for left, right in seams:
        if left not in grids or right not in grids:
            continue
        columns.update(beyond(images, grids, left, right))
        pairs = cut_lines(images, left, right)
        if not pairs:
            continue
        every_pair += pairs
        for a, b in pairs:
            ends_at_seam[(a.image, a.index)] = True
            ends_at_seam[(b.image, b.index)] = False
        seam = images[right].screen_rect
        assert seam is not None
        rows, on_grid = grid_rows(images, grids, pairs, float(seam[0]), columns)
        if rows:
            grid_found, _ = find_written(
                rows, categories, own, reach=PART_REACH, alone_at_joins=True
            )
            for joined, findings in zip(on_grid, grid_found, strict=True):
                if not _spans_seam(joined, findings):
                    findings = merged(findings, _in_variants(joined, categories, own))
                _given_back(joined, findings, found)
                _seams_in_parts(joined, near)
        cut_rows = {(p.image, p.index) for j in on_grid if len(j.parts) == 2 for p in j.parts}
        loose = _proportional(pairs, cut_rows)
        loose_found = find_near([j.text for j in loose], [j.joins for j in loose], categories, own)
        for joined, findings in zip(loose, loose_found, strict=True):
            findings = merged(findings, _in_variants(joined, categories, own))
            _given_back(joined, findings, found)
    strips = _strips(images, found, every_pair)
    found_in = tuple(tuple(tuple(f) for f in lines) for lines in found)
    return Across(found_in, strips, columns, near, ends_at_seam)


def _seams_in_parts(joined: Joined, near: dict[tuple[int, int], list[int]]) -> None:
    """Where in each part of a terminal's row put together whole its seam
    is: the left part's end, the right part's start; none in a row on one
    side only."""
    for k, part in enumerate(joined.parts):
        points = near.setdefault((part.image, part.index), [])
        if len(joined.parts) == 2:
            points.append(part.length if k == 0 else 0)


def _strips(
    images: Sequence[ImageRecord],
    found: list[list[list[Finding]]],
    pairs: list[tuple[Placed, Placed]],
) -> tuple[tuple[Rect, ...], ...]:
    """Per image, the strips between a part a secret runs into its seam
    with and the image's edge there."""
    cut = {(p.image, p.index) for pair in pairs for p in pair}
    firsts = {(b.image, b.index) for _, b in pairs}
    out: list[tuple[Rect, ...]] = []
    for i, image in enumerate(images):
        strips: list[Rect] = []
        for n, (line, findings) in enumerate(zip(image.ocr_lines or (), found[i], strict=True)):
            if not findings or (i, n) not in cut:
                continue
            x, y, w, h = line.box
            text = line.text
            if (i, n) in firsts:
                if findings[0].start <= lead(text) and x > 0:
                    strips.append((0, y, x, h))
            elif findings[-1].end >= len(text.rstrip(" ")) and x + w < image.width:
                strips.append((x + w, y, image.width - x - w, h))
        out.append(tuple(strips))
    return tuple(out)
