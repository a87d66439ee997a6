"""How a reading of a terminal screen is scored against the screen's truth.

Shared by bench/ocr_terminals.py (the corpus's figures) and
tests/test_terminal_corpus.py (the never-worse rule). Everything is
case-sensitive: ``TraCebaCk`` is not ``Traceback``.

- ``tokens``: split on white space, after box drawing (U+2500-U+259F) and
  private-use characters (Powerline's glyphs) became spaces: they are
  pictures, not words, in the truth and in a reading alike.
- ``score``: token recall (the truth's tokens found, as multisets), exact
  lines (the truth's non-empty lines, trailing spaces stripped, found as an
  identical line of the reading, as multisets; leading spaces count), and
  character errors (Levenshtein distance between the truth's non-empty lines
  joined by newlines and the reading's, once the reading's lines that are
  the terminal's chrome are dropped: equal to an optional line, or made of
  its words only, as a menu bar read word by word). A screen passes at 99 %
  of its tokens and 95 % of its lines.
- ``calibration``: how well line confidences say whether a line is exact:
  the expected calibration error over 10 equal-width bins, and the share
  of lines served at 0.99 or more that are exact.
- ``levenshtein``: the edit distance, bit-parallel (Myers 1999, as Hyyrö
  2001 gives it for whole strings): a 12,000-character screen against its
  reading takes milliseconds, where a table in Python takes a minute.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "PASS_LINES",
    "PASS_TOKENS",
    "Calibration",
    "Score",
    "calibration",
    "chrome",
    "levenshtein",
    "score",
    "tokens",
]

PASS_TOKENS, PASS_LINES = 0.99, 0.95


def _blank(char: str) -> bool:
    return "\u2500" <= char <= "\u259f" or unicodedata.category(char) == "Co"


def tokens(text: str) -> list[str]:
    """``text``'s tokens: runs between white space, box drawing and
    private-use characters."""
    return "".join(" " if _blank(char) else char for char in text).split()


def levenshtein(a: str, b: str) -> int:
    """The edit distance (insertions, deletions, substitutions) of ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    # The pattern (the shorter string) is the bit vector; the longer is scanned.
    masks: dict[str, int] = {}
    for i, char in enumerate(b):
        masks[char] = masks.get(char, 0) | (1 << i)
    everything = (1 << len(b)) - 1
    top = 1 << (len(b) - 1)
    plus, minus, distance = everything, 0, len(b)
    for char in a:
        eq = masks.get(char, 0)
        x = eq | minus
        d0 = (((x & plus) + plus) ^ plus) | x
        hp = minus | (~(d0 | plus) & everything)
        hn = plus & d0
        if hp & top:
            distance += 1
        elif hn & top:
            distance -= 1
        hp = ((hp << 1) | 1) & everything
        hn = (hn << 1) & everything
        plus = hn | (~(d0 | hp) & everything)
        minus = hp & d0
    return distance


@dataclass(frozen=True)
class Score:
    """One reading of one screen against its truth."""

    truth_tokens: int
    found_tokens: int
    truth_lines: int
    exact_lines: int
    truth_chars: int
    errors: int  # character edits from the reading to the truth

    @property
    def token_recall(self) -> float:
        return self.found_tokens / self.truth_tokens if self.truth_tokens else 1.0

    @property
    def line_share(self) -> float:
        return self.exact_lines / self.truth_lines if self.truth_lines else 1.0

    @property
    def cer(self) -> float:
        return self.errors / self.truth_chars if self.truth_chars else float(self.errors > 0)

    @property
    def passed(self) -> bool:
        return self.token_recall >= PASS_TOKENS and self.line_share >= PASS_LINES


def _kept(lines: Iterable[str]) -> list[str]:
    """Non-empty lines, trailing spaces stripped."""
    return [text.rstrip() for text in lines if text.strip()]


# Around a chrome word: punctuation, and what the little arrows of a
# toolbar's buttons are read as.
_PUNCTUATION = ",.;:!?_~\u25be\u25bc"


def chrome(text: str, optional: Sequence[str]) -> bool:
    """Whether a reading's line is the terminal's chrome: equal to one of
    the ``optional`` lines, or made of their words only (a menu bar read
    word by word, a toolbar's buttons read with a comma between)."""
    if text.rstrip() in {line.rstrip() for line in optional}:
        return True
    words = {t.strip(_PUNCTUATION) for line in optional for t in tokens(line)}
    # A line of marks alone (a compiler's ``~~~~`` under the code it points
    # at) has no word of the chrome's: it is text.
    found = [t for t in (t.strip(_PUNCTUATION) for t in tokens(text)) if t]
    return bool(words) and bool(found) and all(t in words for t in found)


def score(truth: Sequence[str], optional: Sequence[str], reading: Sequence[str]) -> Score:
    """``reading`` (a reader's lines, top to bottom) scored against ``truth``
    (the screen's rows); the reading's lines that are the terminal's chrome
    (``chrome``: of the ``optional`` lines) are neither counted nor held
    against it."""
    wanted = _kept(truth)
    read = [text for text in _kept(reading) if not chrome(text, optional)]
    truth_tokens = Counter(t for text in wanted for t in tokens(text))
    read_tokens = Counter(t for text in read for t in tokens(text))
    exact = Counter(wanted) & Counter(read)
    joined = "\n".join(wanted)
    return Score(
        truth_tokens=sum(truth_tokens.values()),
        found_tokens=sum((truth_tokens & read_tokens).values()),
        truth_lines=len(wanted),
        exact_lines=sum(exact.values()),
        truth_chars=len(joined),
        errors=levenshtein(joined, "\n".join(read)),
    )


@dataclass(frozen=True)
class Calibration:
    """Line confidences against whether the lines were exact."""

    lines: int
    ece: float  # expected calibration error, 10 equal-width bins
    confident: int  # lines served at confidence >= 0.99
    confident_exact: float  # the share of those that are exact


def calibration(pairs: Iterable[tuple[float, bool]]) -> Calibration:
    """``pairs`` of (a line's confidence, whether it is exact)."""
    seen = list(pairs)
    if not seen:
        return Calibration(0, 0.0, 0, 0.0)
    bins: dict[int, list[tuple[float, bool]]] = {}
    for confidence, exact in seen:
        bins.setdefault(min(9, int(confidence * 10)), []).append((confidence, exact))
    ece = 0.0
    for members in bins.values():
        confidence = sum(c for c, _ in members) / len(members)
        accuracy = sum(e for _, e in members) / len(members)
        ece += len(members) / len(seen) * abs(confidence - accuracy)
    confident = [exact for confidence, exact in seen if confidence >= 0.99]
    share = sum(confident) / len(confident) if confident else 0.0
    return Calibration(len(seen), ece, len(confident), share)
