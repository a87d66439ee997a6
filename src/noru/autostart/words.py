"""A start line split into its words, as the program that runs it splits it:
a Desktop Entry's ``Exec`` (as a launcher) and a unit's ``ExecStart=`` (as
systemd). Both split at white space outside quotes and take the quotes
out; they differ in which quotes there are and which backslashes escape,
which each reader says (``Escape``)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Escape", "split_words"]

# At a backslash at ``i`` (within quote ``quote``, "" outside any): the text
# it stands for and how many characters it takes, or None where it escapes
# nothing (the backslash is then a character of the word).
Escape = Callable[[str, int, str], tuple[str, int] | None]


def split_words(value: str, *, quotes: str, escape: Escape) -> list[str]:
    """``value``'s words: split at white space outside quotes (any of
    ``quotes``), the quotes taken out, escapes read by ``escape``. A quoted
    empty word is a word."""
    words: list[str] = []
    word: list[str] = []
    started, quote, i = False, "", 0
    while i < len(value):
        ch = value[i]
        escaped = escape(value, i, quote) if ch == "\\" else None
        if escaped is not None:
            text, used = escaped
            word.append(text)
            started, i = True, i + used
            continue
        if quote and ch == quote:
            quote = ""
        elif not quote and ch in quotes:
            quote, started = ch, True
        elif not quote and ch.isspace():
            if started:
                words.append("".join(word))
            word, started = [], False
        else:
            word.append(ch)
            started = True
        i += 1
    if started:
        words.append("".join(word))
    return words
