"""Finding secrets in lines of text (``noru.redact``'s rules applied)."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from noru.redact.rules import (
    CARD,
    CARD_DIGITS,
    CATEGORY_OF,
    DEFAULT_CATEGORIES,
    DESCRIPTORS,
    LABEL_CHARS,
    LABEL_NAME,
    LABEL_VALUE,
    OPTIONAL_RULES,
    PEM_BEGIN,
    PEM_BODY,
    PEM_END,
    PLACEHOLDERS,
    RULES,
)

__all__ = ["NUMBER_DIGITS", "Finding", "Own", "category", "find", "find_lines"]

# A labelled value of only this many digits or fewer is a number, not a
# token or a key (``"tokens": 57230``), but after a password's label.
NUMBER_DIGITS = 10
# A token's or a key's labelled value is at least this long (a password may
# be as short as 4).
MIN_TOKEN = 8


@dataclass(frozen=True, order=True)
class Finding:
    """A secret value in a line: characters ``start`` to ``end`` (the value
    only), of ``kind`` (``aws-key``, ``password``, ``card``, ...)."""

    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class Own:
    """One of the person's own patterns (``noru redact add``): what it
    matches (its group ``v`` if it has one, else the whole match) is
    redacted as ``kind``."""

    pattern: re.Pattern[str]
    kind: str


def category(kind: str) -> str:
    """The setting a kind is turned on by: "cards", "emails", "phones", or
    "secrets" (every other kind)."""
    return CATEGORY_OF.get(kind, "secrets")


def find(
    line: str,
    categories: Collection[str] = DEFAULT_CATEGORIES,
    own: Sequence[Own] = (),
) -> list[Finding]:
    """What ``categories`` and the person's ``own`` patterns find in one
    line, left to right, none overlapping."""
    found = [
        Finding(m.start("v"), m.end("v"), rule.kind)
        for rule in (*RULES, *OPTIONAL_RULES)
        if category(rule.kind) in categories
        for m in rule.pattern.finditer(line)
        if rule.kind != "phone" or 9 <= sum(c.isdigit() for c in m["v"]) <= 15
        if rule.kind != "bearer-token" or _credential_like(m["v"])
    ]
    if "secrets" in categories:
        found += _labelled(line)
    if "cards" in categories:
        found += _cards(line)
    for mine in own:
        for m in mine.pattern.finditer(line):
            group = "v" if "v" in mine.pattern.groupindex else 0
            if m.end(group) > m.start(group):
                found.append(Finding(m.start(group), m.end(group), mine.kind))
    # Most specific first: a key's own format names it better than its label.
    return _apart(found)


def find_lines(
    lines: Sequence[str],
    categories: Collection[str] = DEFAULT_CATEGORIES,
    own: Sequence[Own] = (),
) -> list[list[Finding]]:
    """What ``find`` finds in each of ``lines`` (a capture's, top to
    bottom), and with "secrets", a PEM private key's body lines between
    its BEGIN and END lines, each whole."""
    found = [find(line, categories, own) for line in lines]
    if "secrets" not in categories:
        return found
    inside = False
    for i, line in enumerate(lines):
        if PEM_BEGIN.search(line):
            inside = True
            continue
        if inside:
            if PEM_END.search(line):
                inside = False
            elif (body := PEM_BODY.match(line)) is not None:
                found[i] = _apart(
                    [*found[i], Finding(body.start("v"), body.end("v"), "private-key")]
                )
            else:
                inside = False  # the key ended, or what follows is no key
    return found


def _labelled(line: str) -> list[Finding]:
    found = []
    after = 0  # where the last label's value ended: a name inside it is no label
    for name in LABEL_NAME.finditer(line):
        if name.start() < after or _inside_a_word(line, name.end()):
            continue
        start = name.start()
        while start and (line[start - 1].isalnum() or line[start - 1] in "_.-"):
            start -= 1
        end = LABEL_CHARS.match(line, name.end()).end()  # type: ignore[union-attr]
        label = line[start:end]
        last = _parts(label)[-1]  # its last word
        if last in DESCRIPTORS:
            continue  # ``password_encryption``, ``token_url``: about a secret, not one
        m = LABEL_VALUE.match(line, end)
        if m is None:
            continue
        if m["q"] is not None:
            if _closes_a_string(line, start, end, m["quote"]):
                continue  # ``prompt='Password: ', stream=None)``: no value opens there
            begin, stop = m.span("q")
        else:
            begin, stop = _trimmed(line, *m.span("v"))
        value = line[begin:stop]
        if len(value) < 4 or value.lower().strip("*.") in PLACEHOLDERS or _reference(value):
            continue
        if m["q"] is None and (any(c in value for c in "([{") or _code(line, m, label, last, stop)):
            continue  # a call, a type, an index, a name of the code: not a value
        kind = _label_kind(label)
        if kind != "password" and value.isdigit() and len(value) <= NUMBER_DIGITS:
            continue  # a count or a size (``max_tokens: 4096``); a PIN is a password's
        if kind in ("token", "api-key") and len(value) < MIN_TOKEN:
            continue  # ``SESSION_TOKEN = "noru"``: a name; tokens and keys are longer
        found.append(Finding(begin, stop, kind))
        after = stop
    return found


def _inside_a_word(line: str, end: int) -> bool:
    """Whether a label's name ends inside a longer word (``tokenize``,
    ``passenger``, ``TOKENIZER``), not at a part of it (``tokens``,
    ``tokenData``, ``DB_PASSWORD``)."""
    rest = line[end : end + 2]
    if not rest[:1].isalpha():
        return False
    if rest[0] in "sS" and not rest[1:2].isalnum():
        return False  # a plural: ``tokens``, ``SECRETS``
    last = line[end - 1]
    return (last.islower() and rest[0].islower()) or (last.isupper() and rest[0].isupper())


def _parts(label: str) -> list[str]:
    """A label's words, lower case: ``tokenData.packages_and_scopes`` ->
    ``token data packages and scopes``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", label)
    return [part.lower() for part in re.split(r"[\s_.\-]+", spaced) if part] or [""]


def _closes_a_string(line: str, start: int, end: int, quote: str) -> bool:
    """Whether the quote a label's value starts with closes a string the
    label is inside (an odd count of that quote before it, the label's own
    quotes aside: ``"password": "..."`` opens one)."""
    before = line[:start].count(quote)
    if start and line[start - 1] == quote and line[end : end + 1] == quote:
        before -= 1
    return before % 2 == 1


def _code(line: str, m: re.Match[str], label: str, last: str, stop: int) -> bool:
    """Whether an unquoted labelled value is a name of the code around it,
    not a value: the next name of a chained assignment (``a = passwd = b``),
    the name a field is set from (``tokenData.scopes = scopes``, ``getpass
    = fallback_getpass``), what ``self.`` or ``this.`` is set to, or prose
    after a colon (``GetPassWarning: When we were unable to ...``). ``last``:
    the label's last word."""
    value = line[m.start("v") : stop]
    if re.match(r"\s*=(?![=>])", line[stop:]):
        return True
    # Code sets a name with spaces around ``=``; a .env line or a shell's
    # ``export`` has none (``PASSWORD=mypassword`` stays a value).
    sep = m.start("sep")
    spaced = m["sep"] == "=" and line[sep - 1 : sep].isspace() and line[sep + 1 : sep + 2].isspace()
    if spaced and re.fullmatch(r"[A-Za-z_]+", value):  # a name; a secret has digits, nearly
        bare = value.lower().replace("_", "")
        if last in bare or label.startswith(("self.", "this.")):
            return True
    if m["sep"] == ":" and value.isalpha():
        words = re.findall(r"[A-Za-z]+[,.;]?(?:\s|$)", line[stop:].lstrip(",;"))
        return len(words) >= 2
    return False


def _credential_like(value: str) -> bool:
    """A credential after ``Bearer`` or ``Basic``: a digit, both cases, or a
    token's punctuation in it; a word of prose has none of them."""
    return (
        any(c.isdigit() for c in value)
        or (any(c.islower() for c in value) and any(c.isupper() for c in value))
        or any(c in "._~+/=" for c in value)
    )


def _trimmed(line: str, begin: int, stop: int) -> tuple[int, int]:
    """An unquoted value's span without the code's punctuation around it:
    ``x;`` and ``x,`` and ``x)``, and a value in angle brackets."""
    while stop > begin and line[stop - 1] in ",;)]}>":
        stop -= 1
    while begin < stop and line[begin] in "<":
        begin += 1
    return begin, stop


def _reference(value: str) -> bool:
    """Whether a labelled value names where the secret is, not the secret:
    ``$TOKEN``, ``${{ secrets.X }}``, ``%(password)s``, ``{{ token }}``,
    ``****``, ``os.environ``, ``config.token``."""
    if value.startswith(("$", "%(", "{{", "%{")) or set(value) <= set("*•.x"):
        return True
    # A dotted name (a field, a module) is code, not a value.
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", value) is not None


def _label_kind(label: str) -> str:
    name = label.lower()
    if "aws" in name and "secret" in name:
        return "aws-secret"
    if "pass" in name or "pwd" in name:
        return "password"
    if "token" in name:
        return "token"
    if "key" in name:
        return "api-key"
    return "secret"


def _cards(line: str) -> list[Finding]:
    found = []
    for m in CARD.finditer(line):
        digits = re.sub(r"[ -]", "", m["v"]).translate(CARD_DIGITS)
        if 13 <= len(digits) <= 19 and _luhn(digits) and not _one_digit(digits):
            found.append(Finding(m.start("v"), m.end("v"), "card"))
    return found


def _luhn(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        value = int(char)
        if i % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _one_digit(digits: str) -> bool:
    """``0000 0000 0000 0000`` passes Luhn and is no card."""
    return len(set(digits)) == 1


def _apart(found: list[Finding]) -> list[Finding]:
    """Findings left to right, an overlapping one merged into the one it
    overlaps: the span of both, the kind of the one earlier in ``found``
    (the most specific)."""
    rank = {id(f): i for i, f in enumerate(found)}
    merged: list[Finding] = []
    ranks: list[int] = []
    for finding in sorted(found, key=lambda f: (f.start, -f.end)):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            kind = finding.kind if rank[id(finding)] < ranks[-1] else last.kind
            merged[-1] = Finding(last.start, max(last.end, finding.end), kind)
            ranks[-1] = min(ranks[-1], rank[id(finding)])
        else:
            merged.append(finding)
            ranks.append(rank[id(finding)])
    return merged
