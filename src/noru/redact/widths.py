"""The fewest characters a match of a pattern holds (``least``), read from
the pattern's text by the rules' own syntax, with no private part of
``re``: a look-around, an anchor and a back-reference hold none, so the
count is never more than the fewest (``search.LEAST`` passes over texts
shorter than it: one too high would lose a secret).
"""

from __future__ import annotations

__all__ = ["least"]

# An escape of one character of the text each (``\d``, ``\.``); these hold none.
_ANCHORS = frozenset("bBAZ")
# After ``\x``, ``\u``, ``\U``: how many hexadecimal digits follow.
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}


def least(pattern: str) -> int:
    """The fewest characters a match of ``pattern`` (Python's syntax, not
    verbose) holds."""
    width, at = _either(pattern, 0)
    if at != len(pattern):
        raise ValueError(f"unbalanced ')' at {at} in {pattern!r}")
    return width


def _either(pattern: str, at: int) -> tuple[int, int]:
    """The fewest of the alternatives from ``at`` to the ``)`` that closes
    them (or the end), and where that is."""
    fewest, width = None, 0
    while at < len(pattern) and pattern[at] != ")":
        if pattern[at] == "|":
            fewest = width if fewest is None else min(fewest, width)
            width, at = 0, at + 1
            continue
        one, at = _atom(pattern, at)
        times, at = _times(pattern, at)
        width += one * times
    return (width if fewest is None else min(fewest, width)), at


def _atom(pattern: str, at: int) -> tuple[int, int]:
    """The fewest characters of the item at ``at`` (once), and where it ends."""
    char = pattern[at]
    if char == "(":
        return _group(pattern, at)
    if char == "[":
        end = at + 1
        if pattern[end : end + 1] == "^":
            end += 1
        if pattern[end : end + 1] == "]":
            end += 1  # a ``]`` first is the class's own
        while pattern[end] != "]":
            end += 2 if pattern[end] == "\\" else 1
        return 1, end + 1
    if char == "\\":
        kind = pattern[at + 1]
        if kind in _ANCHORS or kind.isdigit():
            return 0, at + 2  # an anchor; a back-reference (as few as none)
        if kind in _HEX_DIGITS:
            return 1, at + 2 + _HEX_DIGITS[kind]
        if kind == "N":
            return 1, pattern.index("}", at) + 1
        return 1, at + 2
    if char in "^$":
        return 0, at + 1
    return 1, at + 1


def _group(pattern: str, at: int) -> tuple[int, int]:
    """A group at ``at``: its fewest (none for a look-around, a comment or
    a back-reference by name), and where it ends."""
    head = pattern[at + 1 : at + 4]
    if head.startswith("?#"):
        return 0, pattern.index(")", at) + 1
    if head.startswith("?P="):
        return 0, pattern.index(")", at) + 1
    look = head.startswith(("?=", "?!", "?<=", "?<!"))
    start = at + 1
    if head.startswith("?P<"):
        start = pattern.index(">", at) + 1
    elif head.startswith("?<"):
        start = at + (4 if look else 3)
    elif head.startswith("?"):
        start = at + 2
        while pattern[start] not in ":)=!":
            start += 1  # inline flags (``?i:``, ``?-i:``, ``?a``)
        if pattern[start] == ")":
            return 0, start + 1  # flags for the whole pattern
        start += 1
    width, end = _either(pattern, start)
    return (0 if look else width), end + 1


def _times(pattern: str, at: int) -> tuple[int, int]:
    """How many times at least the item before ``at`` is taken (its
    quantifier's least, 1 without one), and where the quantifier ends."""
    if at >= len(pattern):
        return 1, at
    char = pattern[at]
    if char in "*?+":
        times, end = (0 if char in "*?" else 1), at + 1
    elif char == "{":
        close = pattern.find("}", at)
        inside = pattern[at + 1 : close] if close > 0 else ""
        low, _, high = inside.partition(",")
        if not inside or not all(part.isdigit() or not part for part in (low, high)):
            return 1, at  # a ``{`` of the text, no count
        times, end = (int(low) if low else 0), close + 1
    else:
        return 1, at
    if pattern[end : end + 1] in ("?", "+"):
        end += 1  # lazy or possessive
    return times, end
