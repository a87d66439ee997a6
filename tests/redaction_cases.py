"""Planted secrets for the redaction tests: generated (seeded), never real
ones, each in a line as a screen shows it, with its kind."""

from __future__ import annotations

import base64
import json
import random
import string

ALNUM = string.ascii_letters + string.digits
BASE32 = string.ascii_uppercase + "234567"


def pick(rng: random.Random, alphabet: str, count: int) -> str:
    """``count`` characters of ``alphabet`` drawn from ``rng``."""
    return "".join(rng.choice(alphabet) for _ in range(count))


def luhn_card(rng: random.Random, prefix: str = "4", length: int = 16) -> str:
    """A card number that passes Luhn, as four groups."""
    digits = prefix + pick(rng, string.digits, length - len(prefix) - 1)
    for check in string.digits:
        candidate = digits + check
        total = 0
        for i, char in enumerate(reversed(candidate)):
            value = int(char)
            total += (value * 2 - 9 if value > 4 else value * 2) if i % 2 else value
        if total % 10 == 0:
            return " ".join(candidate[i : i + 4] for i in range(0, length, 4))
    raise AssertionError("unreachable: one check digit always fits")


def _jwt(rng: random.Random) -> str:
    def part(value: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    header = part({"alg": "HS256", "typ": "JWT"})
    payload = part({"sub": pick(rng, string.digits, 8), "name": "ledger-bot"})
    return f"{header}.{payload}.{pick(rng, ALNUM + '-_', 43)}"


def leaked(text: str, secret: str) -> str | None:
    """The first 8 consecutive characters of ``secret`` (all of a shorter one)
    that ``text`` holds, spaces aside; None when none: no part of it left."""
    bare, flat = secret.replace(" ", ""), text.replace(" ", "")
    size = min(8, len(bare))
    return next(
        (bare[i : i + size] for i in range(len(bare) - size + 1) if bare[i : i + size] in flat),
        None,
    )


def planted(seed: int = 7) -> list[tuple[str, str, str]]:
    """(line, secret value, kind) for every kind detection knows."""
    rng = random.Random(seed)
    aws_key = "AKIA" + pick(rng, BASE32, 16)
    aws_secret = pick(rng, ALNUM + "/+", 40)
    password = pick(rng, ALNUM, 6) + "-" + pick(rng, ALNUM, 6)
    url_password = pick(rng, ALNUM, 14)
    card = luhn_card(rng)
    values = [
        (f"AWS_ACCESS_KEY_ID={aws_key}", aws_key, "aws-key"),
        (f"AWS_SECRET_ACCESS_KEY={aws_secret}", aws_secret, "aws-secret"),
        *[(f"export GITHUB_TOKEN={v}", v, "github-token") for v in ["ghp_" + pick(rng, ALNUM, 36)]],
        *[(f"  gitlab: {v}", v, "gitlab-token") for v in ["glpat-" + pick(rng, ALNUM, 20)]],
        *[
            (f"SLACK_BOT={v}", v, "slack-token")
            for v in [f"xoxb-{pick(rng, string.digits, 11)}-{pick(rng, ALNUM, 24)}"]
        ],
        *[
            (f"stripe.api_key = '{v}'", v, "stripe-key")
            for v in ["sk_live_" + pick(rng, ALNUM, 24)]
        ],
        *[
            (f"ANTHROPIC_API_KEY={v}", v, "anthropic-key")
            for v in ["sk-ant-api03-" + pick(rng, ALNUM, 40)]
        ],
        *[(f"OPENAI_API_KEY={v}", v, "openai-key") for v in ["sk-proj-" + pick(rng, ALNUM, 40)]],
        *[(f'  "maps": "{v}",', v, "google-api-key") for v in ["AIza" + pick(rng, ALNUM, 35)]],
        *[
            (f"//registry.npmjs.org/:_authToken={v}", v, "npm-token")
            for v in ["npm_" + pick(rng, ALNUM, 36)]
        ],
        *[(f"session {v}", v, "jwt") for v in [_jwt(rng)]],
        (
            f"DATABASE_URL=postgres://ledger:{url_password}@db.internal:5432/ledger",
            url_password,
            "url-password",
        ),
        *[
            (f'curl -H "Authorization: Bearer {v}" https://api.internal/v2', v, "bearer-token")
            for v in [pick(rng, ALNUM, 40)]
        ],
        (f"password = {password}", password, "password"),
        (f"Card number   {card}   exp 09/29", card, "card"),
    ]
    return values


# What a screen holds beside them: code, logs and listings that are no secret.
ORDINARY = [
    "2026-11-30 15:30:06.901 WARNING noru.store.reader billing printer schema in 3561 ms",
    "-rw-r--r-- 1 noru noru  4635292 Nov 27 13:01 noru.sqlite3",
    "  20737 root      36  -4   2197600     9892   73494 S  60.4  83.9  27:57.72 config",
    "def verify(token: str, *, secret_key: bytes) -> bool:",
    "    password = getpass.getpass()",
    "    token = os.environ['GITHUB_TOKEN']",
    "api_key: ${{ secrets.API_KEY }}",
    "PASSWORD=********",
    "order 4421 shipped to 12 Holloway Road, tracking 1Z999AA10123456784",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "ledger-worker-5b7d9-pq4rz   0/1     CrashLoopBackOff    23        36m",
    "Total: 1,204.50 EUR for 3 items (invoice 2026-000417)",
    "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    "uuid 123e4567-e89b-12d3-a456-426614174000 created",
]


def env_secrets(rng: random.Random) -> tuple[str, str, str, str]:
    """A GitHub token, an AWS access key id, a password and a Stripe key, as
    a `.env` shows them (drawn from ``rng`` token, key id, Stripe key,
    password: the order the seams tests' seeds were chosen with)."""
    token = "ghp_" + pick(rng, ALNUM, 36)
    aws = "AKIA" + pick(rng, BASE32, 16)
    stripe = "sk_live_" + pick(rng, ALNUM, 24)
    password = pick(rng, ALNUM, 14) + "-" + pick(rng, ALNUM, 6)
    return token, aws, password, stripe
