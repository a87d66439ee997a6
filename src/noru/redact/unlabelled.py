"""Keys found beside what names them, with no label's ``=`` or ``:``
between: an AWS secret access key beside its access key id on one line
(``echo "$ID $SECRET"``, a row of accessKeys.csv), a storage key beside
a label that names a key, in a field too narrow to show its ``==``, and a
form's field beside its label that names a secret (``API key``, ``Client
secret``), showing a key or the part of one a narrow field scrolls to.
``detect`` runs these beside the formats and ``places``; ``fields`` pairs
a label and its field the engine read as two lines.
"""

from __future__ import annotations

import re

from noru.redact.formats import STORAGE_KEY
from noru.redact.glyphs import unconfused
from noru.redact.places import a_secrets_key, keylike, label_kind
from noru.redact.rules import AWS_SECRET
from noru.redact.shapes import Finding, all_classes, entropy, label_words, random_key

__all__ = ["FIELD_LABEL", "aws_secrets", "bare_keys", "field_values"]


def aws_secrets(line: str) -> list[Finding]:
    """AWS secret access keys beside an access key id on one line, unlabelled
    (``echo "$ID $SECRET"``, a row of accessKeys.csv): 40 of base64's
    characters, in both cases with a digit or ``/`` or ``+``."""
    found = []
    for m in AWS_SECRET.finditer(line):
        value = m["v"]
        if (
            any(c.islower() for c in value)
            and any(c.isupper() for c in value)
            and any(c.isdigit() or c in "/+" for c in value)
        ):
            found.append(Finding(m.start("v"), m.end("v"), "aws-secret"))
    return found


# A label that ends in a key's name (``Key``, ``key1``, ``AccountKey``,
# ``Access key``), a space or a tab, then a run of base64 as long as a
# storage key's (``formats.STORAGE_KEY``) with no ``==`` after it: a portal's
# field too narrow to show the key's end, its label beside it, no colon.
_BARE_KEY = re.compile(
    rf"key[0-9]?[ \t]{{1,4}}(?P<v>[A-Za-z0-9+/|]{{{STORAGE_KEY[0]},{STORAGE_KEY[1]}}})"
    r"(?![A-Za-z0-9+/=|_.-])",
    re.ASCII | re.IGNORECASE,
)
# The words of a public key's label (``RSA key``, ``ssh-ed25519 key``): what
# follows is no secret.
_PUBLIC_KEY = frozenset({"public", "pub", "ssh", "gpg", "pgp", "host", "known", "rsa", "dsa"})


def bare_keys(line: str) -> list[Finding]:
    """Storage keys beside a label that names a key, with no colon nor
    ``=`` between and no ``==`` after (a field too narrow to show it: ``Key
    k4VEi...``): a run of base64 of the key's length, capitals, small
    letters and digits mixed and as varied as random bytes are; not after
    a public key's label (``RSA key``), nor a hexadecimal fingerprint."""
    found = []
    for m in _BARE_KEY.finditer(line):
        value = m["v"]
        label = label_words(line[max(0, m.start() - 40) : m.start("v")])
        if _PUBLIC_KEY.intersection(label[-4:]) or re.fullmatch(r"[0-9A-Fa-f]+", value):
            continue
        if not random_key(value):
            continue
        found.append(Finding(m.start("v"), m.end("v"), "azure-storage-key"))
    return found


# A form's label that names a secret, ending in its name (``API key``,
# ``Personal access token``, ``Client secret``, ``key1``), then its field:
# no ``=`` nor ``:`` between (those are ``places.labelled``'s), a space or
# the field's edge read as a glyph (``|``, ``[``). ``v``: the field's text,
# its edges' glyphs on it (``_edged``: left out of what is judged, kept in
# what is redacted but for quotes).
FIELD_LABEL = re.compile(
    r"(?<![A-Za-z0-9_])(?P<name>pa[s5]{2}(?:w[o0]rd|wd|phrase)|[s5]ecret|t[o0]ken|credential"
    r"|key[0-9]?)(?=(?:[ \t]+[|\[({'\"‘“]?|[|\[({])[ \t]?(?P<v>\S+))",
    re.ASCII | re.IGNORECASE,
)
# What ``FIELD_LABEL`` holds, as searched first in small letters: a name,
# then a space or an edge's glyph; a line without one (most) has no field
# beside a label. Each of its branches starts with one character, so that
# the search passes over the others without trying it (no look-behind, no
# ``re.IGNORECASE``, no class first: each of them takes that away).
_FIELD_GATE = re.compile(
    r"(?:pa[s5]{2}(?:w[o0]rd|wd|phrase)|secret|5ecret|t[o0]ken|credential|key[0-9]?)[ \t|\[({]",
    re.ASCII,
)
# A field's edges as the engine reads them beside its text (a rounded
# border: ``(`` before it, ``:`` after it), and quotes read there.
_QUOTES = "'\"‘’“”"
_EDGES = ("|[({'\"‘“", "|])}:;.,'\"’”")


def field_values(line: str, label: str = "") -> list[Finding]:
    """A field's key beside its label that names a secret, with no colon nor
    ``=`` between (``API key |wxAscRuzOl8G5...``): a form's row, its field
    maybe too narrow for the key, showing a part of it with its prefix
    scrolled out of view. What the field shows must look drawn at random
    (``places.keylike``: 16 characters or more of a token's alphabet,
    letters and digits mixed, as varied as random text; hexadecimal from
    32), not words run together (``_wordy``): a word, a name, a path or
    a commit id is no key's part; after a password's label, a password
    shown in clear (``_password_like``). A label
    that is only a ``key`` must be a secret's (not ``RSA key``, ``sort
    key``). ``label``: the label's line when the engine read it apart, its
    field alone on ``line``."""
    text = f"{label} {line}" if label else line
    shift = len(label) + 1 if label else 0
    found: list[Finding] = []
    if _FIELD_GATE.search(text.lower()) is None:
        return found
    for m in FIELD_LABEL.finditer(text):
        if m.start("v") < shift:
            continue
        start, end = _edged(text, *m.span("v"))
        # judged as the formats are: a glyph no token holds read inside it
        # (``...NOdCCg}I`` for ``...NOdCCgJP``) as the token's character
        readings = unconfused(text[start:end])
        value = readings[0][0] if readings else text[start:end]
        words = label_words(text[max(0, m.start("name") - 40) : m.end("name")])
        if words[-1].startswith("key") and (
            not a_secrets_key(words) or _PUBLIC_KEY.intersection(words[-4:])
        ):
            continue
        kind = label_kind(" ".join(words[-3:]))
        if _wordy(value) or not (keylike(value) or (kind == "password" and _password_like(value))):
            continue
        # The span takes the edges' glyphs too (one may be the key's last
        # character misread, an ``x`` read as ``:``), but not its quotes.
        begin, stop = m.span("v")
        while begin < stop and text[begin] in _QUOTES:
            begin += 1
        while stop > begin and text[stop - 1] in _QUOTES:
            stop -= 1
        found.append(Finding(begin - shift, stop - shift, kind))
    return found


# Words in a name of code or in prose run together: a capital or none, then
# small letters; in a key drawn at random such runs are short.
_WORDS = re.compile(r"[A-Z]?[a-z]{3,}")
# The share of a value's letters in such words at which it reads as words
# (``getAccountStorageKeyFromTheVault...``); random runs of base64's
# characters reach it in under 2 in 100 of 16 characters, 1 in 100 of 24.
_WORDY = 0.7


def _wordy(value: str) -> bool:
    """Whether ``value`` is words run together (a name of code, prose
    without its spaces), not a key's random characters."""
    letters = sum(c.isalpha() for c in value)
    return letters > 0 and sum(map(len, _WORDS.findall(value))) >= _WORDY * letters


def _password_like(value: str) -> bool:
    """Whether a password's field shows a password in clear (``Show
    password``): 10 characters or more, capitals, small letters and digits
    mixed, any punctuation among them, as varied as random text; not a
    path nor a URL."""
    return len(value) >= 10 and "/" not in value and all_classes(value) and entropy(value) >= 3.0


def _edged(text: str, start: int, end: int) -> tuple[int, int]:
    """A field's text without its edges read as glyphs around it."""
    while start < end and text[start] in _EDGES[0]:
        start += 1
    while end > start and text[end - 1] in _EDGES[1]:
        end -= 1
    return start, end
