"""Finding secrets in lines of text (``noru.redact``'s rules applied)."""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from noru.redact.rules import (
    AWS_SECRET,
    CARD,
    CARD_DIGITS,
    CATEGORY_OF,
    DEFAULT_CATEGORIES,
    DESCRIPTORS,
    KEY_LABEL,
    LABEL_CHARS,
    LABEL_NAME,
    LABEL_VALUE,
    NOT_KEYS,
    OPTIONAL_RULES,
    PEM_BEGIN,
    PEM_BODY,
    PEM_END,
    PEM_HEADER,
    PLACED,
    PLACEHOLDERS,
    PUTTY_PRIVATE,
    RULES,
    Rule,
    canon,
)

__all__ = [
    "NUMBER_DIGITS",
    "Allowed",
    "Finding",
    "Own",
    "allowed_digest",
    "category",
    "find",
    "find_lines",
]

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


@dataclass(frozen=True)
class Allowed:
    """The values the person said are no secret (``noru redact allow``),
    as the digests of their ``allowed_digest``: a finding whose value is
    one of them is not redacted."""

    digests: frozenset[str]

    def allows(self, value: str) -> bool:
        return allowed_digest(value) in self.digests


# What the engine confuses, brought to one character: an allowed value is
# still allowed when it is misread.
_SAME = str.maketrans("oil|szb", "0111528")


def allowed_digest(value: str) -> str:
    """The digest an allowed value is kept as: SHA-256 of it without spaces,
    in small letters, with the characters the engine confuses made one
    (``O`` and ``0``; ``I``, ``l``, ``1`` and ``|``; ...)."""
    canonical = "".join(value.split()).lower().translate(_SAME)
    return hashlib.sha256(b"noru-allowed\0" + canonical.encode()).hexdigest()


def category(kind: str) -> str:
    """The setting a kind is turned on by: "cards", "emails", "phones", or
    "secrets" (every other kind)."""
    return CATEGORY_OF.get(kind, "secrets")


def find(
    line: str,
    categories: Collection[str] = DEFAULT_CATEGORIES,
    own: Sequence[Own | Allowed] = (),
) -> list[Finding]:
    """What ``categories`` and the person's ``own`` patterns find in one
    line, left to right, none overlapping; none whose value the person
    allowed (``own``'s ``Allowed``)."""
    return _apart(_allowed(line, _found(line, categories, own), own))


def _found(line: str, categories: Collection[str], own: Sequence[Own | Allowed]) -> list[Finding]:
    """Every finding in ``line``, most specific first, overlaps and all."""
    folded = canon(line)
    found = _formats(line, folded, categories)
    joined = _despaced(line) if "secrets" in categories and _MIXED_RUN.search(line) else None
    if joined is not None:
        # Found across a stray space only (else the line's own search found it).
        text, at = joined
        for f in _formats(text, canon(text), categories):
            start, end = at[f.start], at[f.end - 1] + 1
            if end - start > f.end - f.start:
                found.append(Finding(start, end, f.kind))
    if "secrets" in categories:
        found += _placed(line, folded)
        if any(f.kind == "aws-key" for f in found):
            found += _aws_secrets(line)
        found += _labelled(line)
    if "cards" in categories:
        found += _cards(line)
    for mine in own:
        if isinstance(mine, Own):
            for m in mine.pattern.finditer(line):
                group = "v" if "v" in mine.pattern.groupindex else 0
                if m.end(group) > m.start(group):
                    found.append(Finding(m.start(group), m.end(group), mine.kind))
    return found


def _formats(line: str, folded: str, categories: Collection[str]) -> list[Finding]:
    """What the rules of formats (``RULES``, ``OPTIONAL_RULES``) find in
    ``line``; ``folded``: its ``canon``."""
    found = []
    always, short, grams = _plan(frozenset(categories))
    hit = {i for needle, rules in short if needle in folded for i in rules}
    for gram in grams.keys() & set(zip(folded, folded[1:], folded[2:], strict=False)):
        hit.update(i for needle, rules in grams[gram] if needle in folded for i in rules)
    for i in sorted(hit.union(always)) if hit else always:
        rule = _RULES[i]
        for m in rule.pattern.finditer(line):
            end = _joined(line, m, rule) if rule.high else m.end("v")
            if end is None:
                continue
            if rule.kind == "phone" and not 9 <= sum(c.isdigit() for c in m["v"]) <= 15:
                continue
            if rule.kind == "bearer-token" and not _credential_like(m["v"]):
                continue
            found.append(Finding(m.start("p" if rule.high else "v"), end, rule.kind))
    return found


# What a piece of a token after a stray space nearly always holds (``_GAP``
# looks for it): a line with none is not searched for spaces to take out.
_MIXED_RUN = re.compile(r"[A-Za-z][0-9]+[A-Za-z]|[0-9][A-Za-z]+[0-9]", re.ASCII)
# A space between two runs of a token's characters: the engine may have put
# it inside one token.
# (what follows it mixes letters and digits, or cases, as a token's does).
_GAP = re.compile(
    r"(?<=[A-Za-z0-9_+/=.:~|-]) (?=[A-Za-z0-9_+/=~|-]*?"
    r"(?:[A-Za-z][0-9]+[A-Za-z]|[0-9][A-Za-z]+[0-9]|[a-z][A-Z]+[a-z]+[A-Z]|[A-Z][a-z]+[A-Z]+[a-z]))",
    re.ASCII,
)
_RUN = re.compile(r"[A-Za-z0-9_+/=.:~|-]+", re.ASCII)


def _despaced(line: str) -> tuple[str, list[int]] | None:
    """``line`` with the single spaces the engine may have put inside a
    token taken out, and where each of its characters is in ``line``; None
    when there are none. A space is taken out between two runs that each
    look like a token's (a digit and a letter, or many changes of case),
    or after a run that ends as a token's prefix does (``-``, ``_``, ``.``,
    ``:``) before one that does."""
    gaps = []
    for gap in _GAP.finditer(line):
        at = gap.start()
        right = _RUN.match(line, at + 1)
        if right is None or not _piece(right[0]):
            continue
        left = line[_run_start(line, at) : at]
        if _piece(left) or (len(left) >= 3 and left[-1] in "-_.:"):
            gaps.append(at)
    if not gaps:
        return None
    text = "".join(line[a + 1 : b] for a, b in itertools.pairwise([-1, *gaps, len(line)]))
    cut = set(gaps)
    return text, [i for i in range(len(line)) if i not in cut]


def _run_start(line: str, at: int) -> int:
    while at and line[at - 1] not in " \t\"'`(<[{,;":
        at -= 1
    return at


_RULES = (*RULES, *OPTIONAL_RULES)


_Needles = list[tuple[str, list[int]]]


@functools.cache
def _plan(
    categories: frozenset[str],
) -> tuple[list[int], _Needles, dict[tuple[str, ...], _Needles]]:
    """Which of ``_RULES`` are on under ``categories``: those searched in
    every line; and the needles (with the rules a line holding one is
    searched by), the short ones alone and the others by their first three
    characters, so that a line is only looked at for the needles whose
    first three characters it holds: most lines hold few needles and are
    searched by few rules."""
    always = []
    needles: dict[str, list[int]] = {}
    for i, rule in enumerate(_RULES):
        if category(rule.kind) not in categories:
            continue
        if not rule.needles:
            always.append(i)
        for needle in rule.needles:
            needles.setdefault(needle, []).append(i)
    short = [(needle, rules) for needle, rules in needles.items() if len(needle) < 3]
    grams: dict[tuple[str, ...], _Needles] = {}
    for needle, rules in needles.items():
        if len(needle) >= 3:
            grams.setdefault(tuple(needle[:3]), []).append((needle, rules))
    return always, short, grams


def _allowed(line: str, found: list[Finding], own: Iterable[Own | Allowed]) -> list[Finding]:
    """``found`` without the values the person allowed (a value quoted or
    bracketed counts as itself)."""
    allowed = [a for a in own if isinstance(a, Allowed)]
    if not allowed or not found:
        return found
    return [
        f
        for f in found
        if not any(
            a.allows(value) or a.allows(value.strip(_AROUND))
            for value in [line[f.start : f.end]]
            for a in allowed
        )
    ]


_AROUND = "\"'`<>()[]{},;."


def _joined(line: str, m: re.Match[str], rule: Rule) -> int | None:
    """Where a token of ``rule`` ends, its pieces joined: the engine put a
    space inside it (``gho_29t3DL70EurYGs rbwc...``). A piece after the
    first is joined when the token is then still within its length and the
    piece looks like a token's (of a format of one length, any piece that
    makes it up); None when no run of pieces is the format's length. A
    format of one length of 20 or more takes two characters fewer or more:
    in a proportional font the engine drops or adds one now and then."""
    at, size = m.start("p"), -len(m["p"])
    end = None
    first = m["p"] + m["b"]
    pieces = [first, *m["rest"][1:].split(" ")] if m["rest"] else [first]
    low, high = rule.low, rule.high
    one_length = high - low <= 4
    if one_length and low >= 20:
        low, high = low - 2, high + 2  # a character the engine dropped or added
    for k, piece in enumerate(pieces):
        if k and not (one_length or _piece(piece)):
            break
        size += len(piece)
        if size > high:
            break
        at += len(piece) + (1 if k else 0)
        if size >= low:
            end = at
    if end is not None:
        while line[end - 1] in ".)]}" and end > m.end("p") + low:
            end -= 1  # a sentence's full stop after a token whose body takes dots
    return end


def _piece(text: str) -> bool:
    """Whether a piece of text after a space looks like a token's (letters
    and digits mixed, or many changes of case), not a word after it, nor a
    name with a number (``token_41``, ``x86_64``)."""
    if len(text) < 4 or not _PIECE_CHARS.fullmatch(text):
        return False
    return len(_MIXED.findall(text)) >= 2 or _case_changes(text) >= 4


_MIXED = re.compile(r"[A-Za-z](?=[0-9])|[0-9](?=[A-Za-z])", re.ASCII)
_PIECE_CHARS = re.compile(r"[A-Za-z0-9_+/=.~|)\]}-]+", re.ASCII)
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_+/=.~|-]+", re.ASCII)


def _case_changes(text: str) -> int:
    letters = [c.isupper() for c in text if c.isalpha()]
    return sum(a != b for a, b in itertools.pairwise(letters))


def find_lines(
    lines: Sequence[str],
    categories: Collection[str] = DEFAULT_CATEGORIES,
    own: Sequence[Own | Allowed] = (),
) -> list[list[Finding]]:
    """What ``find`` finds in each of ``lines`` (a capture's, top to
    bottom), and with "secrets", what only lines together show: a private
    key's body lines (between a PEM key's BEGIN and END lines, after a
    PuTTY key's ``Private-Lines``), each whole, and a CSV's values in a
    column whose header names a secret (``Secret access key``)."""
    found = [_found(line, categories, own) for line in lines]
    if "secrets" in categories:
        for i, extra in _keys(lines):
            found[i].append(extra)
        for i, extra in _columns(lines):
            found[i].append(extra)
    return [
        _apart(_allowed(line, spans, own)) if spans else []
        for line, spans in zip(lines, found, strict=True)
    ]


def _keys(lines: Sequence[str]) -> Iterable[tuple[int, Finding]]:
    """A private key's body lines: PEM's (OpenPGP's armour headers and blank
    lines inside it kept; a line shorter than 16 only as its last line or
    checksum), and the ``Private-Lines`` of a PuTTY key file."""
    inside = False
    putty = 0
    for i, line in enumerate(lines):
        if putty:
            putty -= 1
            if (body := PEM_BODY.match(line)) is not None:
                yield i, Finding(body.start("v"), body.end("v"), "private-key")
                continue
            putty = 0
        if (count := PUTTY_PRIVATE.match(line)) is not None:
            putty = int(count["n"])
            continue
        if PEM_BEGIN.search(line):
            inside = True
            continue
        if not inside:
            continue
        if PEM_END.search(line):
            inside = False
        elif (body := PEM_BODY.match(line)) is not None and (
            len(body["v"]) >= 16
            or body["v"].startswith("=")
            or (i + 1 < len(lines) and PEM_END.search(lines[i + 1]) is not None)
        ):
            yield i, Finding(body.start("v"), body.end("v"), "private-key")
        elif not PEM_HEADER.fullmatch(line):
            inside = False  # the key ended, or what follows is no key


def _columns(lines: Sequence[str]) -> Iterable[tuple[int, Finding]]:
    """Values of a CSV (or tab-separated) table in the columns whose header
    names a secret (``Password``, ``Secret access key``), in the rows under
    it with as many fields."""
    header: tuple[str, int, dict[int, str]] | None = None
    for i, line in enumerate(lines):
        sep = "," if "," in line else "\t" if "\t" in line else None
        if sep is None:
            header = None
            continue
        fields = line.split(sep)
        if header is not None and header[0] == sep and header[1] == len(fields):
            for column, kind in header[2].items():
                begin = sum(len(f) + 1 for f in fields[:column])
                stop = begin + len(fields[column])
                while begin < stop and line[begin] in " \"'":
                    begin += 1
                while stop > begin and line[stop - 1] in " \"'":
                    stop -= 1
                if _held(line[begin:stop], kind) and " " not in line[begin:stop]:
                    yield i, Finding(begin, stop, kind)
            continue
        header = _header(fields, sep)


def _header(fields: list[str], sep: str) -> tuple[str, int, dict[int, str]] | None:
    """A table's header: its separator, its count of fields and the columns
    that name a secret (and their kinds); None if it is no such header."""
    if len(fields) < 2:
        return None
    names = [f.strip().strip("\"'") for f in fields]
    if not all(re.fullmatch(r"[A-Za-z][A-Za-z0-9 _.()-]{0,39}", n) for n in names):
        return None
    columns = {}
    for column, name in enumerate(names):
        words = _parts(name)
        if LABEL_NAME.search(name) and words[-1] not in (*DESCRIPTORS, "id", "ids", "link"):
            if words[-1].endswith("key") and not _a_secrets_key(words):
                continue
            columns[column] = _label_kind(name)
    return (sep, len(fields), columns) if columns else None


def _placed(line: str, folded: str) -> list[Finding]:
    """Values where secrets stand with no format of their own: an option's
    (``--token X``), a client's file's (.netrc, .pgpass), a connection
    string's, a kubeconfig's private key."""
    found = []
    for rule in PLACED:
        if rule.needles and not any(map(folded.__contains__, rule.needles)):
            continue
        for m in rule.pattern.finditer(line):
            begin, stop = m.span("v")
            if m["quote"]:
                close = line.find(m["quote"], begin)
                stop = close if close > begin else len(line)
            else:
                begin, stop = _trimmed(line, begin, stop)
            value = line[begin:stop].rstrip()
            stop = begin + len(value)
            name = m["name"] if "name" in rule.pattern.groupindex else None
            kind = _label_kind(name) if name else rule.kind
            if _held(value, kind, option=name is not None):
                found.append(Finding(begin, stop, kind))
    return found


def _held(value: str, kind: str, *, option: bool = False) -> bool:
    """Whether a value in a secret's place is one: not a placeholder, a
    variable, a path or an option; a password at least 4 long, a token's
    or a key's 8."""
    if not value or value.lower().strip("*.") in PLACEHOLDERS or _reference(value):
        return False
    if value[0] in "-<[{(/~" or value.startswith(("./", "../", "file:", "@")):
        return False  # the next option, a placeholder (``<token>``), a path, a file
    if option and ("=" in value.rstrip("=") or re.fullmatch(r"[A-Z][A-Z0-9_]*", value)):
        return False  # ``--secret id=x,src=f``; ``--token TOKEN`` in a command's help
    if kind == "password":
        return len(value) >= 4  # ``password X`` in a doc: a placeholder
    if value.isdigit() and len(value) <= NUMBER_DIGITS:
        return False
    return len(value) >= MIN_TOKEN


def _aws_secrets(line: str) -> list[Finding]:
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


# A label's name, then ``=`` or ``:`` within a few words: a line without
# one has no labelled value (most lines of a log or of code have none).
_LABEL_AND_VALUE = re.compile(
    r"(?:pass|pwd|secret|token|key|credential)[A-Za-z0-9_. -]{0,40}?[\"']?\s*(?::|=)",
    re.ASCII | re.IGNORECASE,
)


def _labelled(line: str) -> list[Finding]:
    if _LABEL_AND_VALUE.search(line) is None:
        return []
    found = []
    after = 0  # where the last label's value ended: a name inside it is no label
    for name in LABEL_NAME.finditer(line):
        if name.start() < after or _inside_a_word(line, name.end()):
            continue
        end = LABEL_CHARS.match(line, name.end()).end()  # type: ignore[union-attr]
        if line[end : end + 1] == " ":
            end = _label_end(line, end)
        m = LABEL_VALUE.match(line, end)
        if m is None:
            continue
        start = _label_start(line, name.start())
        label = line[start:end]
        words = _parts(label)
        last = words[-1]  # its last word
        if last in DESCRIPTORS:
            continue  # ``password_encryption``, ``token_url``: about a secret, not one
        key_only = KEY_LABEL.fullmatch(name[0]) is not None
        if key_only and not _a_secrets_key(words):
            continue  # ``primary_key``, ``sort key``, ``key_id``: no secret's
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
        if key_only and not _keylike(value.strip()):
            continue  # ``key: name``, ``key = "Enter"``: a key of a map or a keyboard
        if kind != "password" and value.isdigit() and len(value) <= NUMBER_DIGITS:
            continue  # a count or a size (``max_tokens: 4096``); a PIN is a password's
        if kind in ("token", "api-key") and len(value) < MIN_TOKEN:
            continue  # ``SESSION_TOKEN = "noru"``: a name; tokens and keys are longer
        if m["q"] is None:
            stop = _pieces_after(line, value, stop)
        found.append(Finding(begin, stop, kind))
        after = stop
    return found


def _label_start(line: str, start: int) -> int:
    """Where a label that holds a name at ``start`` begins: the word around
    the name, and the engine's spaces for its ``_`` taken: words before it
    in capitals (``AWS SECRET ACCESS KEY=``) or inside the quotes of a key
    (``"access token":``), at most three."""
    start = _word_start(line, start)
    for _ in range(3):
        if start < 2 or line[start - 1] != " ":
            break
        begin = _word_start(line, start - 1)
        word = line[begin : start - 1]
        if not word:
            break
        # inside quotes that open before it, with words and spaces between
        opened = begin
        while opened and (line[opened - 1].isalnum() or line[opened - 1] in " _.-"):
            opened -= 1
        if not (word.isupper() or line[opened - 1 : opened] in ("'", '"')):
            break
        start = begin
    return start


def _word_start(line: str, at: int) -> int:
    while at and (line[at - 1].isalnum() or line[at - 1] in "_.-"):
        at -= 1
    return at


def _label_end(line: str, end: int) -> int:
    """Where a label ends: its word, and up to two words after it in capitals
    when a ``=`` or ``:`` follows them (``ACCESS KEY ID=``)."""
    m = re.match(r"(?: [A-Z][A-Z0-9_]*){1,2}(?=\s*[=:])", line[end:])
    return end + m.end() if m else end


def _a_secrets_key(words: list[str]) -> bool:
    """Whether a label that is a ``key`` names a secret's: not a database's,
    a map's, a keyboard's or a public one, nor its id or name."""
    keys = [i for i, word in enumerate(words) if "key" in word]
    if not keys:
        return False
    at = keys[-1]
    before = words[at - 1] if at else words[at][: words[at].index("key")]
    after = words[at + 1 :]
    if before in NOT_KEYS or any(w in NOT_KEYS for w in words[:at]):
        return False
    return not any(w in ("id", "ids", "name", "names", "fingerprint", "file") for w in after)


def _keylike(value: str) -> bool:
    """Whether a value looks like a key or a token drawn at random, not a
    word, a name of code, an id or a path: 16 characters or more of a
    token's alphabet, mixed (a digit and a letter, or many changes of case;
    hexadecimal from 32 on), and as varied as random text is."""
    if len(value) < 16 or not _TOKEN_CHARS.fullmatch(value) or _UUID.fullmatch(value):
        return False
    if re.fullmatch(r"[0-9a-fA-F]+", value):
        return len(value) >= 32
    parts = [p for p in re.split(r"[_.\-/]+", value) if p]
    if all((p.isalpha() and _case_changes(p) <= 1) or (p.isdigit() and len(p) <= 4) for p in parts):
        return False  # ``release-candidate-v2``, ``my_app.settings``: words and numbers
    mixed = (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)) or (
        _case_changes(value) >= 4
    )
    return mixed and _entropy(value) >= 3.0


_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


def _entropy(text: str) -> float:
    """Shannon entropy of ``text``'s characters, in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _pieces_after(line: str, value: str, stop: int) -> int:
    """Where an unquoted labelled value ends, a token's pieces after stray
    spaces taken (``access_token=vRZ2FG-rzSMi bQ9...``): each piece must
    look like a token's, as must the value."""
    if len(value) < MIN_TOKEN or not _piece(value):
        return stop
    for _ in range(2):
        m = re.match(r" ([^\s\"'`]+)", line[stop:])
        if m is None or not _piece(_trimmed_text(m[1])):
            break
        stop = _trimmed(line, stop + 1, stop + m.end())[1]
    return stop


def _trimmed_text(text: str) -> str:
    begin, stop = _trimmed(text, 0, len(text))
    return text[begin:stop]


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
    # A dotted name (a field, a module) is code, not a value; a part of 12
    # or more with a digit in it is a token's (Vault's ``s.``, kubeadm's).
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", value) is None:
        return False
    return not any(len(p) >= 12 and any(c.isdigit() for c in p) for p in value.split("."))


def _label_kind(label: str) -> str:
    name = label.lower()
    if "secret" in name and ("aws" in name or ("access" in name and "key" in name)):
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
