"""The data dir and what it holds: its mode, the access state, the history
(readable, its disk use against its budget) and agents' search index; the
privacy checks of the data dir are run from here."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from noru.config import Config
from noru.doctor.check import Check
from noru.doctor.privacy import http_checks, privacy_checks
from noru.errors import StoreError
from noru.paths import db_path
from noru.sizes import format_size

if TYPE_CHECKING:
    from noru.redact import Policy
    from noru.settings import Settings
    from noru.store import Reader
    from noru.store.retention import Usage

__all__ = ["data_dir_checks"]


def data_dir_checks(settings: Settings) -> list[Check]:
    """The data dir's checks, from the run's ``settings`` (read once)."""
    home = settings.home
    if not home.exists():
        return [Check("data dir", True, f"{home} (not created yet; made 0700 on first capture)")]
    if not home.is_dir():
        return [
            Check(
                "data dir",
                False,
                f"{home} is a file, not a folder",
                "point NORU_HOME at a folder (Noru creates it), or move the file away",
            )
        ]
    mode = stat.S_IMODE(home.stat().st_mode)
    checks = [
        Check(
            "data dir",
            mode & 0o077 == 0,
            f"{home} mode {mode:04o}",
            None if mode & 0o077 == 0 else f"chmod 700 {home}",
        )
    ]
    if not os.access(home, os.W_OK | os.X_OK):
        checks.append(
            Check(
                "data dir writable",
                False,
                f"{home} is not writable by this user",
                f"give it back to this user (chown $USER {home}) or point NORU_HOME elsewhere",
            )
        )
    checks += privacy_checks(settings)
    checks += http_checks(home)
    state = settings.access
    checks.append(
        Check(
            "access state",
            state.damaged is None,
            state.damaged or "readable",
            "run `noru allow` or `noru revoke` to rewrite it" if state.damaged else None,
        )
    )
    if db_path(home).exists():
        from noru.store import Reader

        try:
            reader = Reader.open(home)
        except StoreError as exc:
            checks.append(
                Check(
                    "history",
                    False,
                    str(exc),
                    "move noru.sqlite3 aside and restart the app; images are kept",
                )
            )
        else:
            with reader:
                count = reader.count()
                found = f"{count} capture{'' if count == 1 else 's'}"
                checks.append(Check("history", True, found))
                checks.append(disk_check(reader.usage(), settings.config))
                checks += agents_index_check(settings.policy, reader)
    return checks


def agents_index_check(policy: Policy, reader: Reader) -> list[Check]:
    """How much of history agents' search index, made under ``policy``,
    holds (``noru.redact.index``): a capture it lacks is found the slow way,
    whose time a guess can read."""
    from noru.redact import index

    if not policy.on or policy.problem:
        return []
    waiting = reader.agents_waiting(index.fingerprint(policy))
    if not waiting:
        return [Check("agents' search index", True, "holds every capture as agents get it")]
    return [
        Check(
            "agents' search index",
            True,
            f"{waiting} of {reader.count()} capture{'' if reader.count() == 1 else 's'}"
            " not indexed yet: the app indexes them"
            " at its start or its next capture (found all the same, more slowly)",
        )
    ]


def disk_check(usage: Usage, config: Config) -> Check:
    """The history's disk use against its budget, and the disk's free space:
    nearing either is said while captures still work (a nearly full disk
    warns); a FAIL means they stop."""
    budget = config.max_disk
    found = f"{format_size(usage.total)} of " + (
        f"{format_size(budget)} (max_disk)" if budget else "no budget (max_disk = 0)"
    )
    if usage.free is not None:
        found += f"; {format_size(usage.free)} free on its disk"
    state = usage.disk(config.min_free)
    if state == "full":
        return Check(
            "history disk",
            False,
            found + f", below min_free ({format_size(config.min_free)}): captures are refused",
            "free space on that disk, or lower max_disk (older captures go) and `noru prune`",
        )
    notes = []
    if usage.near(budget):
        notes.append("nearly at its budget: the oldest captures are pruned as new ones come")
    if state == "nearly full":
        notes.append("the disk is nearly full")
    # Near the budget is pruning at work; a nearly full disk is a warning.
    return Check(
        "history disk",
        True,
        found + "".join(f"; {n}" for n in notes),
        "free space on that disk before captures are refused" if state == "nearly full" else None,
        warn=state == "nearly full",
    )
