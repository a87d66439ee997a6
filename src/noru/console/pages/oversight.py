"""The person's oversight pages: what agents read (the access log), what
they decided (privacy: access and retention), and deleting a range."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from noru.accesslog import describe_refused
from noru.console.pages.frame import render
from noru.store import CaptureRecord, Row

__all__ = [
    "REDACTION_WORDS",
    "RETENTION_WORDS",
    "delete_range_page",
    "delete_selected_page",
    "log_page",
    "privacy_page",
]


@dataclass(frozen=True)
class Read:
    """One row of the access log as the page shows it; ``refused``: the
    requests `noru mcp --http` refused for want of the token, in words."""

    at: str
    refused: str | None = None
    who: str = ""
    transport: str = ""
    target: str = ""
    arguments: str = ""
    outcome: str = ""
    captures: tuple[tuple[str, str], ...] = ()  # (id, how)
    bytes: str = ""


def _read(entry: dict[str, object]) -> Read:
    refused = describe_refused(dict(entry))
    if refused is not None:
        return Read(str(entry.get("at")), refused=refused)
    served = entry.get("captures")
    captures = tuple(
        (str(c.get("id")), str(c.get("how")))
        for c in (served if isinstance(served, list) else [])
        if isinstance(c, dict)
    )
    args = entry.get("arguments") or {}
    shown = " ".join(f"{k}={v}" for k, v in args.items()) if isinstance(args, dict) else ""
    who = f"{entry.get('client') or 'unknown client'} {entry.get('client_version') or ''}"
    return Read(
        at=str(entry.get("at")),
        who=who.strip(),
        transport=str(entry.get("transport")),
        target=str(entry.get("target")),
        arguments=shown,
        outcome=str(entry.get("outcome")),
        captures=captures,
        bytes=str(entry.get("bytes")),
    )


def log_page(entries: Sequence[dict[str, object]], *, filters: dict[str, str]) -> str:
    """The access log, newest first: who read what, and what left; ``filters``:
    client, capture, since and before as the person gave them."""
    return render(
        "log.html",
        title="Access log",
        here="/log",
        reads=[_read(e) for e in entries],
        filters=filters,
    )


# What each redaction category takes out of what agents get.
REDACTION_WORDS = {
    "secrets": "keys, tokens and passwords",
    "cards": "payment card numbers",
    "emails": "email addresses",
    "phones": "phone numbers",
}

RETENTION_WORDS = {
    "keep_days": ("Keep days", "delete captures older than this; 0: no age limit"),
    "max_disk": ("Disk budget", "images plus database at most this (20GB, 500MB); 0: none"),
    "min_free": ("Leave free", "refuse a capture that would leave the disk less than this"),
}


def privacy_page(
    *,
    rules: Sequence[tuple[str, str, str | None]],
    tested: tuple[str, bool] | None,
    disk: Sequence[str],
    settings: Sequence[tuple[str, str, bool]],
    problem: str | None = None,
    notice: str | None = None,
    redacted: Sequence[str] = (),
    ask_off: tuple[list[str], list[str]] | None = None,
    engines: Sequence[tuple[str, str, bool, bool]] = (),
    ocr_problem: str | None = None,
) -> str:
    """Exclusions (add, remove, test a title), redaction (its categories:
    ``redacted`` now; ``ask_off``: the ones chosen and the ones that would be
    turned off, to confirm), retention (its settings, disk use, prune) and
    the OCR engine (``engines``: name, what it is or why it cannot run,
    whether it can, whether it is chosen; ``ocr_problem``: why a choice was
    refused). ``settings``: (key, value, whether config.toml sets it).

    ``rules``: (what, where it comes from, the form value that removes it or
    None when it is config.toml's)."""
    return render(
        "privacy.html",
        title="Privacy",
        here="/privacy",
        notice=notice,
        rules=rules,
        tested=tested,
        disk=disk,
        settings=[(key, value, mine, *RETENTION_WORDS[key]) for key, value, mine in settings],
        problem=problem,
        categories=[(k, words, k in redacted) for k, words in REDACTION_WORDS.items()],
        ask_off=ask_off,
        off_words=" and ".join(REDACTION_WORDS[c] for c in ask_off[1]) if ask_off else "",
        engines=engines,
        ocr_problem=ocr_problem,
    )


def delete_range_page(
    *, since: str, before: str, count: int | None, preview: Sequence[Row] = ()
) -> str:
    """A range to count, then its ``count`` and the newest of its captures
    (``preview``) above the confirmation."""
    return render(
        "delete_range.html",
        title="Delete a time range",
        here="/delete-range",
        since=since,
        before=before,
        count=count,
        preview=preview,
    )


def delete_selected_page(captures: Sequence[CaptureRecord], *, ids: Sequence[str]) -> str:
    """The captures ticked on the timeline, shown before they are deleted."""
    return render(
        "delete_selected.html", title="Delete the selected captures", preview=captures, ids=ids
    )
