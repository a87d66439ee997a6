"""The formats of keys and tokens, each by its own shape: the larger part
of ``noru.redact.rules``' one table (``RULES``).

Which formats exist is taken from the broadest maintained rule sets
(gitleaks' rule list, detect-secrets' plugins) as a checklist; each rule
here is written from the format's published facts (its prefix, length and
alphabet, as its vendor documents them). docs/security.md lists what is
covered and what is not, and why.
"""

from __future__ import annotations

import dataclasses
import re

from noru.redact.misreads import read_body
from noru.redact.shapes import (
    A4,
    ALNUM,
    B64,
    BODY,
    HEX,
    IL1,
    J_READ,
    LOWER,
    MARK_READ,
    O0,
    OPENED_J,
    S5,
    UPPER,
    Rule,
    fixed,
    prefixed,
    rule,
    token,
)

__all__ = ["FORMATS", "STORAGE_KEY", "gated"]


def gated(rule: Rule, gate: str) -> Rule:
    """``rule`` with a gate (``Rule.gate``): for a rule whose needles most
    lines hold (a ``.``, a word of logs), a plain pattern (characters,
    classes, counts: no look-around, no anchor, its case as written) that
    every text ``rule`` matches holds a match of. It is searched first
    (``search.matched``), and in the line without its spaces before the
    line's runs are joined across them (``spaces.one_space``): a line
    without one is passed over. Written to start with one character or a
    class, it is searched as fast as a substring: a pattern that starts
    with a look-behind (most of these rules'), an alternation or
    ``re.IGNORECASE`` tries every place of a line."""
    return dataclasses.replace(rule, gate=re.compile(gate, re.ASCII))


# An Azure storage key's base64, ``==`` aside: 86 characters, as the engine
# reads it two fewer or six more (a character dropped, or added: a round
# glyph read as two, ``...H8HpOO0gU...`` for ``...H8HpO0gU...``, a ``9`` as
# ``OI``; a letter as its small letter and its capital, ``...PLmMDkw...``
# for ``...PLmDkw...``, ``...AzZ1...`` for ``...Az1...``; a browser's page
# has added four to one key). 90 is the length padded base64 has next (of
# 67 bytes, ``==`` aside): no digest or key is 67 bytes long, and 91 and 92
# are no padded base64's at all, so a run of them before ``==`` is a key
# misread; 94, the next, is a blob of another length (a small image's
# ``iVBOR...==``). A ``sha512-...==`` is 86 long, its ``-`` before it.
STORAGE_KEY = (84, 92)

# A kubeadm token's characters, [a-z0-9], as the engine reads them (an
# ``l`` read as ``I``, ``|`` or ``!`` too; a ``7``, an ``8``, a ``6`` as
# the capital of their shape, ``T``, ``B``, ``G``).
_KUBEADM = LOWER.replace("]", "I|!TBG]")

# A JWT's characters (base64url, an ``l``, an ``I`` or a ``J`` read as
# ``|``), and its header or payload: ``eyJ`` (its ``J`` read as ``I`` too)
# and 8 or more, a stray space before any.
_JWT = "[A-Za-z0-9_|-]"
_JWT_PART = rf"ey(?:I|{J_READ})(?: ?{_JWT}){{8,}}"
# A few characters of a JWT's signature read apart (``1)`` for ``1J``):
# with a digit or a glyph, as no short word of prose has.
_JWT_BIT = r"(?=[A-Za-z_-]*[0-9|)\]}])[A-Za-z0-9_|)\]}-]{1,5}"

FORMATS: tuple[Rule, ...] = (
    # --- Amazon Web Services ---------------------------------------------
    # Access key ids: AKIA (long-term), ASIA (temporary) and the other
    # unique-id prefixes, then 16 of [A-Z2-7] (read as [A-Z0-9], misreads).
    token(
        "aws-key",
        rf"(?:{A4}[Kk][I1l|]{A4}|{A4}{S5}[I1l|]{A4}|{A4}GP{A4}|{A4}{IL1}D{A4}|{A4}R{O0}{A4}"
        rf"|{A4}{IL1}P{A4}|{A4}NP{A4}|{A4}NV{A4}|{A4}B{IL1}{A4}|{A4}CC{A4})",
        UPPER,
        16,
        needles=("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ABIA", "ACCA"),
    ),
    # A session token (STS): base64 of a binary blob whose first bytes are
    # fixed: ``IQoJb3JpZ2luX2Vj`` today, ``FwoGZXIvYXdzE`` and ``AQoDYXdzE``
    # before; hundreds of characters.
    prefixed("aws-session-token", "IQoJb3JpZ2luX2Vj", B64, 100, 4000),
    prefixed("aws-session-token", "FwoGZXIvYXdzE", B64, 100, 4000),
    prefixed("aws-session-token", "AQoDYXdzE", B64, 100, 4000),
    # Bedrock API keys. Long-term: ``ABSK`` and the base64 of
    # ``BedrockAPIKey-<id>-at-<account>:<secret>`` (so ``ABSKQmVkcm9ja0FQSUtleS``
    # always: found by that part too when the engine misreads ``ABSK`` or
    # puts stray spaces in it);
    # short-term: ``bedrock-api-key-`` and the base64 of a presigned URL
    # (``bedrock.amazonaws.com/?Action=CallWithBearerToken&...``), a
    # thousand characters or more.
    prefixed("aws-bedrock-key", "ABSK", B64, 100, 300),
    token(
        "aws-bedrock-key",
        rf"(?:{ALNUM}{{4}} ?)?" + " ?".join(map(fixed, "QmVkcm9ja0FQSUtleS")),
        B64,
        80,
        300,
        needles=("ABSK", "QmVk"),
    ),
    prefixed("aws-bedrock-key", "bedrock-api-key-", B64, 100, 4000),
    # --- code hosts and package registries -------------------------------
    prefixed("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), BODY, 30, 255),
    prefixed("github-token", "github_pat_", BODY, 22, 255),
    prefixed(
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
    prefixed("gitlab-token", "GR1348941", BODY, 20, 60),
    prefixed("bitbucket-token", "ATBB", ALNUM, 28, 64),
    prefixed("atlassian-token", "ATATT", "[A-Za-z0-9_=|-]", 60, 400),
    prefixed("atlassian-token", "ATCTT", "[A-Za-z0-9_=|-]", 60, 400),
    prefixed("npm-token", "npm_", ALNUM, 36),
    prefixed("pypi-token", "pypi-AgE", BODY, 50, 1000),
    prefixed("rubygems-key", "rubygems_", HEX, 48),
    prefixed("clojars-token", "CLOJARS_", ALNUM, 60),
    prefixed("docker-token", ("dckr_pat_", "dckr_oat_"), BODY, 20, 60),
    prefixed("artifactory-key", "AKCp", ALNUM, 60, 80),
    prefixed("artifactory-key", "cmVmdGtu", ALNUM, 50, 64),
    prefixed("sonar-token", ("squ_", "sqp_", "sqa_"), HEX, 40),
    prefixed("readme-key", "rdme_", ALNUM, 70),
    # --- chat and mail -----------------------------------------------------
    prefixed("slack-token", tuple(f"xox{c}" for c in "abposre"), "[A-Za-z0-9.|-]", 10, 400),
    prefixed("slack-token", "xapp-", "[A-Za-z0-9|-]", 10, 400),
    # Webhooks: the key after the URL's path, whose pieces a stray space
    # cuts are joined as a token's.
    token(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/",
        "[A-Za-z0-9/_+|-]",
        20,
        80,
        needles=("hooks.slack.com",),
        outside=True,
    ),
    token(
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/[0-9]{5,20}/",
        "[A-Za-z0-9_|-]",
        40,
        100,
        needles=("/api/webhooks/",),
        outside=True,
    ),
    rule(
        "teams-webhook",
        r"\.webhook\.office\.com/webhookb2/(?P<v>[A-Za-z0-9@/_-]{40,})",
        needles=("webhook.office.com",),
    ),
    # A Discord bot token: a user id in base64 (starts M, N or O, the O
    # read as o or 0 now and then), a time, an HMAC (an ``I`` or an ``l``
    # of them read as ``|``); a Telegram bot's: its id, a colon, ``AA`` and
    # 33 more.
    gated(
        rule(
            "discord-token",
            r"(?<![A-Za-z0-9_|-])(?P<v>[MNOo0][A-Za-z0-9_|-]{23,27}\.[A-Za-z0-9_|-]{6}\."
            r"[A-Za-z0-9_|-]{27,40})(?![A-Za-z0-9_|-])",
            needles=(".",),
        ),
        r"\.[A-Za-z0-9_|-]{6}\.",
    ),
    gated(
        token("telegram-token", r"(?<!:)[0-9OlI]{6,12}:A", "[A-Za-z0-9_|-]", 34, needles=(":a",)),
        ":A",
    ),
    # SendGrid: ``SG.``, 22, a dot, 43: a token of one length, so that a
    # stray space inside it is joined.
    prefixed("sendgrid-key", "SG.", "[A-Za-z0-9_.|-]", 66),
    # Its two parts about its second dot, of any length near theirs: read in
    # a proportional font, a part may gain or lose a few characters.
    rule(
        "sendgrid-key",
        rf"(?<![A-Za-z0-9])(?P<v>{fixed('SG.')}[A-Za-z0-9_|-]{{19,25}}\.[A-Za-z0-9_|-]{{38,48}})"
        r"(?![A-Za-z0-9_-])",
        needles=("sg.",),
    ),
    # Brevo: 64 hexadecimal digits, a dash, 16 letters and digits: a token
    # of one length, so that stray spaces inside it are joined.
    prefixed("brevo-key", ("xkeysib-", "xsmtpsib-"), "[A-Za-z0-9|-]", 81),
    prefixed("mailgun-key", "key-", HEX, 32),
    rule(
        "mailchimp-key",
        rf"(?<![A-Za-z0-9])(?P<v>(?:{read_body(HEX)}){{31,33}}-{fixed('us')}[0-9]{{1,2}})"
        r"(?![A-Za-z0-9])",
        needles=("-us",),
    ),
    prefixed("twilio-key", "SK", HEX, 32),
    prefixed("supabase-token", "sbp_", HEX, 40),
    # --- payments ----------------------------------------------------------
    prefixed(
        "stripe-key",
        tuple(f"{a}k_{b}_" for a in "sr" for b in ("live", "test", "prod")),
        ALNUM,
        10,
        255,
    ),
    prefixed("stripe-key", "whsec_", ALNUM, 24, 64),
    prefixed("square-token", "EAAA", BODY, 56, 64),
    prefixed("square-token", ("sq0atp-", "sq0csp-"), BODY, 22, 60),
    token("facebook-token", "EAA[B-Z]", ALNUM, 90, 400, needles=("eaa",)),
    prefixed("shopify-token", "shpat_", HEX, 32),
    prefixed("shopify-token", "shpca_", HEX, 32),
    prefixed("shopify-token", "shppa_", HEX, 32),
    prefixed("shopify-token", "shpss_", HEX, 32),
    prefixed("flutterwave-key", ("FLWSECK_TEST-", "FLWSECK-"), "[A-Za-z0-9-]", 34),
    prefixed("shippo-token", ("shippo_live_", "shippo_test_"), HEX, 40),
    prefixed("duffel-token", ("duffel_live_", "duffel_test_"), "[A-Za-z0-9_=|-]", 43),
    prefixed("lob-key", ("live_", "test_", "live_pub_", "test_pub_"), HEX, 31, 35),
    prefixed("easypost-key", ("EZAK", "EZTK"), ALNUM, 54),
    prefixed(
        "plaid-token",
        ("access-sandbox-", "access-development-", "access-production-"),
        f"{HEX[:-1]}-]",
        36,
    ),
    # --- AI providers --------------------------------------------------------
    prefixed("anthropic-key", "sk-ant-", BODY, 20, 300),
    token(
        "openai-key",
        rf"{S5}[kK]-(?![aA]nt-)(?:{fixed('proj-')}|{fixed('svcacct-')}|{fixed('admin-')})?",
        BODY,
        20,
        300,
        needles=("sk-",),
    ),
    prefixed("huggingface-token", "hf_", ALNUM, 30, 40),
    prefixed("huggingface-token", "api_org_", ALNUM, 30, 40),
    prefixed("groq-key", "gsk_", ALNUM, 50, 56),
    prefixed("xai-key", "xai-", ALNUM, 70, 90),
    gated(prefixed("replicate-token", "r8_", ALNUM, 37), r"[r1][B8][ _|]"),
    prefixed("perplexity-key", "pplx-", ALNUM, 48),
    prefixed("pinecone-key", "pcsk_", BODY, 40, 100),
    prefixed("langsmith-key", ("lsv2_pt_", "lsv2_sk_"), BODY, 40, 60),
    # --- Google, Microsoft, cloud and hosting ------------------------------
    token("google-api-key", rf"{A4}[I1l|][zZ]a", "[0-9A-Za-z_|-]", 35, needles=("aiza",)),
    prefixed("google-oauth-token", "ya29.", BODY, 20, 2000),
    prefixed("google-oauth-token", "1//0", BODY, 30, 500),
    prefixed("google-client-secret", "GOCSPX-", BODY, 28),
    # An Entra ID (Azure AD) client secret: 3 characters, a digit (or a
    # letter the engine reads for one), ``Q~``.
    rule(
        "azure-client-secret",
        r"(?<![A-Za-z0-9_~.-])(?P<v>[A-Za-z0-9_~.]{3,4}[0-9OoIl|SsZB]Q~[A-Za-z0-9_~.|-]{31,38})"
        r"(?![A-Za-z0-9_~.-])",
        needles=("q~",),
    ),
    # A storage account's key: 64 bytes in base64, 86 characters and ``==``
    # (``STORAGE_KEY``: as many as the engine reads, a few dropped or added).
    rule(
        "azure-storage-key",
        rf"(?<![A-Za-z0-9+/-])(?P<v>[A-Za-z0-9+/|][A-Za-z0-9+/|-]"
        rf"{{{STORAGE_KEY[0] - 1},{STORAGE_KEY[1] - 1}}}==)(?![A-Za-z0-9+/=])",
        needles=("==",),
    ),
    # A shared access signature in a URL: its ``sig``.
    rule("azure-sas", r"[?&]sig=(?P<v>[A-Za-z0-9%+/=]{30,})", needles=("sig=",)),
    prefixed("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), HEX, 64),
    prefixed("heroku-key", "HRKU-", BODY, 30, 80),
    prefixed("alibaba-key", "LTAI", ALNUM, 12, 30),
    prefixed("flyio-token", "fo1_", BODY, 43),
    prefixed("flyio-token", ("fm1a_", "fm1r_", "fm2_"), B64, 100, 4000),
    prefixed("netlify-token", "nfp_", ALNUM, 36, 40),
    prefixed("supabase-key", "sb_secret_", BODY, 20, 60),
    prefixed("tailscale-key", "tskey-", "[A-Za-z0-9-]", 20, 100),
    prefixed("doppler-token", "dp.pt.", ALNUM, 40, 44),
    prefixed(
        "doppler-token",
        ("dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
        "[A-Za-z0-9.|]",
        40,
        80,
    ),
    prefixed("pulumi-token", "pul-", HEX, 40),
    prefixed(
        "planetscale-token",
        ("pscale_tkn_", "pscale_oauth_", "pscale_pw_"),
        "[A-Za-z0-9_.=|-]",
        32,
        64,
    ),
    prefixed("prefect-key", "pnu_", ALNUM, 36),
    prefixed("scalingo-token", "tk-us-", BODY, 48),
    prefixed("openshift-token", "sha256~", BODY, 43),
    prefixed("octopus-key", "API-", UPPER, 26),
    prefixed("databricks-token", "dapi", HEX, 32, 34),
    prefixed("dynatrace-token", "dt0c01.", "[A-Za-z0-9.]", 89),
    prefixed("cloudflare-ca-key", "v1.0-", "[0-9a-fA-FOolI|-]", 171),
    prefixed("newrelic-key", "NRAK-", UPPER, 27),
    prefixed("newrelic-key", "NRII-", UPPER, 32),
    gated(prefixed("dropbox-token", "sl.", "[A-Za-z0-9_.|-]", 130, 1500), r"[sS][IiLl1|!\]][ .]"),
    prefixed("yandex-key", "AQVN", BODY, 35, 38),
    prefixed("infracost-key", "ico-", ALNUM, 32),
    prefixed("intra42-secret", ("s-s4t2ud-", "s-s4t2af-"), HEX, 64),
    prefixed("frameio-token", "fio-u-", "[A-Za-z0-9_=|-]", 64),
    prefixed("typeform-token", "tfp_", "[A-Za-z0-9_.=|-]", 59),
    prefixed("figma-token", "figd_", BODY, 40, 60),
    prefixed("sourcegraph-token", "sgp_", BODY, 40, 64),
    prefixed("settlemint-token", ("sm_aat_", "sm_pat_", "sm_sat_"), ALNUM, 16),
    prefixed("sentry-token", "sntryu_", HEX, 64),
    prefixed("sentry-token", "sntrys_eyJ", "[A-Za-z0-9+/=_]", 80, 500),
    prefixed("adobe-secret", "p8e-", ALNUM, 32),
    prefixed("onepassword-token", "ops_eyJ", B64, 200, 3000),
    prefixed("onepassword-key", "A3-", f"{UPPER[:-1]}-]", 36),
    # Airtable: ``pat``, 14, a dot, 64 hexadecimal digits (taken as letters
    # and digits: the engine reads a proportional font's glyphs as others).
    token(
        "airtable-token",
        rf"{fixed('pat')}[A-Za-z0-9|)\]}}]{{13,15}}\.",
        ALNUM,
        64,
        needles=("pat",),
    ),
    # MaxMind: 6, ``_``, 29 and the fixed ``_mmk``; either ``_`` read as a
    # space too, the last not read at all (``...Qlmmk`` for ``...Ql_mmk``
    # in Firefox): the fixed end, the first ``_`` and the lengths tell the key.
    rule(
        "maxmind-key",
        rf"\b(?P<v>[A-Za-z0-9|]{{5,7}}{MARK_READ['_']}[A-Za-z0-9|]{{27,31}}"
        rf"{MARK_READ['_']}?{fixed('mmk')})\b",
        needles=("mmk",),
    ),
    # Harness: three parts about two dots; read in a proportional font, a
    # space now and then inside a part or after a dot (an ``_`` read so);
    # in the last, one, before a piece with a digit or a capital (not a word
    # of prose after a whole token: ``... is``).
    rule(
        "harness-token",
        rf"\b(?P<v>(?:{fixed('pat.')}|{fixed('sat.')})(?:[A-Za-z0-9_|-] ?){{21,23}}"
        r"\. ?(?:[A-Za-z0-9|] ?){22,26}\. ?(?:[A-Za-z0-9|]{18,22}\b|(?=[A-Za-z0-9| ]{18,23}\b)"
        r"[A-Za-z0-9|]{4,21} (?=[A-Za-z|]*[0-9A-Z|])[A-Za-z0-9|]+))\b",
        needles=("pat.", "sat."),
    ),
    # And as a token of one length (22, 24 and 20 about two dots), so that
    # more stray spaces than its parts take are joined.
    prefixed("harness-token", ("pat.", "sat."), "[A-Za-z0-9_.|-]", 68),
    rule(
        "terraform-token",
        rf"\b(?P<v>[A-Za-z0-9|]{{13,15}}{MARK_READ['.']}{fixed('atlasv1.')}[A-Za-z0-9_=|-]{{60,70}})",
        needles=("atlasv1",),
    ),
    # A bearer token: 20 to 22 ``A`` and 80 or more of its alphabet; two
    # of its ``A`` read as an ``M`` now and then (a proportional font
    # kerns them: ``AMAAA...`` in Chromium).
    token(
        "twitter-token",
        "(?:A{20,22}|(?=[AM]{21,23})A{1,20}MA{1,21})",
        "[A-Za-z0-9%|]",
        80,
        120,
        needles=("aaaaaaaaaaaaaaaaaaaa",),
    ),
    prefixed("mapbox-token", "sk.eyJ", "[A-Za-z0-9_.|-]", 60, 400),
    # --- keys and secret stores --------------------------------------------
    prefixed("vault-token", "hvs.", BODY, 20, 300),
    prefixed("vault-token", "hvb.", BODY, 20, 400),
    prefixed("vault-token", "hvr.", BODY, 20, 300),
    prefixed("age-key", "AGE-SECRET-KEY-1", "[A-Z0-9]", 58),
    prefixed("grafana-token", "glc_", B64, 32, 400),
    prefixed("grafana-token", "glsa_", BODY, 38, 45),
    prefixed("grafana-token", "eyJrIjoi", B64, 50, 400),
    prefixed("linear-key", "lin_api_", ALNUM, 40),
    prefixed("linear-key", "lin_oauth_", HEX, 64),
    prefixed("notion-token", "secret_", ALNUM, 43),
    prefixed("notion-token", "ntn_", ALNUM, 46),
    rule(
        "postman-key",
        rf"\b(?P<v>{fixed('PMAK-')}{HEX}{{22,26}}-{HEX}{{32,36}})(?![A-Za-z0-9])",
        needles=("pmak-",),
    ),
    # Its 24 and 34 about their ``-`` as a token of one length too, so that
    # the pieces stray spaces cut it in are joined (``...f455f5 1b-Obf757727
    # 7bbc8dfdcd87 7 8fal6d...``), as a format of parts' pieces are not.
    prefixed("postman-key", "PMAK-", f"{HEX[:-1]}-]", 59),
    # A kubeadm bootstrap token (``token: abcdef.0123456789abcdef``): 6 and
    # 16 of [a-z0-9] about a dot; the second part has a digit and a letter,
    # which a dotted name of code (``config.getattribute``) has not. A
    # proportional font's reading adds a character in either part now and
    # then (an ``l`` read as ``l1``); a first part of 7 must hold a digit
    # too, as a name of code's seldom does. (Not one character fewer: a
    # name of code as ``x25519.X25519PublicKey`` would be taken.) Its
    # first ``j`` read with a bracket before it as one glyph (``OPENED_J``:
    # ``Lytp5n.``) is taken when the rest of the first part holds a digit:
    # a name of code (``Loader.``) seldom does. A second part with no
    # digit as read (its ``1`` read as ``l``) is taken when it holds a
    # glyph read for a ``1`` and the first part a digit; a second part of
    # words (``Subpackage2module``, ``getComputedStyle``, after an
    # algorithm's name and number ``X25519PrivateKey``) is a name's either
    # way (``search``, ``shapes.name_like``).
    gated(
        rule(
            "kubeadm-token",
            rf"(?<![A-Za-z0-9._/@-])(?P<v>(?:{_KUBEADM}{{6}}"
            rf"|{OPENED_J}(?=[a-zA-Z|!]{{0,4}}[0-9]){_KUBEADM}{{5}}"
            rf"|(?=[a-zA-Z|!]*[0-9]){_KUBEADM}{{7}})\."
            rf"(?=[a-zA-Z|!]*[0-9lI|!])(?=[0-9]*[a-zA-Z|!]){_KUBEADM}{{16,17}})"
            r"(?![A-Za-z0-9_-]|\.[A-Za-z0-9])",
            needles=(".",),
        ),
        rf"\.{_KUBEADM}{{16}}",
    ),
    # This install's own token for `noru mcp --http` (noru.httptoken), as
    # `noru token show` prints it: an agent's look at the screen never gets it.
    prefixed("noru-token", "noru_", BODY, 40, 255),
    # A JWT: header and payload start with ``eyJ`` (base64 of ``{"``). Read
    # in a proportional font, the engine puts a space inside a long token
    # now and then (a page in Firefox: ``...ODEiLCAib xfD7 boCUP...``): its
    # parts take single spaces, its signature up to two more pieces (one of
    # a few characters before one, ``...ac4VJ 1) Vb6TQw...``); an ``l``, an
    # ``I`` or the ``J`` of ``eyJ`` read as ``|`` is its character. A dot
    # between its parts is read as a comma now and then, or as nothing but
    # the space before a long signature (``...BNRMO0Q jtjuLZvv21Kei...``).
    # Its signature's pieces after a space (group ``more``) are the line's
    # words when they read as prose (``... expired yesterday``).
    rule(
        "jwt",
        rf"(?P<v>\b{_JWT_PART} ?[.,] ?{_JWT_PART}(?: ?[.,] ?| (?={_JWT}{{16}}))"
        rf"{_JWT}{{2,}}(?P<more>(?: (?:{_JWT_BIT} )?{_JWT}{{6,}}){{0,2}}))",
        needles=("eyj", "eyi", "ey)", "ey}", "eyl", "ey/"),
    ),
    # A URL's password: scheme://user:PASSWORD@host (a space the engine put
    # before the ``@`` taken).
    rule(
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@]{1,64}:(?P<v>[^\s@/]{1,128}) ?@[^\s@]",
        needles=("://",),
    ),
    # Authorization headers and the like: the credential after its scheme,
    # quoted or not (``--oauth2-bearer "..."``), not an option (``--proxy-
    # basic --proxy-user``); it must look like one (``search``: a digit, both
    # cases or a token's punctuation), not a word (``Basic authentication``).
    gated(
        rule(
            "bearer-token",
            r"(?<!--)\b(?:Bearer|Basic|Token)\s+[\"']?(?P<v>(?!-)[A-Za-z0-9._~+/=|-]{12,})",
            re.IGNORECASE,
            needles=("bearer", "basic", "token"),
        ),
        r"[BbTt](?:[Ee][Aa][Rr][Ee][Rr]|[Aa][Ss][Ii][Cc]|[Oo][Kk][Ee][Nn])\s",
    ),
)
