"""Secrets on screen found with their spans and kinds (noru.redact): planted
(generated) secrets in lines as screens show them, the misreads OCR makes
in them, ordinary text beside them, and a real terminal read by the real
engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from noru.capture import Capturer
from noru.ocr.tesseract import TesseractEngine
from noru.redact import Finding, find, find_lines
from tests import real_terminals
from tests.parts import require
from tests.redaction_cases import ORDINARY, planted
from tests.xserver import XServer

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("line", "value", "kind"), planted(), ids=[k for _, _, k in planted()])
def test_each_kind_of_secret_is_found_as_its_value_alone(line: str, value: str, kind: str) -> None:
    found = find(line)
    start = line.index(value)
    assert found == [Finding(start, start + len(value), kind)], found


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("AWS_ACCESS_KEY_ID=AK1A4QXZ7PLM2RT9WQ3E", "AK1A4QXZ7PLM2RT9WQ3E"),  # I read 1
        ("key AKlA4QXZ7PLM2RT9WQ3E in use", "AKlA4QXZ7PLM2RT9WQ3E"),  # I read l
        ("aws ASIAY0Q7OPLM2RT9WQ3E", "ASIAY0Q7OPLM2RT9WQ3E"),  # O and 0 in its body
        ("maps A1zaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "A1zaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
        (
            "SLACK=x0xb-12345678901-AbCdEfGhIjKlMnOpQrStUvWx",
            "x0xb-12345678901-AbCdEfGhIjKlMnOpQrStUvWx",
        ),
        ("pay 4111 1111 1111 1lll now", "4111 1111 1111 1lll"),  # 1 read l
        ("card 5555 5555 5555 4444", "5555 5555 5555 4444"),
    ],
)
def test_a_key_misread_as_ocr_misreads_it_is_still_found(line: str, value: str) -> None:
    spans = [line[f.start : f.end] for f in find(line)]
    assert spans == [value]


def test_ordinary_code_logs_and_listings_are_no_secrets() -> None:
    assert [find(line) for line in ORDINARY] == [[] for _ in ORDINARY]


def test_a_card_number_that_fails_luhn_is_no_card() -> None:
    assert find("order 4111 1111 1111 1112 paid") == []
    assert find("0000 0000 0000 0000") == []


def test_a_private_keys_body_is_found_line_by_line_between_its_begin_and_end() -> None:
    body = [
        "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MmSz1T6OW8mcQ1k9",
        "YXXn3Jz5tjdbUNWPyLw0X8T2hXHNJDrwqZkYMRfT8sSpQnDg1JsVqQ4Tc8jZ7ZA2",
    ]
    lines = [
        "$ cat deploy.pem",
        "-----BEGIN RSA PRIVATE KEY-----",
        *body,
        "-----END RSA PRIVATE KEY-----",
        "$ ls",
        "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn",  # after the key: a word, not its body
    ]
    found = find_lines(lines)
    assert found[2] == [Finding(0, len(body[0]), "private-key")]
    assert found[3] == [Finding(0, len(body[1]), "private-key")]
    assert found[0] == found[1] == found[4] == found[5] == found[6] == []


def test_the_projects_own_code_and_docs_are_nearly_free_of_findings() -> None:
    """Code names its secrets (``token: str``, ``password = getpass()``)
    without holding one: findings stay under the goal of 0.5 % of tokens."""
    files = [*sorted((ROOT / "src").rglob("*.py")), *sorted((ROOT / "docs").glob("*.md"))]
    tokens = findings = 0
    for path in files:
        lines = path.read_text().splitlines()
        tokens += sum(len(line.split()) for line in lines)
        findings += sum(len(found) for found in find_lines(lines))
    assert tokens > 10_000
    assert findings <= 0.005 * tokens, findings


# --- a real terminal, read by the real engine ----------------------------------


def test_secrets_a_real_terminal_shows_are_found_in_what_the_engine_reads(
    desktop: XServer, engine: TesseractEngine
) -> None:
    problem = real_terminals.missing("xterm")
    require(problem is None, problem or "")
    cases = planted(seed=11)
    lines = ["$ cat .env", *[line for line, _, _ in cases], *ORDINARY[:6]]
    with (
        real_terminals.open_xterm(
            desktop, lines, columns=160, rows=len(lines) + 2, font="DejaVu Sans Mono", size=9,
            x=60, y=60,
        ) as client,
        Capturer(display=desktop.display) as capturer,
    ):  # fmt: skip
        client.bring_under_pointer()
        (grab,) = capturer.grab_window("pointer")
    read = [line.text for line in engine.recognise(grab.image).lines]
    found = find_lines(read)
    # What is left once each span is blanked: no 8 characters in a row of
    # any planted secret, as drawn (the engine may misread one of a key's
    # characters: what it read is found by the key's format all the same).
    left = "\n".join(_blanked(text, spans) for text, spans in zip(read, found, strict=True))
    shown = [
        (value, kind)
        for _, value, kind in cases
        if any(value[i : i + 8] in left for i in range(len(value) - 7))
    ]
    assert not shown, (shown, left)
    kinds = {f.kind for spans in found for f in spans}
    assert kinds >= {kind for _, _, kind in cases}, kinds
    # The ordinary lines read are no secrets.
    plain = {line.strip() for line in ORDINARY}
    ordinary = [spans for text, spans in zip(read, found, strict=True) if text.strip() in plain]
    assert len(ordinary) >= 5 and not any(ordinary)


def _blanked(text: str, spans: list[Finding]) -> str:
    for span in reversed(spans):
        text = text[: span.start] + "#" * (span.end - span.start) + text[span.end :]
    return text


def test_a_number_after_a_tokens_label_is_a_count_but_after_a_password_a_pin() -> None:
    assert find('{"tokens": 57230, "status": 1}') == []
    assert find("max_tokens: 4096") == []
    assert [f.kind for f in find("password: 482913")] == ["password"]
    assert [f.kind for f in find("api_key=12345678901234567890")] == ["api-key"]


# Lines real programs print that name secrets without holding one, each a
# false positive once (bench/redact_ordinary.py: npm's token.js, Python's
# getpass.py and shlex.py, PostgreSQL's postgresql.conf.sample, `man curl`,
# GitHub Actions, Python's _pydecimal.py and colorsys.py).
NAMED_NOT_HELD = [
    "def unix_getpass(prompt='Password: ', stream=None):",
    "      GetPassWarning: When we were unable to turn echo off on the input.",
    "      password = await readUserInfo.password()",
    "      tokenData.description = tokenDescription",
    "      tokenData.packages_and_scopes_permission = packagesAndScopesPermission",
    "      tokenData.orgs = orgs",
    "        getpass = fallback_getpass",
    "                self.token = nextchar",
    "    userid = passwd = acct = ''",
    "#password_encryption = scram-sha-256    # scram-sha-256 or md5",
    "    ocr, ax, note, tokenize = 'unicode61 remove_diacritics 2'",
    "  id-token: write",
    'SESSION_TOKEN = "noru"',
    'raise TypeError("pwd: expected bytes, got %s" % type(pwd).__name__)',
    "Tells curl to use HTTP Basic authentication when communicating with the given proxy.",
    "curl --proxy-basic --proxy-user user:passwd -x proxy https://example.com",
    "This needs a basic understanding of git. Token authentication is enabled by default.",
    # A word of prose after the scheme's name, hyphenated or capitalised, a
    # sentence's full stop after it (a Debian changelog's, Unicode's plane)
    "    + Install only the basic sub-variants. Do not install the 0, 1, l, Dollar,",
    "  characters outside the Basic Multilingual Plane are two code units",
    "  1.00 % 0.1 gives 0.09999999999999995 instead",
    "r = y + 0.9468822170900693*i + 0.6235565819861433*q",
    # `env`'s working directories, a token's endpoint, a test named after a
    # token (the terminal corpus's ordinary screens, read by helper benches)
    "PWD=/home/me/src/kestrel",
    "OLDPWD=/usr/lib/jvm/java-17-openjdk-amd64",
    '  "token_uri": "https://oauth2.googleapis.com/token",',
    '  "token": "https://example.com/oauth/callback",',
    "tests/test_token.py::test_refresh_expired PASSED",
    # Words of prose joined by hyphens after a label's colon: a commit
    # subject's, a doc's, YAML's.
    "8c1f2e0 redact: secrets-left: held-out Bedrock keys in browsers",
    "  token: read-only",
    "password: non-empty string of at least 8 characters",
    "Secret: Up-to-date rotation schedule",
    "api_key: well-known",
    # Words joined by slashes or dots after ``Bearer`` are prose, a path or
    # a file's name, not a credential (a slash is no ``J`` of a token there).
    "  // NOLINT(readability/style) Bearer readability/style",
    "Authorization: Bearer package.json",
    "the Bearer username/password pairs are checked first",
    "Token /usr/share/doc/curl/README.md",
]


@pytest.mark.parametrize("line", NAMED_NOT_HELD)
def test_code_and_prose_that_name_a_secret_without_holding_one_are_no_secret(line: str) -> None:
    assert find(line) == []


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("PGPASSWORD=hunter2hunter2 psql -h db", "hunter2hunter2"),
        ("PASSWORD=mypassword", "mypassword"),  # a .env line: no spaces, a value
        ("passcode: 482913", "482913"),
        ("MYSQL_PWD=Zx81kQ2 mysql -u root", "Zx81kQ2"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
        ('curl --oauth2-bearer "mF_9.B5f-4.1JqM" https://example.com', "mF_9.B5f-4.1JqM"),
        ("pay 4111 1111 1111 1111.", "4111 1111 1111 1111"),
        ("this.password = hunter2hunter2", "hunter2hunter2"),
        ("client_secret: Xk9f2LmQ7pR4", "Xk9f2LmQ7pR4"),
        ("'password': 'hunter2x'", "hunter2x"),
        # After a colon, a passphrase of long words and a hyphenated value
        # that is no word are values; after ``=``, two words are one too.
        ("password: correct-horse-battery-staple", "correct-horse-battery-staple"),
        ("token: xkcd-qwrtzv", "xkcd-qwrtzv"),
        ("password=blue-monkey", "blue-monkey"),
        ("secret: Zx81-kQ2pLm", "Zx81-kQ2pLm"),
        # A value starting with `/` that is no path of words (base64's alphabet).
        ("AWS_SECRET_ACCESS_KEY=/x9Kq2LmZ7pR4vT8wY3bN6cF1hJ5dG0sA/QeU2iOz", None),
        ("DB_PWD=/srv/Xk9f2LmQ7pR4zT81", "/srv/Xk9f2LmQ7pR4zT81"),
    ],
)
def test_secrets_beside_those_lines_shapes_are_still_found(line: str, value: str | None) -> None:
    value = value or line.split("=", 1)[1]
    assert [line[f.start : f.end] for f in find(line)] == [value]


def test_a_url_holding_a_password_after_a_token_s_label_is_still_redacted() -> None:
    line = "token: https://deploy:Zx81kQ2pLm@git.example.com/x.git"
    found = [line[f.start : f.end] for f in find(line)]
    assert found and all("Zx81kQ2pLm" in value or value in "Zx81kQ2pLm" for value in found)
    assert any("Zx81kQ2pLm" in value for value in found)
