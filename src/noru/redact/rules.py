"""The rules that find secrets in a line of on-screen text: one table.

Each rule is a kind and a pattern whose group ``v`` is the secret value (the
span that is redacted); the rest of a match (a label, ``Bearer``, a URL's
user) stays. Patterns are anchored on what a format fixes (a prefix, a
label, a URL's shape); where OCR confuses characters, the fixed parts take
each of them (``_O`` is ``O`` or ``0``, ``_I`` is ``I``, ``l``, ``1`` or
``|``; ``fixed`` writes a prefix so, its letters of one shape in both cases
too), so a misread key is still found by its prefix.

Which formats exist is taken from the broadest maintained rule sets
(gitleaks' rule list, detect-secrets' plugins) as a checklist; each rule
here is written from the format's published facts (its prefix, length and
alphabet, as its vendor documents them). docs/security.md lists what is
covered and what is not, and why.

A token of a fixed prefix and a body (``token``) records its body's
length: the engine puts a stray space inside a long token now and then, and
``detect`` joins the pieces after a match when together they are the
format's length (and each piece after the first looks like a token's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
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
    "fixed",
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
_ALNUM = "[A-Za-z0-9|]"
_B64 = "[A-Za-z0-9+/=|]"
# Hexadecimal, and what the engine reads for its 0 and 1 (and a case flip).
_HEX = "[0-9a-fA-FOolI|]"
# Capitals and digits (an AWS key id's, New Relic's), and the small letters
# the engine reads for capitals of one shape; and small letters and digits.
_UPPER = "[A-Z0-9l|ckopsuvwxz]"
_LOWER = "[a-z0-9CKOPSUVWXZ]"
# Letters whose capital is their small letter drawn larger: the engine
# flips their case now and then.
_FLIPS = frozenset("ckopsuvwxz")
_CONFUSED = {"o": _O, "O": _O, "0": _O, "l": _I, "I": _I, "1": _I, "S": _S, "5": _S}


def fixed(text: str) -> str:
    """A format's fixed part as a pattern that takes the engine's misreads
    of it: confused characters, case flips of letters of one shape, and
    ``_`` read as a space (not at its start)."""
    out = []
    for i, char in enumerate(text):
        if char in _CONFUSED:
            out.append(_CONFUSED[char])
        elif char.lower() in _FLIPS:
            out.append(f"[{char.lower()}{char.upper()}]")
        elif char == "_" and i:
            out.append("[_ ]")
        else:
            out.append(re.escape(char))
    return "".join(out)


# The form a line is searched for a rule's fixed letters in (``canon``):
# small letters, and one character for those the engine confuses.
_CANON = str.maketrans(
    {"0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "2": "z", " ": "_", "8": "b", "4": "a"}
)


def canon(text: str) -> str:
    """``text`` in small letters with the characters the engine confuses
    made one (``0`` and ``o``; ``1``, ``i``, ``l`` and ``|``; ...) and a
    space as ``_``: a line holds a rule's ``needles`` in this form
    wherever the rule could match it."""
    return text.lower().translate(_CANON)


@dataclass(frozen=True)
class Rule:
    """A kind and its pattern (group ``v``: the value). A ``token``'s
    pattern matches its prefix (group ``p``) and looks ahead at its body
    (``b``) and up to three pieces after single spaces (``rest``), so that a
    piece it does not take is searched again; ``low`` and ``high`` are its
    body's length, spaces aside. ``needles``: a line can only match if
    its ``canon`` holds one of them (none: any line can), so most lines
    are passed over by a substring search, not a pattern."""

    kind: str
    pattern: re.Pattern[str]
    low: int = 0
    high: int = 0
    needles: tuple[str, ...] = ()


def _rule(kind: str, pattern: str, flags: int = 0, *, needles: tuple[str, ...] = ()) -> Rule:
    return Rule(kind, re.compile(pattern, re.ASCII | flags), needles=tuple(map(canon, needles)))


def _token(
    kind: str,
    prefix: str,
    body: str,
    low: int,
    high: int | None = None,
    *,
    needles: tuple[str, ...],
) -> Rule:
    """A token: ``prefix`` (a pattern; ``fixed`` of a literal), then ``low``
    to ``high`` characters of ``body``. Inside a body of letters, a ``)``,
    ``]`` or ``}`` is the engine's reading of a ``J`` (in a proportional
    font), not the token's end."""
    unit = f"(?:{body}|[)\\]}}](?={body}))" if "A-Z" in body or "a-z" in body else body
    pattern = (
        rf"(?<![A-Za-z0-9])(?P<p>{prefix})"
        rf"(?=(?P<b>{unit}*)(?!{body})(?P<rest>(?: {unit}{{2,}}(?!{body})){{0,3}}))"
    )
    return Rule(
        kind,
        re.compile(pattern, re.ASCII),
        low,
        low if high is None else high,
        tuple(map(canon, needles)),
    )


def _t(
    kind: str, prefix: str | tuple[str, ...], body: str, low: int, high: int | None = None
) -> Rule:
    """``_token`` of literal prefixes (one, or any of a tuple)."""
    prefixes = (prefix,) if isinstance(prefix, str) else prefix
    pattern = "(?:" + "|".join(map(fixed, prefixes)) + ")"
    return _token(kind, pattern, body, low, high, needles=prefixes)


RULES: tuple[Rule, ...] = (
    # --- Amazon Web Services ---------------------------------------------
    # Access key ids: AKIA (long-term), ASIA (temporary) and the other
    # unique-id prefixes, then 16 of [A-Z2-7] (read as [A-Z0-9], misreads).
    _token(
        "aws-key",
        rf"(?:{_A}[K][I1l|]{_A}|{_A}{_S}[I1l|]{_A}|{_A}GP{_A}|{_A}{_I}D{_A}|{_A}R{_O}{_A}"
        rf"|{_A}{_I}P{_A}|{_A}NP{_A}|{_A}NV{_A}|{_A}B{_I}{_A}|{_A}CC{_A})",
        _UPPER,
        16,
        needles=("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ABIA", "ACCA"),
    ),
    # A session token (STS): base64 of a binary blob whose first bytes are
    # fixed: ``IQoJb3JpZ2luX2Vj`` today, ``FwoGZXIvYXdzE`` and ``AQoDYXdzE``
    # before; hundreds of characters.
    _t("aws-session-token", "IQoJb3JpZ2luX2Vj", _B64, 100, 4000),
    _t("aws-session-token", "FwoGZXIvYXdzE", _B64, 100, 4000),
    _t("aws-session-token", "AQoDYXdzE", _B64, 100, 4000),
    _t("aws-bedrock-key", "ABSK", _B64, 100, 300),
    # --- code hosts and package registries -------------------------------
    _t("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), _BODY, 30, 255),
    _t("github-token", "github_pat_", _BODY, 22, 255),
    _t(
        "gitlab-token",
        (
            "glpat-",
            "gldt-",
            "glrt-",
            "glptt-",
            "glft-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glsoat-",
            "glffct-",
            "glcbt-",
            "glsat-",
            "glcp-",
        ),
        "[A-Za-z0-9_.|-]",
        20,
        300,
    ),
    _t("gitlab-token", "GR1348941", _BODY, 20, 60),
    _t("bitbucket-token", "ATBB", _ALNUM, 28, 64),
    _t("atlassian-token", "ATATT", "[A-Za-z0-9_=|-]", 60, 400),
    _t("atlassian-token", "ATCTT", "[A-Za-z0-9_=|-]", 60, 400),
    _t("npm-token", "npm_", _ALNUM, 36),
    _t("pypi-token", "pypi-AgE", _BODY, 50, 1000),
    _t("rubygems-key", "rubygems_", _HEX, 48),
    _t("clojars-token", "CLOJARS_", _ALNUM, 60),
    _t("docker-token", ("dckr_pat_", "dckr_oat_"), _BODY, 20, 60),
    _t("artifactory-key", "AKCp", _ALNUM, 60, 80),
    _t("artifactory-key", "cmVmdGtu", _ALNUM, 50, 64),
    _t("sonar-token", ("squ_", "sqp_", "sqa_"), _HEX, 40),
    _t("readme-key", "rdme_", _ALNUM, 70),
    # --- chat and mail -----------------------------------------------------
    _t("slack-token", tuple(f"xox{c}" for c in "abposre"), "[A-Za-z0-9.|-]", 10, 400),
    _t("slack-token", "xapp-", "[A-Za-z0-9|-]", 10, 400),
    _rule(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9/_+-]{20,})",
        needles=("hooks.slack.com",),
    ),
    _rule(
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/[0-9]{5,20}/(?P<v>[A-Za-z0-9_-]{40,})",
        needles=("/api/webhooks/",),
    ),
    _rule(
        "teams-webhook",
        r"\.webhook\.office\.com/webhookb2/(?P<v>[A-Za-z0-9@/_-]{40,})",
        needles=("webhook.office.com",),
    ),
    # A Discord bot token: a user id in base64 (starts M, N or O), a time,
    # an HMAC; a Telegram bot's: its id, a colon, ``AA`` and 33 more.
    _rule(
        "discord-token",
        r"(?<![A-Za-z0-9_-])(?P<v>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})"
        r"(?![A-Za-z0-9_-])",
    ),
    _rule(
        "telegram-token",
        r"(?<![A-Za-z0-9:])(?P<v>[0-9OlI]{6,12}:A[A-Za-z0-9_|-]{34})(?![A-Za-z0-9_-])",
        needles=(":a",),
    ),
    _rule(
        "sendgrid-key",
        rf"(?<![A-Za-z0-9])(?P<v>{_S}G\.[A-Za-z0-9_-]{{16,32}}\.[A-Za-z0-9_-]{{40,50}})"
        r"(?![A-Za-z0-9_-])",
        needles=("sg.",),
    ),
    _rule(
        "brevo-key",
        rf"\b(?P<v>(?:{fixed('xkeysib-')}|{fixed('xsmtpsib-')}){_HEX}{{64}}-[A-Za-z0-9|]{{16}})(?![A-Za-z0-9])",
        needles=("sib-",),
    ),
    _t("mailgun-key", "key-", _HEX, 32),
    _rule(
        "mailchimp-key",
        rf"(?<![A-Za-z0-9])(?P<v>{_HEX}{{32}}-{fixed('us')}[0-9]{{1,2}})(?![A-Za-z0-9])",
        needles=("-us",),
    ),
    _t("twilio-key", "SK", _HEX, 32),
    _t("supabase-token", "sbp_", _HEX, 40),
    # --- payments ----------------------------------------------------------
    _t(
        "stripe-key",
        tuple(f"{a}k_{b}_" for a in "sr" for b in ("live", "test", "prod")),
        _ALNUM,
        10,
        255,
    ),
    _t("stripe-key", "whsec_", _ALNUM, 24, 64),
    _t("square-token", "EAAA", _BODY, 56, 64),
    _t("square-token", ("sq0atp-", "sq0csp-"), _BODY, 22, 60),
    _token("facebook-token", "EAA[B-Z]", _ALNUM, 90, 400, needles=("eaa",)),
    _t("shopify-token", "shpat_", _HEX, 32),
    _t("shopify-token", "shpca_", _HEX, 32),
    _t("shopify-token", "shppa_", _HEX, 32),
    _t("shopify-token", "shpss_", _HEX, 32),
    _t("flutterwave-key", ("FLWSECK_TEST-", "FLWSECK-"), "[A-Za-z0-9-]", 34),
    _t("shippo-token", ("shippo_live_", "shippo_test_"), _HEX, 40),
    _t("duffel-token", ("duffel_live_", "duffel_test_"), "[A-Za-z0-9_=|-]", 43),
    _t("lob-key", ("live_", "test_", "live_pub_", "test_pub_"), _HEX, 31, 35),
    _t("easypost-key", ("EZAK", "EZTK"), _ALNUM, 54),
    _t(
        "plaid-token",
        ("access-sandbox-", "access-development-", "access-production-"),
        f"{_HEX[:-1]}-]",
        36,
    ),
    # --- AI providers --------------------------------------------------------
    _t("anthropic-key", "sk-ant-", _BODY, 20, 300),
    _token(
        "openai-key",
        rf"{_S}[kK]-(?![aA]nt-)(?:{fixed('proj-')}|{fixed('svcacct-')}|{fixed('admin-')})?",
        _BODY,
        20,
        300,
        needles=("sk-",),
    ),
    _t("huggingface-token", "hf_", _ALNUM, 30, 40),
    _t("huggingface-token", "api_org_", _ALNUM, 30, 40),
    _t("groq-key", "gsk_", _ALNUM, 50, 56),
    _t("xai-key", "xai-", _ALNUM, 70, 90),
    _t("replicate-token", "r8_", _ALNUM, 37),
    _t("perplexity-key", "pplx-", _ALNUM, 48),
    _t("pinecone-key", "pcsk_", _BODY, 40, 100),
    _t("langsmith-key", ("lsv2_pt_", "lsv2_sk_"), _BODY, 40, 60),
    # --- Google, Microsoft, cloud and hosting ------------------------------
    _token("google-api-key", rf"{_A}[I1l|][zZ]a", "[0-9A-Za-z_|-]", 35, needles=("aiza",)),
    _t("google-oauth-token", "ya29.", _BODY, 20, 2000),
    _t("google-oauth-token", "1//0", _BODY, 30, 500),
    _t("google-client-secret", "GOCSPX-", _BODY, 28),
    # An Entra ID (Azure AD) client secret: 3 characters, a digit, ``Q~``.
    _rule(
        "azure-client-secret",
        r"(?<![A-Za-z0-9_~.-])(?P<v>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})"
        r"(?![A-Za-z0-9_~.-])",
        needles=("q~",),
    ),
    # A storage account's key: 64 bytes in base64, 86 characters and ``==``.
    _rule(
        "azure-storage-key",
        r"(?<![A-Za-z0-9+/-])(?P<v>[A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])",
        needles=("==",),
    ),
    # A shared access signature in a URL: its ``sig``.
    _rule("azure-sas", r"[?&]sig=(?P<v>[A-Za-z0-9%+/=]{30,})", needles=("sig=",)),
    _t("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), _HEX, 64),
    _t("heroku-key", "HRKU-", _BODY, 30, 80),
    _t("alibaba-key", "LTAI", _ALNUM, 12, 30),
    _t("flyio-token", "fo1_", _BODY, 43),
    _t("flyio-token", ("fm1a_", "fm1r_", "fm2_"), _B64, 100, 4000),
    _t("netlify-token", "nfp_", _ALNUM, 36, 40),
    _t("supabase-key", "sb_secret_", _BODY, 20, 60),
    _t("tailscale-key", "tskey-", "[A-Za-z0-9-]", 20, 100),
    _t("doppler-token", "dp.pt.", _ALNUM, 40, 44),
    _t(
        "doppler-token",
        ("dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
        "[A-Za-z0-9.|]",
        40,
        80,
    ),
    _t("pulumi-token", "pul-", _HEX, 40),
    _t(
        "planetscale-token",
        ("pscale_tkn_", "pscale_oauth_", "pscale_pw_"),
        "[A-Za-z0-9_.=|-]",
        32,
        64,
    ),
    _t("prefect-key", "pnu_", _ALNUM, 36),
    _t("scalingo-token", "tk-us-", _BODY, 48),
    _t("openshift-token", "sha256~", _BODY, 43),
    _t("octopus-key", "API-", _UPPER, 26),
    _t("databricks-token", "dapi", _HEX, 32, 34),
    _t("dynatrace-token", "dt0c01.", "[A-Za-z0-9.]", 89),
    _t("cloudflare-ca-key", "v1.0-", "[0-9a-f-]", 171),
    _t("newrelic-key", "NRAK-", _UPPER, 27),
    _t("newrelic-key", "NRII-", _UPPER, 32),
    _t("dropbox-token", "sl.", "[A-Za-z0-9_.|-]", 130, 1500),
    _t("yandex-key", "AQVN", _BODY, 35, 38),
    _t("infracost-key", "ico-", _ALNUM, 32),
    _t("intra42-secret", ("s-s4t2ud-", "s-s4t2af-"), _HEX, 64),
    _t("frameio-token", "fio-u-", "[A-Za-z0-9_=|-]", 64),
    _t("typeform-token", "tfp_", "[A-Za-z0-9_.=|-]", 59),
    _t("figma-token", "figd_", _BODY, 40, 60),
    _t("sourcegraph-token", "sgp_", _BODY, 40, 64),
    _t("settlemint-token", ("sm_aat_", "sm_pat_", "sm_sat_"), _ALNUM, 16),
    _t("sentry-token", "sntryu_", _HEX, 64),
    _t("sentry-token", "sntrys_eyJ", "[A-Za-z0-9+/=_]", 80, 500),
    _t("adobe-secret", "p8e-", _ALNUM, 32),
    _t("onepassword-token", "ops_eyJ", _B64, 200, 3000),
    _t("onepassword-key", "A3-", f"{_UPPER[:-1]}-]", 36),
    _rule(
        "airtable-token",
        rf"\b(?P<v>{fixed('pat')}[A-Za-z0-9|]{{14}}\.{_HEX}{{64}})\b",
        needles=("pat",),
    ),
    _rule("maxmind-key", r"\b(?P<v>[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)\b", needles=("_mmk",)),
    _rule(
        "harness-token",
        rf"\b(?P<v>(?:{fixed('pat.')}|{fixed('sat.')})[A-Za-z0-9_|-]{{22}}\.[A-Za-z0-9|]{{24}}\.[A-Za-z0-9|]{{20}})\b",
        needles=("pat.", "sat."),
    ),
    _rule(
        "terraform-token",
        r"\b(?P<v>[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})",
        needles=("atlasv1",),
    ),
    _rule(
        "twitter-token",
        r"(?<![A-Za-z0-9])(?P<v>A{20,22}[A-Za-z0-9%]{80,120})(?![A-Za-z0-9%])",
        needles=("aaaaaaaaaaaaaaaaaaaa",),
    ),
    _t("mapbox-token", "sk.eyJ", "[A-Za-z0-9_.|-]", 60, 400),
    # --- keys and secret stores --------------------------------------------
    _t("vault-token", "hvs.", _BODY, 20, 300),
    _t("vault-token", "hvb.", _BODY, 20, 400),
    _t("vault-token", "hvr.", _BODY, 20, 300),
    _t("age-key", "AGE-SECRET-KEY-1", "[A-Z0-9]", 58),
    _t("grafana-token", "glc_", _B64, 32, 400),
    _t("grafana-token", "glsa_", _BODY, 38, 45),
    _t("grafana-token", "eyJrIjoi", _B64, 50, 400),
    _t("linear-key", "lin_api_", _ALNUM, 40),
    _t("linear-key", "lin_oauth_", _HEX, 64),
    _t("notion-token", "secret_", _ALNUM, 43),
    _t("notion-token", "ntn_", _ALNUM, 46),
    _rule(
        "postman-key",
        rf"\b(?P<v>{fixed('PMAK-')}{_HEX}{{24}}-{_HEX}{{34}})(?![A-Za-z0-9])",
        needles=("pmak-",),
    ),
    # A kubeadm bootstrap token (``token: abcdef.0123456789abcdef``): 6 and
    # 16 of [a-z0-9] about a dot; the second part has a digit and a letter,
    # which a dotted name of code (``config.getattribute``) has not.
    _rule(
        "kubeadm-token",
        rf"(?<![A-Za-z0-9._/@-])(?P<v>{_LOWER}{{6}}\.(?=[a-zA-Z]*[0-9])(?=[0-9]*[a-zA-Z]){_LOWER}{{16}})"
        r"(?![A-Za-z0-9_-]|\.[A-Za-z0-9])",
    ),
    # This install's own token for `noru mcp --http` (noru.httptoken), as
    # `noru token show` prints it: an agent's look at the screen never gets it.
    _t("noru-token", "noru_", _BODY, 40, 255),
    # A JWT: header and payload start with ``eyJ`` (base64 of ``{"``). Read
    # in a proportional font, the engine puts a space inside a long token
    # now and then (measured on Firefox: ``...ODEiLCAib xfD7 boCUP...``): its
    # parts take single spaces, its signature up to two more pieces.
    _rule(
        "jwt",
        r"(?P<v>\bey[JI](?: ?[A-Za-z0-9_-]){8,} ?\. ?ey[JI](?: ?[A-Za-z0-9_-]){8,} ?\. ?"
        r"[A-Za-z0-9_-]{2,}(?: [A-Za-z0-9_-]{6,}){0,2})",
        needles=("eyj", "eyi"),
    ),
    # A URL's password: scheme://user:PASSWORD@host (a space the engine put
    # before the ``@`` taken).
    _rule(
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@]{1,64}:(?P<v>[^\s@/]{1,128}) ?@[^\s@]",
        needles=("://",),
    ),
    # Authorization headers and the like: the credential after its scheme,
    # quoted or not (``--oauth2-bearer "..."``), not an option (``--proxy-
    # basic --proxy-user``); it must look like one (``detect``: a digit, both
    # cases or a token's punctuation), not a word (``Basic authentication``).
    _rule(
        "bearer-token",
        r"(?<!--)\b(?:Bearer|Basic|Token)\s+[\"']?(?P<v>(?!-)[A-Za-z0-9._~+/=|-]{12,})",
        re.IGNORECASE,
        needles=("bearer", "basic", "token"),
    ),
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
    _rule(
        "password",
        rf"(?:^|\s)--?(?P<name>{_OPTION})(?:=|\s+)(?P<quote>[\"']?)(?P<v>[^\s\"'`]{{4,256}})",
        re.IGNORECASE,
        needles=(" -", "--"),
    ),
    # MySQL's and MariaDB's clients take the password attached: ``-pSECRET``.
    _rule(
        "password",
        r"\b(?:mysql|mariadb|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh"
        r"|mysqlpump|mariadb-dump)\b[^|;&]*?\s-p(?P<quote>[\"']?)(?P<v>[^\s\"'`]{1,128})",
        needles=("mysql", "mariadb"),
    ),
    # ``sshpass -p X``; curl's ``-u user:X`` and ``--user user:X``.
    _rule(
        "password",
        r"\bsshpass\s+-p\s*(?P<quote>[\"']?)(?P<v>[^\s\"'`]{1,128})",
        needles=("sshpass",),
    ),
    _rule(
        "password",
        r"\bcurl\b.*?\s(?:-u|--user)(?:=|\s*)(?P<quote>[\"']?)[^\s:\"']{1,64}:(?P<v>[^\s\"'`]{1,128})",
        needles=("curl",),
    ),
    # .netrc: ``machine host login me password X``, or ``password X`` on a
    # line of its own (not a word of prose: ``password changed.``).
    _rule(
        "password",
        r"\b(?:machine|default)\b.*?\s(?:password|passwd)\s+(?P<quote>)(?P<v>[^\s\"'`]{1,256})",
        needles=("machine", "default"),
    ),
    _rule(
        "password",
        r"^\s*(?:password|passwd)\s+(?P<quote>)(?P<v>(?![a-z]+[.,;:!?]?\s*$)[^\s\"'`]{1,256})\s*$",
        needles=("pass",),
    ),
    # .pgpass: ``host:port:database:user:password``.
    _rule(
        "password",
        r"^\s*[^\s:#]+:(?:[0-9]{1,5}|\*):[^\s:]+:[^\s:]+:(?P<quote>)(?P<v>[^\s:]{1,256})\s*$",
        needles=(":",),
    ),
    # Connection strings: ``AccountKey=...;``, ``SharedAccessKey=...``,
    # ``Password=...;``, each to its ``;``.
    _rule(
        "azure-storage-key",
        r"(?:^|[;\s\"'])AccountKey\s*=\s*(?P<quote>)(?P<v>[^;\s\"']{8,})",
        re.IGNORECASE,
        needles=("accountkey",),
    ),
    _rule(
        "azure-sas",
        r"(?:^|[;\s\"'])SharedAccess(?:Key|Signature)\s*=\s*(?P<quote>)(?P<v>[^;\s\"']{8,})",
        re.IGNORECASE,
        needles=("sharedaccess",),
    ),
    _rule(
        "password",
        r";\s*(?:Password|Pwd|User Password)\s*=\s*(?P<quote>)(?P<v>[^;\"']{1,128})",
        re.IGNORECASE,
        needles=(";",),
    ),
    # NuGet.Config: ``<add key="ClearTextPassword" value="..." />``.
    _rule(
        "password",
        r"<add\s+key=\"(?:ClearText)?Password\"\s+value=\"(?P<quote>)(?P<v>[^\"]{1,256})\"",
        re.IGNORECASE,
        needles=("password",),
    ),
    # GitLab's session cookie, wherever it is shown.
    _rule(
        "gitlab-session",
        r"\b_gitlab_session=(?P<quote>)(?P<v>[0-9a-f]{32})",
        needles=("_gitlab_session=",),
    ),
    # kubeconfig: a client's private key, in base64 (its certificate and the
    # cluster's authority, ``-certificate-data``, are public).
    _rule(
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
# name take one.
LABEL_NAME = re.compile(
    r"pass(?:word|wd|phrase|code)?|pwd|secret|token|api[_ -]?key|apikey|access[_ -]?key"
    r"|private[_ -]?key|auth[_ -]?key|credential|(?<![A-Za-z])key(?![A-Za-z])"
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
