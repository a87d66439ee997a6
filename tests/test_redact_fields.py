"""A form's field beside its label that names a secret: what it shows is a
key's, also the part of one a narrow field scrolls to (its prefix out of
view), also when the engine reads the label and the field as two lines.
Lines as the engine read a real Tk form (tests/test_redact_fields_real.py);
the values are made up."""

from __future__ import annotations

import pytest

from noru.redact import Finding, find
from noru.redact.fields import beside
from noru.store import OcrLine

# What a narrow field showed of a key: no format's prefix left in view.
PART = "OrOwd8S7Bal6j7pGLou3SHv"


@pytest.mark.parametrize(
    ("line", "value"),
    [
        (f"Personal access token |{PART}", PART),
        ("Client secret |TSI4f28gZ|2CePvzZaqLxj4sxrv|", "TSI4f28gZ|2CePvzZaqLxj4sxrv"),
        ("API key [wxAscRuzOI8G5UBBBpiA84Yr", "wxAscRuzOI8G5UBBBpiA84Yr"),
        # a J read as } inside it, a glyph the field's edge cuts read as I
        ("Client secret tSoGP6tNcsrTnEjnrNOdCCg}I", "tSoGP6tNcsrTnEjnrNOdCCg}I"),
        # GTK's rounded field: its edges read as ( and :
        ("API key (Cj9Z51dfAels7xPTBOLK:", "Cj9Z51dfAels7xPTBOLK"),
        ("Secret key 2H9UZ0+t1sAq6DdWXLgEJKC", "2H9UZ0+t1sAq6DdWXLgEJKC"),
        ("Key k4VEi0PLmDkwG5gwqUgFVkMYOZnqWoPEO4ZslkhcRtGEZgsrppieC7q1Bowm", None),
        ("Service credential  k3Jd9sLq2ZxP0aB7mWq4Rt8YuV2nC", "k3Jd9sLq2ZxP0aB7mWq4Rt8YuV2nC"),
        # a password's field shown in clear
        ("Password XFcqgGxKh1ZxXfu!BeC", "XFcqgGxKh1ZxXfu!BeC"),
    ],
)
def test_a_field_s_part_of_a_key_beside_its_label_is_found(line: str, value: str | None) -> None:
    value = value or line.split()[-1]
    start = line.index(value)
    found = find(line)
    assert len(found) == 1 and found[0].start <= start and start + len(value) <= found[0].end, [
        line[f.start : f.end] for f in found
    ]


@pytest.mark.parametrize(
    "line",
    [
        # a public key's label, a database's, no secret's
        f"RSA key {PART}",
        f"sort key {PART}",
        "Commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        # what the field shows is words, a name of code, a path, a digest
        "Name f the Analytical Engine Society",
        "Client secret getAccountStorageKeyFromTheVaultWithRetries2AndBackoff",
        "API key release2026candidateBuild",
        "Secret key /run/secrets/deploy/production",
        "Secret 5dc970b74767f19372d61",
        "the token expired yesterday",
        "Password incorrect, try again",
        "Password Reset2024",
    ],
)
def test_no_key_is_taken_from_a_field_no_label_says_is_a_key_s(line: str) -> None:
    assert find(line) == [], [line[f.start : f.end] for f in find(line)]


def _line(text: str, x: int, y: int, w: int, h: int = 14) -> OcrLine:
    return OcrLine(text, (x, y, w, h), 0.9)


def test_a_field_read_apart_from_its_label_beside_or_above_it_is_found() -> None:
    lines = [
        _line("API key", 18, 30, 50),
        _line("Personal access token", 19, 71, 153),
        _line("Webhook URL", 18, 112, 97),
        _line(PART, 196, 30, 206),
        _line("wxAscRuzOI8G5UBBBpiA84Yr", 196, 71, 205),
        _line("hooks/deploy/production/main", 196, 112, 211),
        # a web form's label above its field
        _line("Client secret:", 18, 160, 90),
        _line("TSl4f28gZl2CePvzZaqLXj4sxrv", 20, 180, 215),
    ]
    assert beside(lines) == [
        [], [], [], [Finding(0, len(PART), "api-key")], [Finding(0, 24, "token")], [], [],
        [Finding(0, 27, "secret")],
    ]  # fmt: skip


def test_a_label_on_another_row_or_a_line_of_prose_names_no_field() -> None:
    lines = [
        # a label with no field on its row, a key-like line two rows down
        _line("API key", 18, 30, 50),
        _line("Name", 18, 71, 40),
        _line(PART, 196, 112, 206),
        # prose that ends in a secret's name, a key-like line beside it
        _line("Paste here the value you copied as your new token", 18, 160, 300),
        _line("wxAscRuzOI8G5UBBBpiA84Yr", 330, 160, 205),
    ]
    assert beside(lines) == [[] for _ in lines]
