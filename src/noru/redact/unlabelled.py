"""Keys found beside what names them, with no label's ``=`` or ``:``
between: an AWS secret access key beside its access key id on one line
(``echo "$ID $SECRET"``, a row of accessKeys.csv), and a storage key beside
a label that names a key, in a field too narrow to show its ``==``.
``detect`` runs these beside the formats and ``places``.
"""

from __future__ import annotations

import re

from noru.redact.formats import STORAGE_KEY
from noru.redact.rules import AWS_SECRET
from noru.redact.shapes import Finding, entropy, label_words

__all__ = ["aws_secrets", "bare_keys"]


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
# How varied a storage key's characters are at least, in bits per character:
# 86 random characters of base64 hold 5.4 on average and hardly ever under
# 5; a run of words, or of a few characters repeated, holds far less.
_KEY_ENTROPY = 4.9


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
        if not (
            any(c.isdigit() for c in value)
            and any(c.isupper() for c in value)
            and any(c.islower() for c in value)
            and entropy(value) >= _KEY_ENTROPY
        ):
            continue
        found.append(Finding(m.start("v"), m.end("v"), "azure-storage-key"))
    return found
