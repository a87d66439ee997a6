"""The console's pages, rendered on the server as plain HTML.

Every value from history (titles, app names, OCR and accessibility text,
notes) is escaped here and nowhere else. Images and pages are addressed by
capture id only. The layout is one stylesheet and one small script
(keyboard moves through the timeline), both served by Noru itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from html import escape
from urllib.parse import urlencode

from noru.access import AccessState, history_decision, live_decision
from noru.accesslog import describe_refused
from noru.geometry import Rect
from noru.redact.apply import AgentsGet
from noru.store import AxLine, CaptureRecord, ImageRecord, OcrLine, Row, SearchHit, folded_words

__all__ = [
    "capture_page",
    "delete_range_page",
    "log_page",
    "message_page",
    "privacy_page",
    "search_page",
    "timeline_page",
]


def _local(moment: datetime) -> datetime:
    return moment.astimezone()


def _source_words(row: Row | CaptureRecord) -> str:
    source = row.source if isinstance(row, Row) else row.images[0].source
    parts = [source.app_name or source.app_id, source.workspace_hint]
    if source.display_index is not None:
        parts.append(f"display {source.display_index}")
    return " · ".join(p for p in parts if p) or "unknown source"


def _alt(row: Row) -> str:
    source = row.source
    what = source.window_title or source.app_name or "the screen"
    return f"Capture of {what}, {_local(row.captured_at):%Y-%m-%d %H:%M}"


def state_bar(state: AccessState, app_running: bool, pending: int) -> str:
    live = live_decision(state)
    history = history_decision(state)
    if state.revoked:
        mode = "revoked"
    elif state.paused:
        mode = "paused"
    elif state.authorized:
        mode = "allowed"
    else:
        mode = "not allowed yet"
    return (
        '<div class="state" role="status">'
        f'<span class="mode mode-{escape(mode.split()[0])}">Agents: {escape(mode)}</span>'
        f"<span>Live looks: {'yes' if live.allowed else 'no'} ({escape(live.reason)})</span>"
        f"<span>History: {'readable' if history.allowed else 'blocked'}</span>"
        f"<span>App: {'running' if app_running else 'not running'}</span>"
        f"<span>Text waiting: {pending}</span>"
        "</div>"
    )


def _controls(state: AccessState, back: str) -> str:
    pause = (
        ("resume", "Resume Agent Perception")
        if state.paused
        else ("pause", "Pause Agent Perception")
    )
    buttons = [("allow", "Allow Agent Observations"), pause, ("revoke", "Revoke Agent Access")]
    forms = "".join(
        f'<form method="post" action="/control"><input type="hidden" name="back" '
        f'value="{escape(back)}"><button name="action" value="{action}">{label}</button></form>'
        for action, label in buttons
    )
    return f'<nav class="controls" aria-label="Agent access">{forms}</nav>'


def _page(title: str, body: str, *, top: str = "") -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · Noru</title>"
        '<link rel="stylesheet" href="/static/console.css">'
        '<script src="/static/console.js" defer></script></head><body>'
        '<header><a class="brand" href="/">Noru</a>'
        '<nav class="pages"><a href="/">Timeline</a> <a href="/log">Agent reads</a> '
        '<a href="/privacy">Privacy</a> <a href="/delete-range">Delete a range</a></nav>'
        '<form class="search" method="get" action="/search" role="search">'
        '<input name="q" type="search" placeholder="Search your screens" aria-label="Search">'
        "</form></header>"
        f"{top}<main>{body}</main></body></html>"
    )


def message_page(title: str, text: str) -> str:
    return _page(title, f"<h1>{escape(title)}</h1><p>{escape(text)}</p>")


def _card(row: Row) -> str:
    note = f'<p class="note">{escape(row.note)}</p>' if row.note else ""
    origin = "taken by an agent" if row.origin == "agent" else "yours"
    return (
        f'<li><a class="card" href="/capture/{escape(row.id)}" data-capture="{escape(row.id)}">'
        f'<img src="/thumb/{escape(row.id)}" alt="{escape(_alt(row))}" loading="lazy" '
        'width="240" height="150">'
        f'<span class="when">{_local(row.captured_at):%H:%M:%S}</span>'
        f'<span class="src">{escape(_source_words(row))}</span>'
        f'<span class="origin origin-{escape(row.origin)}">{origin}</span>{note}</a></li>'
    )


def timeline_page(
    rows: Sequence[Row],
    *,
    state: AccessState,
    app_running: bool,
    pending: int,
    filters: dict[str, str],
    next_cursor: str | None,
    choices: dict[str, list[str]],
) -> str:
    """Newest first, grouped by day and hour; ``choices``: the apps,
    workspaces and displays history holds, for the filters."""
    groups: list[str] = []
    current: tuple[str, str] | None = None
    items: list[str] = []

    def close() -> None:
        if current is not None and items:
            day, hour = current
            groups.append(
                f"<section><h2><time>{escape(day)}</time> <span>{escape(hour)}:00</span></h2>"
                f'<ul class="grid">{"".join(items)}</ul></section>'
            )

    for row in rows:
        moment = _local(row.captured_at)
        key = (f"{moment:%A %Y-%m-%d}", f"{moment:%H}")
        if key != current:
            close()
            current, items = key, []
        items.append(_card(row))
    close()

    def choose(name: str, label: str, values: Iterable[tuple[str, str]]) -> str:
        chosen = filters.get(name, "")
        options = "".join(
            f'<option value="{escape(value)}"{" selected" if chosen == value else ""}>'
            f"{escape(shown)}</option>"
            for value, shown in values
        )
        return f'<label>{label} <select name="{name}">{options}</select></label>'

    def any_of(values: Iterable[str]) -> list[tuple[str, str]]:
        return [("", "any"), *((v, v) for v in values)]

    displays = [("", "any")] + [(d.split(" ", 1)[0], d) for d in choices.get("displays", ())]
    day = escape(filters.get("day", ""))
    picker = (
        '<form class="filters" method="get" action="/">'
        + choose("app", "App", any_of(choices.get("apps", ())))
        + choose("workspace", "Workspace", any_of(choices.get("workspaces", ())))
        + choose("display", "Display", displays)
        + choose("origin", "By", (("", "anyone"), ("user", "you"), ("agent", "agents")))
        + f'<label>Day <input type="date" name="day" value="{day}"></label>'
        "<button>Show</button></form>"
    )
    more = ""
    if next_cursor:
        query = urlencode({**{k: v for k, v in filters.items() if v}, "cursor": next_cursor})
        more = f'<p class="more"><a href="/?{escape(query)}" rel="next">Older captures</a></p>'
    body = (
        "".join(groups)
        or "<p>No captures here yet: take one with the shortcut or `noru capture`.</p>"
    )
    top = state_bar(state, app_running, pending) + _controls(state, "/")
    return _page("Timeline", f"<h1>Timeline</h1>{picker}{body}{more}", top=top)


def _highlight(snippet: str) -> str:
    """A snippet with its «hits» marked, escaped."""
    out = escape(snippet)
    return out.replace("«", "<mark>").replace("»", "</mark>")


def search_page(query: str, hits: Sequence[SearchHit], *, next_cursor: str | None) -> str:
    items = "".join(
        f'<li><a class="hit" href="/capture/{escape(h.row.id)}?q={escape(query)}">'
        f'<img src="/thumb/{escape(h.row.id)}" alt="{escape(_alt(h.row))}" loading="lazy" '
        'width="240" height="150">'
        f'<span class="when">{_local(h.row.captured_at):%Y-%m-%d %H:%M}</span>'
        f'<span class="src">{escape(_source_words(h.row))}</span>'
        f'<span class="layer">{escape(h.layer)}</span>'
        f'<q class="snippet">{_highlight(h.snippet)}</q></a></li>'
        for h in hits
    )
    more = ""
    if next_cursor:
        query_string = urlencode({"q": query, "cursor": next_cursor})
        more = f'<p class="more"><a href="/search?{escape(query_string)}">More</a></p>'
    found = (
        f'<ul class="hits">{items}</ul>' if hits else f"<p>Nothing matches “{escape(query)}”.</p>"
    )
    return _page(f"Search: {query}", f"<h1>Search: {escape(query)}</h1>{found}{more}")


def _boxes(image: ImageRecord, wanted: set[str], redacted: Sequence[Rect] = ()) -> tuple[str, int]:
    """The image's lines as an SVG over it (no inline styles: the page's
    policy forbids them), and how many hold one of the ``wanted`` words
    (boxed as hits). OCR lines where OCR has run, else the accessibility
    lines that have boxes; and the boxes ``redacted`` for agents, marked."""
    lines: Sequence[OcrLine | AxLine] = image.ocr_lines or image.ax_lines
    rects, hits = [], 0
    for line in lines:
        x, y, w, h = line.box
        hit = bool(wanted & folded_words(line.text))
        hits += hit
        mark = ' class="hit"' if hit else ""
        rects.append(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}"{mark}>'
            f"<title>{escape(line.text)}</title></rect>"
        )
    for x, y, w, h in redacted:
        rects.append(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" class="redacted">'
            "<title>redacted in what agents get</title></rect>"
        )
    svg = (
        f'<svg class="boxes" viewBox="0 0 {image.width} {image.height}" '
        f'preserveAspectRatio="none" aria-hidden="true">{"".join(rects)}</svg>'
    )
    return svg, hits


def capture_page(
    record: CaptureRecord,
    *,
    readers: Sequence[str],
    query: str = "",
    agents_get: AgentsGet | None = None,
) -> str:
    """The viewer: ``query`` (the search it was opened from) boxes the lines
    that hold its words; ``agents_get``, what redaction changes for agents:
    its boxes are marked on the image and its lines listed as they get them."""
    wanted = folded_words(query)
    images = []
    for image in record.images:
        marked = agents_get.boxes[image.position - 1] if agents_get and agents_get.boxes else ()
        boxes, hits = _boxes(image, wanted, marked)
        found = ""
        if wanted:
            found = (
                f" · {hits} line{'s' if hits != 1 else ''} with “{escape(query)}” boxed"
                if hits
                else f" · “{escape(query)}” is not in a line of this image"
            )
        images.append(
            f'<figure class="shot"><div class="frame">'
            f'<img src="/image/{escape(record.id)}/{image.position}" '
            f'alt="{escape(_alt_record(record, image.position))}" '
            f'width="{image.width}" height="{image.height}">{boxes}</div>'
            f"<figcaption>{image.width}x{image.height} px · {escape(_facts(image))}{found} "
            '<button type="button" class="zoom" aria-pressed="false">Actual size</button>'
            '</figcaption><output class="line" aria-live="polite"></output></figure>'
        )
    ocr = record.ocr_text
    ax = record.ax_text
    texts = _text_block("On-screen text (OCR)", ocr, "ocr", record.ocr_state) + _text_block(
        "Accessibility text", ax, "ax", "done" if ax else "none"
    )
    if agents_get is not None:
        texts += _agents_get(agents_get)
    note = escape(record.note or "")
    read_by = (
        "<ul>" + "".join(f"<li>{escape(r)}</li>" for r in readers) + "</ul>"
        if readers
        else "<p>No agent has read this capture.</p>"
    )
    body = (
        f"<h1>{_local(record.captured_at):%Y-%m-%d %H:%M:%S}</h1>"
        f'<p class="src">{escape(_source_words(record))} · '
        f"{'taken by an agent' if record.origin == 'agent' else 'taken by you'}"
        f"{' · kept forever' if record.kept else ''}</p>"
        + "".join(images)
        + texts
        + '<section><h2>Note</h2><form method="post" action="'
        f'/capture/{escape(record.id)}/note"><textarea name="note" rows="3" aria-label="Note">'
        f"{note}</textarea><button>Save note</button></form></section>"
        + _provenance(record)
        + f"<section><h2>Read by agents</h2>{read_by}</section>"
        f'<section><h2>Delete</h2><form method="post" action="/capture/{escape(record.id)}/delete">'
        '<label><input type="checkbox" name="confirm" value="yes" required> Delete this capture,'
        " its text and its files</label> <button>Delete</button></form></section>"
    )
    return _page(f"Capture {record.id}", body)


def _agents_get(seen: AgentsGet) -> str:
    if seen.held:
        body = f"<p>Agents get none of this capture's pixels or text yet: {escape(seen.held)}.</p>"
    elif seen.summary:
        body = (
            f"<p>Redacted for agents ({escape(seen.summary)}): the boxes marked on the image"
            " are filled, and they get these lines as:</p>"
            f"<pre>{escape(chr(10).join(seen.lines))}</pre>"
        )
    else:
        body = "<p>Nothing redacted: agents get this capture as taken.</p>"
    return f"<section><h2>What agents get</h2>{body}</section>"


def _provenance(record: CaptureRecord) -> str:
    """Where the capture came from, in plain words: what was measured at the
    capture, and what was inferred (the workspace, from the title)."""
    facts = [
        ("Taken", f"{'by an agent' if record.origin == 'agent' else 'by you'}, "
         f"{_local(record.captured_at):%Y-%m-%d %H:%M:%S %Z}"
         + (" (imported from a file)" if record.imported else "")),
    ]  # fmt: skip
    for image in record.images:
        source, at = image.source, f" (image {image.position})" if len(record.images) > 1 else ""
        if source.app_name or source.app_id:
            facts.append((f"App{at}", f"{source.app_name or source.app_id}, as the window says"))
        if source.window_title:
            facts.append((f"Window{at}", f"“{source.window_title}”, its title at the capture"))
        if source.display_label:
            mode = f", {image.display_mode}" if image.display_mode else ""
            facts.append((f"Display{at}", f"{source.display_label}{mode}"))
        if source.workspace_hint:
            facts.append(
                (
                    f"Workspace{at}",
                    f"{source.workspace_hint}, inferred from the title; may be wrong",
                )
            )
        if image.excluded:
            facts.append((f"Hidden{at}", f"{image.excluded} excluded window(s) painted black"))
    if record.ocr_state == "done":
        engine = " ".join(v for v in (record.ocr_engine, record.ocr_version) if v) or "OCR"
        sure = f", confidence {record.ocr_confidence:.2f}" if record.ocr_confidence else ""
        facts.append(("Text", f"read by {engine}{sure}"))
    elif record.ocr_state == "failed":
        facts.append(("Text", f"could not be read: {record.ocr_error or 'unknown error'}"))
    else:
        facts.append(("Text", "not read yet (the app reads it)"))
    if record.ax_note:
        facts.append(("Accessibility", record.ax_note))
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    return f'<section><h2>Where it came from</h2><dl class="facts">{rows}</dl></section>'


def _alt_record(record: CaptureRecord, position: int) -> str:
    source = record.images[position - 1].source
    what = source.window_title or source.app_name or "the screen"
    return f"Capture of {what}, {_local(record.captured_at):%Y-%m-%d %H:%M}"


def _facts(image: ImageRecord) -> str:
    source = image.source
    facts = [
        source.window_title,
        source.app_name,
        f"display {source.display_index}" if source.display_index else None,
    ]
    return " · ".join(f for f in facts if f) or "no source facts"


def _text_block(title: str, text: str, layer: str, state: str) -> str:
    if not text:
        why = {"pending": "not read yet", "failed": "could not be read"}.get(state, "none")
        return f"<section><h2>{escape(title)}</h2><p>{why}</p></section>"
    return (
        f'<section><h2>{escape(title)}</h2><button type="button" class="copy" '
        f'data-copy="text-{layer}">Copy</button>'
        f'<pre id="text-{layer}">{escape(text)}</pre></section>'
    )


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
    return _page("Access log", f"<h1>Agent reads</h1>{picker}{table}")


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
    return _page("Privacy", body)


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
    return _page("Delete a time range", f"<h1>Delete a time range</h1>{ask}{confirm}")
