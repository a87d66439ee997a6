"""Secrets found by where they stand, not by a format of their own: after a
label that names one (``password = ...``, ``"access token": ...``), in a
command's options and a client's files (``rules.PLACED``), beside an AWS
access key id, in a CSV's column under a header that names one, and a
private key's body lines (``unlabelled``: keys beside what names them with
no ``=`` or ``:``). ``detect`` runs these beside the formats.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from noru.redact.rules import (
    DEFAULT_CATEGORIES,
    DESCRIPTORS,
    KEY_LABEL,
    LABEL_CHARS,
    LABEL_NAME,
    LABEL_VALUE,
    NOT_KEYS,
    PEM_BEGIN,
    PEM_BODY,
    PEM_END,
    PEM_HEADER,
    PLACED,
    PLACEHOLDERS,
    PUTTY_PRIVATE,
)
from noru.redact.search import placed_searched
from noru.redact.shapes import (
    TOKEN_CHARS,
    Finding,
    case_changes,
    entropy,
    label_words,
    piece_like,
    word_like,
)

__all__ = [
    "MIN_TOKEN",
    "NUMBER_DIGITS",
    "a_secrets_key",
    "columns",
    "key_bodies",
    "keylike",
    "label_kind",
    "labelled",
    "placed",
]


# A labelled value of only this many digits or fewer is a number, not a
# token or a key (``"tokens": 57230``), but after a password's label.
NUMBER_DIGITS = 10


# A token's or a key's labelled value is at least this long (a password may
# be as short as 4).
MIN_TOKEN = 8


def key_bodies(lines: Sequence[str]) -> Iterable[tuple[int, Finding]]:
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


def columns(lines: Sequence[str]) -> Iterable[tuple[int, Finding]]:
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
        words = label_words(name)
        if LABEL_NAME.search(name) and words[-1] not in (*DESCRIPTORS, "id", "ids", "link"):
            if words[-1].endswith("key") and not a_secrets_key(words):
                continue
            columns[column] = label_kind(name)
    return (sep, len(fields), columns) if columns else None


def placed(
    line: str, folded: str, categories: Collection[str] = DEFAULT_CATEGORIES
) -> list[Finding]:
    """Values where secrets stand with no format of their own: an option's
    (``--token X``), a client's file's (.netrc, .pgpass), a connection
    string's, a kubeconfig's private key. ``folded``: the line's ``canon``,
    looked in for the rules' needles with the formats' (``categories``:
    those on, as given to them)."""
    found = []
    for k in placed_searched(folded, categories):
        rule = PLACED[k]
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
            kind = label_kind(name) if name else rule.kind
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


# A label's name, then ``=`` or ``:`` within a few words: a line without
# one has no labelled value (most lines of a log or of code have none).
_LABEL_AND_VALUE = re.compile(
    r"(?:pa[s5]{2}|pwd|secret|5ecret|t[o0]ken|key|credential)"
    r"[A-Za-z0-9_. -]{0,40}?[\"']?\s*(?::|=)",
    re.ASCII,
)


def _has_label_and_value(line: str) -> bool:
    """Whether ``line`` holds ``_LABEL_AND_VALUE`` in any case: searched in
    small letters without ``re.IGNORECASE``, twice as fast, where small
    letters keep the line's length (ASCII); up to its last ``:`` or ``=``,
    where a match ends."""
    end = max(line.rfind(":"), line.rfind("=")) + 1
    if not end:
        return False
    if line.isascii():
        return _LABEL_AND_VALUE.search(line.lower(), 0, end) is not None
    return _LABEL_ANY_CASE.search(line, 0, end) is not None


_LABEL_ANY_CASE = re.compile(_LABEL_AND_VALUE.pattern, re.ASCII | re.IGNORECASE)


def labelled(line: str) -> list[Finding]:
    if not _has_label_and_value(line):
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
        words = label_words(label)
        last = words[-1]  # its last word
        if last in DESCRIPTORS:
            continue  # ``password_encryption``, ``token_url``: about a secret, not one
        key_only = KEY_LABEL.fullmatch(name[0]) is not None
        if key_only and not a_secrets_key(words):
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
        if _names_a_secret(value):
            continue  # ``_authToken=MYTOKEN1``, ``YOUR_API_KEY``: a doc's placeholder
        if value.startswith(":") or _a_place(value):
            continue  # ``test_token.py::test_x``; ``PWD=/home/me``: where, not a secret
        if m["q"] is None and (any(c in value for c in "([{") or _code(line, m, label, last, stop)):
            continue  # a call, a type, an index, a name of the code: not a value
        if m["q"] is None and m["sep"] == ":" and _compound_word(value):
            continue  # ``secrets-left: held-out``, ``token: read-only``: a word of prose
        kind = label_kind(label)
        if key_only and not keylike(value.strip()):
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


def a_secrets_key(words: list[str]) -> bool:
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


def keylike(value: str) -> bool:
    """Whether a value looks like a key or a token drawn at random, not a
    word, a name of code, an id or a path: 16 characters or more of a
    token's alphabet, mixed (a digit and a letter, or many changes of case;
    hexadecimal from 32 on), and as varied as random text is."""
    if len(value) < 16 or not TOKEN_CHARS.fullmatch(value) or _UUID.fullmatch(value):
        return False
    if re.fullmatch(r"[0-9a-fA-F]+", value):
        return len(value) >= 32
    parts = [p for p in re.split(r"[_.\-/]+", value) if p]
    if all((p.isalpha() and case_changes(p) <= 1) or (p.isdigit() and len(p) <= 4) for p in parts):
        return False  # ``release-candidate-v2``, ``my_app.settings``: words and numbers
    mixed = (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)) or (
        case_changes(value) >= 4
    )
    return mixed and entropy(value) >= 3.0


_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


def _pieces_after(line: str, value: str, stop: int) -> int:
    """Where an unquoted labelled value ends, a token's pieces after stray
    spaces taken (``access_token=vRZ2FG-rzSMi bQ9...``): each piece must
    look like a token's, as must the value."""
    if len(value) < MIN_TOKEN or not piece_like(value):
        return stop
    for _ in range(2):
        m = re.match(r" ([^\s\"'`]+)", line[stop:])
        if m is None or not piece_like(_trimmed_text(m[1])):
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


def _trimmed(line: str, begin: int, stop: int) -> tuple[int, int]:
    """An unquoted value's span without the code's punctuation around it:
    ``x;`` and ``x,`` and ``x)``, and a value in angle brackets."""
    while stop > begin and line[stop - 1] in ",;)]}>":
        stop -= 1
    while begin < stop and line[begin] in "<":
        begin += 1
    return begin, stop


def _compound_word(value: str) -> bool:
    """Whether an unquoted value after a label's ``:`` (prose's, a commit
    subject's; after an assignment's ``=`` it is taken as a value) is a
    word made of words joined by hyphens (``held-out``, ``read-only``,
    ``non-empty``, ``up-to-date``), not a secret: two words of small
    letters (the first may be capitalised), or more with only short ones
    between them (``to``, ``of``, ``the``). A passphrase of long words
    (``correct-horse-battery-staple``) is still one, as is anything with a
    digit, a capital inside or a run of letters no word holds."""
    parts = value.split("-")
    if len(parts) < 2 or not value[1:].replace("-", "").islower():
        return False
    if not all(word_like(part) for part in parts):
        return False
    return len(parts) == 2 or all(len(part) <= 3 for part in parts[1:-1])


def _a_place(value: str) -> bool:
    """Whether a labelled value says where something is, not a secret: a path
    of words (the shell's ``PWD=/home/me/src``, ``OLDPWD``, a token's
    ``/run/secrets/db``) or a URL holding no credentials (a service
    account's ``"token_uri": "https://oauth2.googleapis.com/token"``). A key
    drawn at random that starts with ``/`` (base64's alphabet) has parts no
    path has: long, mixed runs."""
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s@]+", value):
        return True
    if re.fullmatch(r"~?(?:/[A-Za-z0-9._-]+)+/?", value) is None:
        return False
    parts = [p for p in re.split(r"[/_.\-]+", value) if p and p != "~"]
    return all(
        (p.isalpha() and case_changes(p) <= 1) or p.isdigit() or (p.isalnum() and len(p) <= 8)
        for p in parts
    )


# A name in capitals (words joined by ``_``, a number of one or two digits
# after) that holds a secret's name: what a doc writes where the secret
# goes (``MYTOKEN1``, ``YOUR_API_KEY``, ``NPM_TOKEN_HERE``). A token's
# random capitals have digits inside, and seldom spell a secret's name.
_NAMES_A_SECRET = re.compile(r"[A-Z][A-Z_]*[0-9]{0,2}")
_SECRET_NAME = re.compile(r"TOKEN|KEY|SECRET|PASS|PWD|CREDENTIAL")


def _names_a_secret(value: str) -> bool:
    """Whether a labelled value is a placeholder that names the secret in
    capitals, not the secret."""
    return _NAMES_A_SECRET.fullmatch(value) is not None and _SECRET_NAME.search(value) is not None


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


def label_kind(label: str) -> str:
    name = label.lower().replace("0", "o").replace("5", "s")
    if "secret" in name and ("aws" in name or ("access" in name and "key" in name)):
        return "aws-secret"
    if "pass" in name or "pwd" in name:
        return "password"
    if "token" in name:
        return "token"
    if "key" in name:
        return "api-key"
    return "secret"
