"""What guards the person's history: the exclusions and redaction in force,
images kept redacted at rest, the access log agents' reads are recorded in,
and the token `noru mcp --http` asks for, with the requests it refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from noru.doctor.check import Check
from noru.errors import DataDirError

if TYPE_CHECKING:
    from noru.settings import Settings

__all__ = ["http_checks", "privacy_checks"]


def held_check(home: Path) -> Check:
    """With ``redact_at_rest``: where a capture's images wait for their
    redaction (``paths.held_dir``): in memory, or in the data dir."""
    from noru.paths import held_dir
    from noru.store import files

    held = held_dir(home)
    if held is None:
        return Check(
            "redacted at rest",
            True,
            "images wait for their text on disk (no memory file system: $XDG_RUNTIME_DIR"
            " and /dev/shm are not tmpfs); the filled ones overwrite them",
        )
    if held.exists() and files.private_folder(held, create=False) is None:
        return Check(
            "redacted at rest",
            False,
            f"{held} is not this user's private folder: images wait for their text on disk",
            f"remove {held} (someone else made it, or opened it to others)",
        )
    return Check("redacted at rest", True, f"images wait for their text in memory ({held})")


def privacy_checks(settings: Settings) -> list[Check]:
    """The exclusions in force (a damaged file refuses every capture), the
    redaction policy of the run's ``settings``, and whether agents' reads
    can be recorded (if not, no history is served)."""
    from noru import accesslog, exclusions

    home, config = settings.home, settings.config

    try:
        rules = exclusions.load(home, apps=config.exclude_apps, titles=config.exclude_titles)
    except DataDirError as exc:
        checks = [Check("exclusions", False, str(exc), "fix it, or `noru exclude list` to see")]
    else:
        built_in = len(rules.active) - len(rules.rules)
        found = f"{len(rules.rules)} of yours, {built_in} built in (`noru exclude list`)"
        checks = [Check("exclusions", True, found)]
    policy = settings.policy
    checks.append(
        Check(
            "redaction",
            policy.problem is None,
            policy.describe(),
            "fix or remove it (`noru redact list` says what it holds)" if policy.problem else None,
        )
    )
    if config.redact_at_rest:
        checks.append(held_check(home))
    log = home / accesslog.FILE
    writable = os.access(log, os.W_OK) if log.exists() else os.access(home, os.W_OK | os.X_OK)
    checks.append(
        Check(
            "access log",
            writable,
            f"{log} " + ("writable" if writable else "cannot be written: agents get no history"),
            None if writable else f"give it back to this user (chown $USER {log})",
        )
    )
    return checks


def http_checks(home: Path) -> list[Check]:
    """The token `noru mcp --http` asks of every request, and the requests
    it refused for want of it: any in the last day is something to look at
    (a client of the person's without the token, or someone else)."""
    from datetime import UTC, datetime, timedelta

    from noru import accesslog, httptoken
    from noru.times import format_utc

    found = httptoken.load(home)
    path = httptoken.token_path(home)
    if found.problem is not None:
        checks = [
            Check(
                "http token",
                False,
                f"{found.problem}: `noru mcp --http` refuses every request",
                "`noru token rotate` makes a new one; then give your clients the new token",
            )
        ]
    elif found.value is None:
        checks = [
            Check(
                "http token",
                True,
                "not made yet (`noru token show`, `noru config CLIENT --http` or"
                " `noru mcp --http` makes it)",
            )
        ]
    else:
        checks = [
            Check("http token", True, f"{path} (0600): `noru mcp --http` answers only with it")
        ]
    day_ago = format_utc(datetime.now(UTC) - timedelta(days=1))
    refused = accesslog.refusals(home, since=day_ago)
    if not refused.count:
        checks.append(Check("http refusals", True, "no request refused for want of the token"))
    else:
        checks.append(
            # The guard worked; who asked deserves a look: a warning.
            Check(
                "http refusals",
                True,
                f"{refused.count} requests refused for want of the token, the last at"
                f" {refused.last} ({refused.recent} in the last 24 hours; `noru log` says when)",
                None
                if refused.recent == 0
                else "if it was a client of yours, give it the token (`noru config CLIENT --http"
                " URL`); if not, something else on this machine tried to read your history",
                warn=refused.recent > 0,
            )
        )
    return checks
