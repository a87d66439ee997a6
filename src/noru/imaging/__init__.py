"""Pixels in, served pixels out: a grab's rows and Noru's own PNG codec (``png``),
scaling to the served long edge (``scaling``), the redaction fill (``fill``)
and the served image made of them (``serving``).

Pillow and libvips (which scales) are imported only when a function runs,
so that importing Noru stays light. (Other parts use Pillow too, each for
its own job: capture builds the grabbed image, OCR prepares pieces for an
engine, import decodes files, presentation opens stored originals; all of
them import it lazily.)
"""

from __future__ import annotations

from noru.imaging.fill import Edges, fill_png, fill_rects
from noru.imaging.png import Scanlines, encode_png, png_of_rows, raw_bytes, scanlines
from noru.imaging.scaling import fit_long_edge, scale
from noru.imaging.serving import Served, serve, serve_png, serve_rows

__all__ = [
    "Edges",
    "Scanlines",
    "Served",
    "encode_png",
    "fill_png",
    "fill_rects",
    "fit_long_edge",
    "png_of_rows",
    "raw_bytes",
    "scale",
    "scanlines",
    "serve",
    "serve_png",
    "serve_rows",
]
