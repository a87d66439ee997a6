"""The glyphs the engine reads for a character of a token's restricted
alphabet (hexadecimal; capitals and digits) that the alphabet has not: an
``8`` read ``s``, a ``9`` read ``g`` (``misreads``); a token's body that
takes one or two of them in a run (``with_misreads``, ``read_body``), as
``shapes.token`` and the patterns of ``formats`` are written.
"""

from __future__ import annotations

import re

__all__ = ["MISREADS", "misreads", "read_body", "with_misreads"]

# Each character of a token's alphabet and the glyphs the engine reads for
# it now and then, as ``canon`` and ``fixed`` know them (``0`` and ``o``,
# ``1`` and ``l``, ``i``, ``|``; ``2`` and ``z``; ``4`` and ``a``; ``5``
# and ``s``; ``8`` and ``b``), a kubeadm token's (``6`` read ``G``, ``7``
# ``T``, ``8`` ``B``: ``formats``), and an ``8`` read ``s`` and a ``9``
# read ``g`` (a Pulumi token's ``...fe6fesbf`` in Chromium).
_READ_AS = {
    "0": "Oo",
    "1": "lIi|",
    "2": "zZ",
    "4": "Aa",
    "5": "Ss",
    "6": "G",
    "7": "T",
    "8": "Bbs",
    "9": "g",
}
# The most of a token's characters the engine may read as a glyph its
# alphabet has not, in each run of its body (``with_misreads``).
MISREADS = 2


def misreads(body: str) -> str:
    """The glyphs the engine reads for characters of the alphabet ``body``
    (a character class) that the class holds not (``_READ_AS``, both ways:
    ``s`` for a hexadecimal ``8``, ``i`` or ``g`` for a digit of an AWS key
    id's alphabet); none for an alphabet of every letter and digit."""
    inside = re.compile(body, re.ASCII)
    pairs = [(a, b) for a, read in _READ_AS.items() for b in read]
    found = {b for a, b in pairs if inside.fullmatch(a)}
    found |= {a for a, b in pairs if inside.fullmatch(b)}
    return "".join(sorted(c for c in found if not inside.fullmatch(c)))


def read_body(body: str) -> str:
    """One character of the alphabet ``body`` as the engine reads it: the
    alphabet's, or a glyph it reads for one outside it (``with_misreads``),
    for a pattern of a format's parts (Mailchimp's)."""
    return with_misreads(body, body)


def with_misreads(unit: str, body: str) -> str:
    """A token's ``unit`` (one of its body's characters) that takes one of
    the glyphs the engine reads for a character of ``body``'s alphabet
    outside it (``misreads``: ``pul-...fe6fesbf``, an ``8`` read ``s``),
    beside one of the body's characters or after another such glyph, up
    to ``MISREADS`` of them in a run of the body's characters: one more
    ends the body where it begins, as any glyph outside it did. A run with
    more is no token misread but a word or code; a glyph alone is a word's
    (``... in use`` after a key id)."""
    extra = misreads(body)
    if not extra:
        return unit
    other = f"[{re.escape(extra)}]"
    ahead = "".join(f"{body}*{other}" for _ in range(MISREADS))
    beside = f"(?:(?<={body}|{other}){other}|{other}(?={body}))"
    return f"(?:{unit}|{beside}(?!{ahead}))"
