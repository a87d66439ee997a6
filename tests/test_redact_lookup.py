"""What makes redaction's search of a line cheap finds what the rules find:
the one look for every rule's needles (``search.searched``, and the places'
rules in the same look: ``search.placed_searched``), the gates of rules
whose needles most lines hold, and the tests a line passes before a costly
search (``spaces.mixed_run``). Their cost is measured by
bench/redact_cost.py (``--rules``), never asserted here.
"""

from __future__ import annotations

import random
import re

from noru.redact import find_lines
from noru.redact.rules import PLACED, RULES, canon
from noru.redact.search import _RULES, NEEDLES_CUT, category, placed_searched, searched
from noru.redact.spaces import mixed_run
from noru.redact.widths import least
from tests.redaction_formats import HELD_OUT, TUNED, TUNED_SEED, lines, misread, placed

CATEGORIES = ("secrets", "cards")
ORDINARY = [
    "2026-12-02 10:00:39.261 INFO parse_814 request_860 token_109 buffer_794 status_664",
    '  File "/usr/lib/python3.11/json/decoder.py", line 337, in decode',
    "config.getattribute(key) sl.read() r8 12:Aa 1.2.3 2a3b4c x86_64 utf8 sha256",
    "$ psql -h db -U app -W; curl -u me:pw https://example.com/a.json   Bearer x",
    "Token:  basic auth \tpassword  ; Pwd=  -- --token  machine default ~ ) ] }",
]
# A kind the generated lines do not show in a header.
SHOWN = ["curl -H 'Authorization: Bearer 9f8AbQz7LmN2xK4wR1tY' https://api.example.com"]


def _lines() -> list[str]:
    out = [*ORDINARY, *SHOWN]
    for line, value, _ in [*lines(TUNED_SEED, TUNED), *lines(TUNED_SEED, HELD_OUT)]:
        out.append(line)
        out += [made for _, made, _ in misread(random.Random(line), line, value)]
    out += [line for line, _, _ in placed(TUNED_SEED)]
    return out


LINES = _lines()


def test_one_look_picks_every_rule_whose_needles_a_line_holds() -> None:
    for line in LINES:
        folded = canon(line)
        formats = {
            i
            for i, rule in enumerate(_RULES)
            if category(rule.kind) in CATEGORIES
            and (not rule.needles or any(n in folded for n in NEEDLES_CUT[i]))
        }
        places = {k for k, rule in enumerate(PLACED) if not rule.needles or any(
            n in folded for n in rule.needles
        )}  # fmt: skip
        assert set(searched(folded, CATEGORIES)) == formats, line
        assert set(placed_searched(folded, CATEGORIES)) == places, line


def test_the_rules_whose_needles_most_lines_hold_are_gated() -> None:
    # a ``.``, a word of logs: every line of a log holds them
    common = [rule for rule in RULES if {".", "token"} & set(rule.needles)]
    assert common
    assert all(rule.gate is not None for rule in common)


def test_a_gate_is_plain_and_holds_wherever_its_rule_finds_a_value() -> None:
    gated = [rule for rule in _RULES if rule.gate is not None]
    assert gated
    for rule in gated:
        assert rule.gate is not None
        # plain: a text joined from a line's runs (its spaces taken out)
        # holds a match only where the line without spaces does
        assert not re.search(r"\(\?<?[=!]|\\b|\^|\$", rule.gate.pattern), rule.kind
        for line in LINES:
            for text in (line, line.replace(" ", "")):
                if rule.pattern.search(text):
                    assert rule.gate.search(text), (rule.kind, text)
    # and a value of each still found, its line searched whole
    kinds = {rule.kind for rule in gated}
    found = {f.kind for spans in find_lines(LINES) for f in spans}
    assert kinds <= found


def test_a_mixed_run_is_digits_between_letters_or_letters_between_digits() -> None:
    # as a pattern says it (what it replaced, one search of every place)
    pattern = re.compile(r"[A-Za-z][0-9]+[A-Za-z]|[0-9][A-Za-z]+[0-9]", re.ASCII)
    for line in [*LINES, "ab1", "1ab2", "a12b", "é1é", "a١b", "x_9_y", "9z"]:
        assert mixed_run(line) == (pattern.search(line) is not None), line


def test_the_fewest_characters_of_a_pattern_are_read_from_its_text() -> None:
    for pattern, fewest in [
        (r"ab{2,3}c", 4),
        (r"x{,3}y*z+", 1),
        (r"a{b", 3),  # a brace of the text
        (r"(?i)ab|(?-i:c)", 1),
        (r"(?<![A-Za-z])(?=abc)[]x]\.\x41", 3),  # look-arounds hold none
        (r"(?P<q>['\"])(?P<v>[^'\"]{4,})(?P=q)", 5),  # nor a back-reference
        (r"^(?:ab|c)+?$", 1),
    ]:
        assert least(pattern) == fewest, pattern
    # never more than the shortest value a rule finds (that one would be lost)
    for rule in _RULES:
        for line in LINES:
            for m in rule.pattern.finditer(line):
                assert least(rule.pattern.pattern) <= len(m[0]), (rule.kind, m[0])
