"""The person's oversight pages: what agents read (the access log), what
they decided (privacy: access and retention), and deleting a range."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from noru.accesslog import describe_refused
from noru.console.pages.frame import page

__all__ = ["RETENTION_WORDS", "delete_range_page", "log_page", "privacy_page"]


def log_page(entries: Sequence[dict[str, object]], *, filters: dict[str, str]) -> str:
    """The access log, newest first: who read what, and what left; ``filters``:
    client, capture, since and before as the person gave them."""
    rows = []
    for entry in entries:
        refused = describe_refused(dict(entry))
        if refused is not None:  # requests `noru mcp --http` refused for want of the token
            rows.append(
                f"<tr><td>{escape(str(entry.get('at')))}</td><td>refused (http)</td>"
                f'<td colspan="4">{escape(refused)}</td></tr>'
            )
            continue
        served = entry.get("captures")
        caps = ", ".join(
            f'<a href="/capture/{escape(str(c.get("id")))}">{escape(str(c.get("id")))}</a>'
            f" ({escape(str(c.get('how')))})"
            for c in (served if isinstance(served, list) else [])
            if isinstance(c, dict)
        )
        args = entry.get("arguments") or {}
        shown = " ".join(f"{k}={v}" for k, v in args.items()) if isinstance(args, dict) else ""
        who = f"{entry.get('client') or 'unknown client'} {entry.get('client_version') or ''}"
        rows.append(
            f"<tr><td>{escape(str(entry.get('at')))}</td><td>{escape(who.strip())}"
            f" ({escape(str(entry.get('transport')))})</td>"
            f"<td>{escape(str(entry.get('target')))} {escape(shown)}</td>"
            f"<td>{escape(str(entry.get('outcome')))}</td><td>{caps}</td>"
            f"<td>{escape(str(entry.get('bytes')))}</td></tr>"
        )
    table = (
        "<table><thead><tr><th>When</th><th>Client</th><th>Read</th><th>Outcome</th>"
        f"<th>Captures</th><th>Bytes</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        if rows
        else "<p>No agent has read anything yet.</p>"
    )

    def field(name: str, label: str, kind: str = "text") -> str:
        value = escape(filters.get(name, ""))
        return f'<label>{label} <input type="{kind}" name="{name}" value="{value}"></label>'

    picker = (
        '<form class="filters" method="get" action="/log">'
        + field("client", "Client")
        + field("capture", "Capture")
        + field("since", "From", "datetime-local")
        + field("before", "to", "datetime-local")
        + "<button>Show</button></form>"
    )
    return page("Access log", f"<h1>Agent reads</h1>{picker}{table}")


def privacy_page(
    *,
    rules: Sequence[tuple[str, str, str | None]],
    tested: tuple[str, bool] | None,
    disk: Sequence[str],
    settings: Sequence[tuple[str, str, bool]],
    problem: str | None = None,
) -> str:
    """Exclusions (add, remove, test a title) and retention (its settings,
    disk use, prune). ``settings``: (key, value, whether config.toml sets it).

    ``rules``: (what, where it comes from, the form value that removes it or
    None when it is config.toml's)."""
    items = "".join(
        f"<li>{escape(what)} <span class=src>({escape(where)})</span>"
        + (
            '<form method="post" action="/exclusions/remove" class="inline">'
            f'<button name="rule" value="{escape(remove)}">Remove</button></form>'
            if remove
            else ""
        )
        + "</li>"
        for what, where, remove in rules
    )
    said = f'<p class="problem" role="alert">{escape(problem)}</p>' if problem else ""
    result = ""
    if tested is not None:
        title, excluded = tested
        result = (
            f"<p>A window titled “{escape(title)}” "
            + ("<strong>is excluded</strong>" if excluded else "is not excluded")
            + ".</p>"
        )
    body = (
        "<h1>Privacy</h1><section><h2>Windows never captured</h2>"
        f"{said}<ul>{items}</ul>"
        '<form method="post" action="/exclusions/add">'
        '<label>Kind <select name="kind"><option value="app">app</option>'
        '<option value="title">window title</option></select></label> '
        '<label>Pattern <input name="pattern" required '
        'placeholder="KeePassXC, *bank*, re:..."></label> '
        "<button>Exclude</button></form>"
        '<form method="get" action="/privacy"><label>Test a title '
        '<input name="title" required></label> <button>Test</button></form>'
        f"{result}</section>"
        "<section><h2>History kept</h2><ul>"
        + "".join(f"<li>{escape(line)}</li>" for line in disk)
        + "</ul>"
        + _retention_form(settings)
        + '<form method="post" action="/prune"><button>Prune now</button></form></section>'
    )
    return page("Privacy", body)


RETENTION_WORDS = {
    "keep_days": ("Keep days", "delete captures older than this; 0: no age limit"),
    "max_disk": ("Disk budget", "images plus database at most this (20GB, 500MB); 0: none"),
    "min_free": ("Leave free", "refuse a capture that would leave the disk less than this"),
}


def _retention_form(settings: Sequence[tuple[str, str, bool]]) -> str:
    fields = "".join(
        f'<label>{RETENTION_WORDS[key][0]} <input name="{key}" value="{escape(value)}" '
        f'required size="8" aria-describedby="about-{key}"></label>'
        f'<span class="src" id="about-{key}">{escape(RETENTION_WORDS[key][1])}'
        f"{'' if mine else ' (default)'}</span>"
        for key, value, mine in settings
    )
    return (
        f'<form method="post" action="/retention" class="settings">{fields}'
        "<button>Save</button></form>"
        "<p>Saved in config.toml (only these lines change). The app applies them at"
        " its next capture or within 10 minutes; Prune now applies them at once.</p>"
    )


def delete_range_page(*, since: str, before: str, count: int | None) -> str:
    ask = (
        '<form method="get" action="/delete-range">'
        f'<label>From <input type="datetime-local" name="since" value="{escape(since)}" '
        "required></label> "
        f'<label>to <input type="datetime-local" name="before" value="{escape(before)}" '
        "required></label> <button>Count</button></form>"
    )
    confirm = ""
    if count is not None:
        confirm = f"<p>{count} capture{'s' if count != 1 else ''} in that range.</p>" + (
            '<form method="post" action="/delete-range">'
            f'<input type="hidden" name="since" value="{escape(since)}">'
            f'<input type="hidden" name="before" value="{escape(before)}">'
            f'<label><input type="checkbox" name="confirm" value="{count}" required> '
            + (
                "Delete it, its text and its files</label> "
                if count == 1
                else f"Delete these {count}, their text and their files</label> "
            )
            + "<button>Delete</button></form>"
            if count
            else ""
        )
    return page("Delete a time range", f"<h1>Delete a time range</h1>{ask}{confirm}")
