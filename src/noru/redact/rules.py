"""The rules that find secrets in a line of on-screen text: one table.

Each rule is a kind and a pattern whose group ``v`` is the secret value (the
span that is redacted); the rest of a match (a label, ``Bearer``, a URL's
user) stays. Patterns are anchored on what a format fixes (a prefix, a
label, a URL's shape); where OCR confuses characters, the fixed parts take
each of them (``_O`` is ``O`` or ``0``, ``_I`` is ``I``, ``l``, ``1`` or
``|``), so a misread key is still found by its prefix. Formats from the
vendors' documentation of their tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CATEGORIES",
    "CATEGORY_OF",
    "DEFAULT_CATEGORIES",
    "DESCRIPTORS",
    "LABEL_CHARS",
    "LABEL_NAME",
    "LABEL_VALUE",
    "OPTIONAL_RULES",
    "PLACEHOLDERS",
    "RULES",
    "Rule",
]

# What the person turns on (``redact = [...]`` in config.toml): each kind
# belongs to one category; every kind not named here is one of "secrets".
CATEGORIES = ("secrets", "cards", "emails", "phones")
DEFAULT_CATEGORIES = ("secrets", "cards")
CATEGORY_OF = {"card": "cards", "email": "emails", "phone": "phones"}

# The characters the engine confuses, in the fixed parts of a format.
_O = "[O0o]"
_I = "[Il1|]"
_S = "[S5s]"
_A = "[A4]"
_B = "[B8]"
_Z = "[Z2]"
# A token's body: what a token holds, and what OCR reads it as.
_BODY = "[A-Za-z0-9_|-]"


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]


def _rule(kind: str, pattern: str, flags: int = 0) -> Rule:
    return Rule(kind, re.compile(pattern, re.ASCII | flags))


RULES: tuple[Rule, ...] = (
    # AWS access key ids: AKIA (long-term), ASIA (temporary) and the other
    # unique-id prefixes, then 16 of [A-Z2-7] (read as [A-Z0-9], misreads).
    _rule(
        "aws-key",
        rf"(?<![A-Za-z0-9])(?P<v>(?:{_A}[K][I1l|]{_A}|{_A}{_S}[I1l|]{_A}|{_A}GP{_A}|{_A}{_I}D{_A}"
        rf"|{_A}R{_O}{_A}|{_A}{_I}P{_A}|{_A}NP{_A}|{_A}NV{_A})[A-Z0-9Il|]{{16}})(?![A-Za-z0-9])",
    ),
    _rule("github-token", rf"(?P<v>\bgh[pousr]_{_BODY}{{30,255}})"),
    _rule("github-token", rf"(?P<v>\bgithub_pat_{_BODY}{{22,255}})"),
    _rule("gitlab-token", rf"(?P<v>\bg{_I}pat-{_BODY}{{20,}})"),
    _rule("slack-token", rf"(?P<v>\bx{_O}x[abposre]-[A-Za-z0-9-]{{10,}})"),
    _rule(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows)/(?P<v>[A-Za-z0-9/_-]{20,})",
    ),
    _rule("stripe-key", rf"(?P<v>\b[sr]k_{_I}ive_[A-Za-z0-9]{{16,}})"),
    _rule("stripe-key", r"(?P<v>\b[sr]k_test_[A-Za-z0-9]{16,})"),
    _rule("anthropic-key", rf"(?P<v>\bsk-ant-{_BODY}{{20,}})"),
    _rule("openai-key", rf"(?P<v>\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?{_BODY}{{20,}})"),
    _rule("google-api-key", rf"(?P<v>\b{_A}[I1l|]za[0-9A-Za-z_|-]{{35}})"),
    _rule("npm-token", r"(?P<v>\bnpm_[A-Za-z0-9]{36})"),
    # This install's own token for `noru mcp --http` (noru.httptoken), as
    # `noru token show` prints it: an agent's look at the screen never gets it.
    _rule("noru-token", rf"(?P<v>\bn{_O}ru_{_BODY}{{40,}})"),
    # A JWT: header and payload start with ``eyJ`` (base64 of ``{"``). Read
    # in a proportional font, the engine puts a space inside a long token
    # now and then (measured on Firefox: ``...ODEiLCAib xfD7 boCUP...``): its
    # parts take single spaces, its signature up to two more pieces.
    _rule(
        "jwt",
        r"(?P<v>\bey[JI](?: ?[A-Za-z0-9_-]){8,} ?\. ?ey[JI](?: ?[A-Za-z0-9_-]){8,} ?\. ?"
        r"[A-Za-z0-9_-]{2,}(?: [A-Za-z0-9_-]{6,}){0,2})",
    ),
    # A URL's password: scheme://user:PASSWORD@host (a space the engine put
    # before the ``@`` taken).
    _rule(
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@]{1,64}:(?P<v>[^\s@/]{1,128}) ?@[^\s@]",
    ),
    # Authorization headers and the like: the credential after its scheme,
    # quoted or not (``--oauth2-bearer "..."``), not an option (``--proxy-
    # basic --proxy-user``); it must look like one (``detect``: a digit, both
    # cases or a token's punctuation), not a word (``Basic authentication``).
    _rule(
        "bearer-token",
        r"\b(?:Bearer|Basic|Token)\s+[\"']?(?P<v>(?!-)[A-Za-z0-9._~+/=|-]{12,})",
        re.IGNORECASE,
    ),
)

# A value after a label that names a secret: ``password = hunter2``,
# ``"api_key": "…"``, ``AWS_SECRET_ACCESS_KEY=…``, ``token: …``. A name is
# looked for first (``LABEL_NAME``); its label is the word around it, and
# its value what follows ``=``, ``:`` or ``=>`` after that word, quoted or
# not (``LABEL_VALUE``, matched where the word ends).
LABEL_NAME = re.compile(
    r"pass(?:word|wd|phrase|code)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|auth[_-]?key|credential",
    re.ASCII | re.IGNORECASE,
)
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

# A PEM private key: its BEGIN and END lines, and the base64 lines between.
PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----", re.ASCII)
PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----", re.ASCII)
PEM_BODY = re.compile(r"^\s*(?P<v>[A-Za-z0-9+/|]{16,}={0,2})\s*$", re.ASCII)

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
    _rule(
        "email",
        r"(?<![A-Za-z0-9._%+-])(?P<v>[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}"
        r"(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24})(?![A-Za-z0-9-])",
    ),
    # A telephone number written as one: an optional +country, then groups
    # parted by spaces, dots, dashes or a bracketed area code; 9 to 15 digits
    # (held in ``detect``). A date (2026-12-02) or a time is not: its groups
    # are too short.
    _rule(
        "phone",
        r"(?<![\w.:/+-])(?P<v>(?:\+[0-9]{1,3}[ .-]?)?(?:\([0-9]{2,5}\)[ .-]?|[0-9]{2,5}[ .-])"
        r"[0-9]{3,4}(?:[ .-][0-9]{2,4}){1,2})(?![\w.:/-])",
    ),
)
