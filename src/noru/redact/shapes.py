"""The shapes rules are written in (``noru.redact.rules``' one table is
made of them): the characters the engine confuses, a format's fixed part
written to take them (``fixed``), the folded form a line is searched for
a rule's needles in (``canon``), the kinds of rule: a pattern
(``rule``) and a token of a prefix and a body whose stray spaces
``search`` joins (``token``, ``prefixed``); what a piece of a token looks
like (``piece_like``), and what is found (``Finding``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

__all__ = [
    "A4",
    "ALNUM",
    "B8",
    "B64",
    "BODY",
    "HEX",
    "IL1",
    "LOWER",
    "O0",
    "S5",
    "TOKEN_CHARS",
    "UPPER",
    "Z2",
    "Finding",
    "Rule",
    "canon",
    "case_changes",
    "fixed",
    "piece_like",
    "prefixed",
    "rule",
    "token",
]

# The characters the engine confuses, in the fixed parts of a format.
O0 = "[O0o]"
IL1 = "[Il1|]"
S5 = "[S5s]"
A4 = "[A4]"
B8 = "[B8]"
Z2 = "[Z2]"
# A token's body: what a token holds, and what OCR reads it as.
BODY = "[A-Za-z0-9_|-]"
ALNUM = "[A-Za-z0-9|]"
B64 = "[A-Za-z0-9+/=|]"
# Hexadecimal, and what the engine reads for its 0 and 1 (and a case flip).
HEX = "[0-9a-fA-FOolI|]"
# Capitals and digits (an AWS key id's, New Relic's), and the small letters
# the engine reads for capitals of one shape; and small letters and digits.
UPPER = "[A-Z0-9l|ckopsuvwxz]"
LOWER = "[a-z0-9CKOPSUVWXZ]"
# Letters whose capital is their small letter drawn larger: the engine
# flips their case now and then.
_FLIPS = frozenset("ckopsuvwxz")
_CONFUSED = {"o": O0, "O": O0, "0": O0, "l": IL1, "I": IL1, "1": IL1, "S": S5, "5": S5}


def fixed(text: str) -> str:
    """A format's fixed part as a pattern that takes the engine's misreads
    of it: confused characters, case flips of letters of one shape, and
    ``_`` read as a space (not at its start)."""
    out = []
    for i, char in enumerate(text):
        if char in _CONFUSED:
            out.append(_CONFUSED[char])
        elif char.lower() in _FLIPS:
            out.append(f"[{char.lower()}{char.upper()}]")
        elif char == "_" and i:
            out.append("[_ ]")
        else:
            out.append(re.escape(char))
    return "".join(out)


# The form a line is searched for a rule's fixed letters in (``canon``):
# small letters, and one character for those the engine confuses.
_CANON = str.maketrans(
    {"0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "2": "z", " ": "_", "8": "b", "4": "a"}
)


def canon(text: str) -> str:
    """``text`` in small letters with the characters the engine confuses
    made one (``0`` and ``o``; ``1``, ``i``, ``l`` and ``|``; ...) and a
    space as ``_``: a line holds a rule's ``needles`` in this form
    wherever the rule could match it."""
    return text.lower().translate(_CANON)


@dataclass(frozen=True)
class Rule:
    """A kind and its pattern (group ``v``: the value). A ``token``'s
    pattern matches its prefix (group ``p``) and looks ahead at its body
    (``b``) and up to three pieces after single spaces (``rest``), so that a
    piece it does not take is searched again; ``low`` and ``high`` are its
    body's length, spaces aside; with ``outside``, its prefix is where the
    value is (a webhook's URL), not part of it. ``needles``: a line can
    only match if its ``canon`` holds one of them (none: any line can), so
    most lines are passed over by a substring search, not a pattern."""

    kind: str
    pattern: re.Pattern[str]
    low: int = 0
    high: int = 0
    needles: tuple[str, ...] = ()
    outside: bool = False


def rule(kind: str, pattern: str, flags: int = 0, *, needles: tuple[str, ...] = ()) -> Rule:
    return Rule(kind, re.compile(pattern, re.ASCII | flags), needles=tuple(map(canon, needles)))


def token(
    kind: str,
    prefix: str,
    body: str,
    low: int,
    high: int | None = None,
    *,
    needles: tuple[str, ...],
    outside: bool = False,
) -> Rule:
    """A token: ``prefix`` (a pattern; ``fixed`` of a literal), then ``low``
    to ``high`` characters of ``body``. Inside a body of letters, a ``)``,
    ``]`` or ``}`` is the engine's reading of a ``J`` (in a proportional
    font), not the token's end."""
    unit = f"(?:{body}|[)\\]}}](?={body}))" if "A-Z" in body or "a-z" in body else body
    pattern = (
        rf"(?<![A-Za-z0-9])(?P<p>{prefix})"
        rf"(?=(?P<b>{unit}*)(?!{body})(?P<rest>(?: {unit}{{2,}}(?!{body})){{0,3}}))"
    )
    return Rule(
        kind,
        re.compile(pattern, re.ASCII),
        low,
        low if high is None else high,
        tuple(map(canon, needles)),
        outside,
    )


def prefixed(
    kind: str, prefix: str | tuple[str, ...], body: str, low: int, high: int | None = None
) -> Rule:
    """``token`` of literal prefixes (one, or any of a tuple)."""
    prefixes = (prefix,) if isinstance(prefix, str) else prefix
    pattern = "(?:" + "|".join(map(fixed, prefixes)) + ")"
    return token(kind, pattern, body, low, high, needles=prefixes)


@dataclass(frozen=True, order=True)
class Finding:
    """A secret value in a line: characters ``start`` to ``end`` (the value
    only), of ``kind`` (``aws-key``, ``password``, ``card``, ...)."""

    start: int
    end: int
    kind: str


def piece_like(text: str) -> bool:
    """Whether a piece of text after a space looks like a token's (letters
    and digits mixed, or many changes of case), not a word after it, nor a
    name with a number (``token_41``, ``x86_64``)."""
    if len(text) < 4 or not _PIECE_CHARS.fullmatch(text):
        return False
    return len(_MIXED.findall(text)) >= 2 or case_changes(text) >= 4


_MIXED = re.compile(r"[A-Za-z](?=[0-9])|[0-9](?=[A-Za-z])", re.ASCII)

_PIECE_CHARS = re.compile(r"[A-Za-z0-9_+/=.~|)\]}-]+", re.ASCII)

TOKEN_CHARS = re.compile(r"[A-Za-z0-9_+/=.~|-]+", re.ASCII)


def case_changes(text: str) -> int:
    letters = [c.isupper() for c in text if c.isalpha()]
    return sum(a != b for a, b in itertools.pairwise(letters))
