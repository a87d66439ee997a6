"""The rules that find secrets in a line of on-screen text: one table.

Each rule is a kind and a pattern whose group ``v`` is the secret value (the
span that is redacted); the rest of a match (a label, ``Bearer``, a URL's
user) stays. Patterns are anchored on what a format fixes (a prefix, a
label, a URL's shape); where OCR confuses characters, the fixed parts take
each of them (``shapes.O0`` is ``O``, ``0`` or ``o``, ``shapes.IL1`` is
``I``, ``l``, ``1`` or ``|``; ``fixed`` writes a prefix so, its letters of
one shape in both cases too), so a misread key is still found by its prefix.

The table is ``RULES``: the formats of keys and tokens by their own shape
(``formats``, written from each format's published facts), then beside
them ``PLACED`` (values where only a secret goes), the labels' tables,
PEM's, cards' and the optional rules. ``shapes`` holds what they are
written in. A token of a fixed prefix and a body (``shapes.token``)
records its body's length: the engine puts a stray space inside a long
token now and then, and ``search`` joins the pieces after a match when
together they are the format's length (and each piece after the first
looks like a token's).
"""

from __future__ import annotations

import re

from noru.redact.formats import FORMATS
from noru.redact.shapes import Rule, canon, fixed, rule

__all__ = [
    "ALL_RULES",
    "AWS_SECRET",
    "CATEGORIES",
    "CATEGORY_OF",
    "DEFAULT_CATEGORIES",
    "DESCRIPTORS",
    "KEY_LABEL",
    "LABEL_CHARS",
    "LABEL_NAME",
    "LABEL_VALUE",
    "NOT_KEYS",
    "OPTIONAL_RULES",
    "PLACED",
    "PLACEHOLDERS",
    "RULES",
    "Rule",
    "canon",
    "fixed",
]

# What the person turns on (``redact = [...]`` in config.toml): each kind
# belongs to one category; every kind not named here is one of "secrets".
CATEGORIES = ("secrets", "cards", "emails", "phones")
DEFAULT_CATEGORIES = ("secrets", "cards")
CATEGORY_OF = {"card": "cards", "email": "emails", "phone": "phones"}

# The one table of formats (``formats``), searched in every line.
RULES: tuple[Rule, ...] = FORMATS


def _connection_part(kind: str, name: str, needle: str) -> Rule:
    """The value of a connection string's part ``name`` (a pattern) after
    its ``=``, to its ``;``, as ``kind``: the part's name first in the
    string or after a ``;``, a space or a quote."""
    return rule(
        kind,
        rf"(?:^|[;\s\"']){name}\s*=\s*(?P<quote>)(?P<v>[^;\s\"']{{8,}})",
        re.IGNORECASE,
        needles=(needle,),
    )


# Values in the places secrets stand, with no format of their own: after a
# command's option for one, in a client's files, in a connection string.
# Each is a kind and a pattern (group ``v``); ``detect`` holds the value to
# what a secret is (not a variable, a placeholder or a path: ``_held``).
_OPTION = (
    r"pass(?:word|wd)?|pwd|(?:auth-|access-|api-|bearer-|oauth-|private-|refresh-|session-)?token"
    r"|api-?key|access-key|secret(?:-key|-access-key)?|client-secret|key-secret|app-password"
)
PLACED: tuple[Rule, ...] = (
    # ``--password X``, ``--token X``, ``--api-key=X`` (``=`` also by the label rule).
    rule(
        "password",
        rf"(?:^|\s)--?(?P<name>{_OPTION})(?:=|\s+)(?P<quote>[\"']?)(?P<v>[^\s\"'`]{{4,256}})",
        re.IGNORECASE,
        needles=(" -", "--"),
    ),
    # MySQL's and MariaDB's clients take the password attached: ``-pSECRET``.
    rule(
        "password",
        r"\b(?:mysql|mariadb|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh"
        r"|mysqlpump|mariadb-dump)\b[^|;&]*?\s-p(?P<quote>[\"']?)(?P<v>[^\s\"'`]{1,128})",
        needles=("mysql", "mariadb"),
    ),
    # ``sshpass -p X``; curl's ``-u user:X`` and ``--user user:X``.
    rule(
        "password",
        r"\bsshpass\s+-p\s*(?P<quote>[\"']?)(?P<v>[^\s\"'`]{1,128})",
        needles=("sshpass",),
    ),
    rule(
        "password",
        r"\bcurl\b.*?\s(?:-u|--user)(?:=|\s*)(?P<quote>[\"']?)[^\s:\"']{1,64}:(?P<v>[^\s\"'`]{1,128})",
        needles=("curl",),
    ),
    # .netrc: ``machine host login me password X``, or ``password X`` on a
    # line of its own (not a word of prose: ``password changed.``).
    rule(
        "password",
        r"\b(?:machine|default)\b.*?\s(?:password|passwd)\s+(?P<quote>)(?P<v>[^\s\"'`]{1,256})",
        needles=("machine", "default"),
    ),
    rule(
        "password",
        r"^\s*(?:password|passwd)\s+(?P<quote>)(?P<v>(?![a-z]+[.,;:!?]?\s*$)[^\s\"'`]{1,256})\s*$",
        needles=("pass",),
    ),
    # .pgpass: ``host:port:database:user:password``.
    rule(
        "password",
        r"^\s*[^\s:#]+:(?:[0-9]{1,5}|\*):[^\s:]+:[^\s:]+:(?P<quote>)(?P<v>[^\s:]{1,256})\s*$",
        needles=(":",),
    ),
    # Connection strings: ``AccountKey=...;``, ``SharedAccessKey=...``,
    # ``Password=...;``, each to its ``;``.
    _connection_part("azure-storage-key", "AccountKey", "accountkey"),
    _connection_part("azure-sas", "SharedAccess(?:Key|Signature)", "sharedaccess"),
    rule(
        "password",
        r";\s*(?:Password|Pwd|User Password)\s*=\s*(?P<quote>)(?P<v>[^;\"']{1,128})",
        re.IGNORECASE,
        needles=(";",),
    ),
    # NuGet.Config: ``<add key="ClearTextPassword" value="..." />``.
    rule(
        "password",
        r"<add\s+key=\"(?:ClearText)?Password\"\s+value=\"(?P<quote>)(?P<v>[^\"]{1,256})\"",
        re.IGNORECASE,
        needles=("password",),
    ),
    # GitLab's session cookie, wherever it is shown.
    rule(
        "gitlab-session",
        r"\b_gitlab_session=(?P<quote>)(?P<v>[0-9a-f]{32})",
        needles=("_gitlab_session=",),
    ),
    # kubeconfig: a client's private key, in base64 (its certificate and the
    # cluster's authority, ``-certificate-data``, are public).
    rule(
        "private-key",
        r"\bclient-key-data:\s*(?P<quote>[\"']?)(?P<v>[A-Za-z0-9+/=]{16,})",
        needles=("client-key-data",),
    ),
)

# An AWS secret access key on a line that holds an access key id (``echo
# "$ID $SECRET"``, a row of accessKeys.csv): 40 of base64's characters.
AWS_SECRET = re.compile(r"(?<![A-Za-z0-9+/=])(?P<v>[A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=])", re.ASCII)

# A value after a label that names a secret: ``password = hunter2``,
# ``"api_key": "…"``, ``AWS_SECRET_ACCESS_KEY=…``, ``token: …``. A name is
# looked for first (``LABEL_NAME``); its label is the word around it, and
# its value what follows ``=``, ``:`` or ``=>`` after that word, quoted or
# not (``LABEL_VALUE``, matched where the word ends). The engine reads a
# label's ``_`` as a space now and then (``access token``): the parts of a
# name take one; and an ``O`` as ``0``, an ``S`` as ``5`` (``PA55W0RD``).
LABEL_NAME = re.compile(
    r"pa[s5]{2}(?:w[o0]rd|wd|phrase|c[o0]de)?|pwd|[s5]ecret|t[o0]ken|api[_ -]?key|apikey"
    r"|access[_ -]?key|private[_ -]?key|auth[_ -]?key|credential|(?<![A-Za-z])key(?![A-Za-z])"
    r"|(?-i:(?<=[a-z])Key)(?![a-z])",
    re.ASCII | re.IGNORECASE,
)
# A label that is only a ``key`` (``signing_key``, ``AccountKey``,
# ``client-key``): its value must look like a key (``detect``), and these
# keys are none: a database's, a map's, a public one.
KEY_LABEL = re.compile(r"key$", re.IGNORECASE)
NOT_KEYS = frozenset(
    {
        "public", "pub", "primary", "foreign", "sort", "partition", "cache", "hash", "object",
        "map", "lookup", "shortcut", "hot", "row", "column", "unique", "composite", "index",
        "routing", "shard", "order", "group", "dict", "idempotency", "translation", "i18n",
        "registry", "host", "known", "ssh", "gpg", "pgp", "signing-public", "tab", "react",
        "item", "list", "data", "field", "attribute", "meta", "config", "setting", "env",
    }
)  # fmt: skip
LABEL_CHARS = re.compile(r"[A-Za-z0-9_.-]*", re.ASCII)
# A quoted value runs to its closing quote, spaces and all (a passphrase);
# if the engine lost that quote, to the line's end. An unquoted one is a
# run of anything but spaces and quotes, the punctuation that closes code
# around it (``;``, ``,``, brackets) trimmed off its ends (``detect``).
LABEL_VALUE = re.compile(
    r"""["']?\s*(?P<sep>:=|=>|=|:)\s*(?:(?P<quote>["'])(?P<q>[^"'\n]{4,256})(?:(?P=quote)|$)"""
    r"""|(?P<v>[^\s"'`]{4,256}))""",
    re.ASCII,
)
# Values after such a label that are no secret: placeholders, types, a
# variable or a field it is read from.
PLACEHOLDERS = frozenset(
    {
        "none", "null", "nil", "true", "false", "yes", "no", "required", "optional",
        "string", "str", "bytes", "int", "bool", "boolean", "text", "secret", "password",
        "token", "redacted", "hidden", "changeme", "example", "xxxx", "xxxxxxxx",
        # code's words where a value goes (``password = await ...``), and
        # permissions (``id-token: write``)
        "await", "new", "function", "lambda", "yield", "async", "self", "this",
        "undefined", "read", "write",
    }
)  # fmt: skip
# The last part of a label that says what it is about a secret, not the
# secret: ``password_encryption``, ``token_url``, ``GetPassWarning``.
DESCRIPTORS = frozenset(
    {
        "encryption", "type", "name", "file", "path", "dir", "url", "uri", "endpoint",
        "length", "len", "min", "max", "expiry", "expires", "ttl", "timeout", "lifetime",
        "hint", "prompt", "field", "label", "policy", "algorithm", "method", "mode",
        "format", "count", "size", "header", "env", "var", "warning", "error", "exception",
    }
)  # fmt: skip

# A PEM private key: its BEGIN and END lines, and the base64 lines between
# (an OpenPGP one's too: ``... PRIVATE KEY BLOCK-----``, its armour
# headers and checksum line).
PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", re.ASCII)
PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", re.ASCII)
PEM_BODY = re.compile(r"^\s*(?P<v>=?[A-Za-z0-9+/|]{4,}={0,2})\s*$", re.ASCII)
PEM_HEADER = re.compile(r"^\s*(?:[A-Za-z-]+: .*)?$", re.ASCII)
# A PuTTY key file: ``Private-Lines: N``, then N lines of base64.
PUTTY_PRIVATE = re.compile(r"^\s*Private-Lines:\s*(?P<n>[0-9]{1,3})\s*$", re.ASCII)

# Card numbers: 13 to 19 digits, read with the confusions of digits (O for
# 0, l for 1, S for 5, B for 8), written as cards are: all together, in
# groups of four (the last shorter), or Amex's and Diners' 4-6-5 and 4-6-4;
# then held to Luhn. Any spacing at all took runs of figures in a table
# (``top``'s columns) for cards, one in ten of them passing Luhn by chance;
# so would a float's digits (``0.09999999999999995``): none next to a point.
_D = "[0-9OlISB]"
CARD = re.compile(
    rf"(?<![A-Za-z0-9])(?<!\d\.)"
    rf"(?P<v>{_D}{{13,19}}|{_D}{{4}}(?:[ -]{_D}{{4}}){{2,3}}(?:[ -]{_D}{{1,4}})?"
    rf"|{_D}{{4}}[ -]{_D}{{6}}[ -]{_D}{{4,5}})(?![A-Za-z0-9])(?!\.\d)",
    re.ASCII,
)
CARD_DIGITS = str.maketrans("OlISB", "01158")

# Off unless the person asks for them (``redact = [..., "emails", "phones"]``):
# an address or a number is personal, not a credential, and a screen of
# code or mail holds many that the agent is shown them to work on.
OPTIONAL_RULES: tuple[Rule, ...] = (
    rule(
        "email",
        r"(?<![A-Za-z0-9._%+-])(?P<v>[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}"
        r"(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24})(?![A-Za-z0-9-])",
    ),
    # A telephone number written as one: an optional +country, then groups
    # parted by spaces, dots, dashes or a bracketed area code; 9 to 15 digits
    # (held in ``search``). A date (2026-12-02) or a time is not: its groups
    # are too short.
    rule(
        "phone",
        r"(?<![\w.:/+-])(?P<v>(?:\+[0-9]{1,3}[ .-]?)?(?:\([0-9]{2,5}\)[ .-]?|[0-9]{2,5}[ .-])"
        r"[0-9]{3,4}(?:[ .-][0-9]{2,4}){1,2})(?![\w.:/-])",
    ),
)
# Every rule, in the order the searches number them (``search``, ``spaces``).
ALL_RULES: tuple[Rule, ...] = (*RULES, *OPTIONAL_RULES)
