"""The store's schema, as named migrations recorded in the database.

Only writers migrate. A reader that finds a migration it does not know
refuses the database (``SchemaTooNew``) instead of misreading it. A reader
may meet a database no writer has upgraded yet: ``select_list`` names the
columns its migrations have added and reads the later ones as NULL. This is
the only module that knows which column came with which migration.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

from noru.errors import SchemaTooNew, StoreError
from noru.times import format_utc

__all__ = [
    "AGENT_FACTS",
    "FTS_TOKENIZE",
    "MIGRATIONS",
    "applied",
    "check_readable",
    "migrate",
    "select_list",
]

# How the search index's text is cut into words (as its migration made it;
# a searcher's own view of the text is indexed alike: Reading._as_seen).
FTS_TOKENIZE = "unicode61 remove_diacritics 2"


def _statements(script: str) -> list[str]:
    # executescript() would COMMIT the migration's transaction first; run the
    # statements one by one inside it instead.
    lines = [line.split("--")[0] for line in script.splitlines()]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]


def _initial(db: sqlite3.Connection) -> None:
    for statement in _statements(
        """
        CREATE TABLE captures (
            seq            INTEGER PRIMARY KEY,
            id             TEXT NOT NULL UNIQUE,
            captured_at    TEXT NOT NULL,      -- RFC 3339 UTC
            captured_ts    REAL NOT NULL,      -- the same, as Unix seconds
            origin         TEXT NOT NULL CHECK (origin IN ('user', 'agent')),
            note           TEXT,
            image_count    INTEGER NOT NULL,
            ocr_state      TEXT NOT NULL DEFAULT 'pending'
                           CHECK (ocr_state IN ('pending', 'done', 'failed')),
            ocr_engine     TEXT,
            ocr_confidence REAL,
            ocr_error      TEXT,
            imported       INTEGER NOT NULL DEFAULT 0,
            delivered_at   TEXT                -- set once by the live handoff
        );
        CREATE INDEX captures_by_time ON captures (captured_ts, seq);
        CREATE INDEX captures_pending_ocr ON captures (ocr_state) WHERE ocr_state = 'pending';

        CREATE TABLE images (
            capture_seq    INTEGER NOT NULL REFERENCES captures (seq) ON DELETE CASCADE,
            position       INTEGER NOT NULL,   -- 1-based, content order
            path           TEXT NOT NULL,      -- relative to the images folder
            width          INTEGER NOT NULL,
            height         INTEGER NOT NULL,
            display_mode   TEXT,               -- measured display mode, e.g. 2560x1600
            display_index  INTEGER,
            display_name   TEXT,
            app_id         TEXT,
            app_name       TEXT,
            window_title   TEXT,
            workspace_hint TEXT,
            ax_text        TEXT,
            ocr_lines      TEXT,               -- JSON [[text, x, y, w, h, conf], ...]
            PRIMARY KEY (capture_seq, position)
        ) WITHOUT ROWID;

        -- One row per capture (rowid = captures.seq): what search reads.
        CREATE VIRTUAL TABLE capture_text USING fts5(
            ocr, ax, note, tokenize = 'unicode61 remove_diacritics 2'
        );
        """
    ):
        db.execute(statement)


def _window_rects(db: sqlite3.Connection) -> None:
    # Where each visible window sat in a display capture (JSON [[x, y, w, h], ...],
    # bottom to top), so OCR reads each window on its own.
    db.execute("ALTER TABLE images ADD COLUMN windows TEXT")


def _ocr_version(db: sqlite3.Connection) -> None:
    # The engine's version beside its name: text read by another version can differ.
    db.execute("ALTER TABLE captures ADD COLUMN ocr_version TEXT")


def _ax_layer(db: sqlite3.Connection) -> None:
    # The accessibility text's lines with their boxes and roles (JSON
    # [[text, x, y, w, h, role], ...], image pixels, reading order), and why
    # there are none or why they are partial, in words. ``ax_text`` stays the
    # lines' text, one per line, as search indexes it.
    db.execute("ALTER TABLE images ADD COLUMN ax_lines TEXT")
    db.execute("ALTER TABLE images ADD COLUMN ax_note TEXT")


def _excluded(db: sqlite3.Connection) -> None:
    # How many windows the person excluded were painted black before the image
    # was kept (their titles and apps are never stored).
    db.execute("ALTER TABLE images ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0")


def _retention(db: sqlite3.Connection) -> None:
    # ``kept``: the person keeps this capture forever (pruning passes it by).
    # ``bytes``: its image files' size, NULL until a writer has measured them.
    # ``doomed``: image files whose rows are gone, still to be removed; rows go
    # first, in one transaction with this list, so a crash between the two
    # leaves neither rows pointing at nothing nor files nobody will remove.
    for statement in _statements(
        """
        ALTER TABLE captures ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE captures ADD COLUMN bytes INTEGER;
        CREATE INDEX captures_unmeasured ON captures (seq) WHERE bytes IS NULL;
        CREATE TABLE doomed (path TEXT PRIMARY KEY) WITHOUT ROWID;
        """
    ):
        db.execute(statement)


def _agent_text(db: sqlite3.Connection) -> None:
    # What agents' searches read: each capture's text as agents get it
    # (redacted), indexed as capture_text is (rowid = captures.seq), made by
    # the person's side under the redaction policy whose fingerprint
    # agent_text_policy holds. ``agent_indexed`` is 1 while a capture's row
    # there is its current text as agents get it; every change of its text
    # sets it back to 0 (noru.redact.index).
    for statement in _statements(
        f"""
        CREATE VIRTUAL TABLE agent_text USING fts5(ocr, ax, note, tokenize = '{FTS_TOKENIZE}');
        CREATE TABLE agent_text_policy (fingerprint TEXT NOT NULL);
        ALTER TABLE captures ADD COLUMN agent_indexed INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX captures_not_indexed ON captures (seq) WHERE agent_indexed = 0;
        """
    ):
        db.execute(statement)


# The source facts agents' filters match, as agents get them (``agent_`` + the name).
AGENT_FACTS = ("app_name", "app_id", "workspace_hint", "display_name")


def _agent_sources(db: sqlite3.Connection) -> None:
    # Each image's source facts as agents get them (redacted, inferred again:
    # noru.redact.facts), written with its capture's row of agents' index and
    # under the same policy; they stand while captures.agent_indexed is 1.
    # Agents' filters and no-match answers read them. The index is made again
    # (its policy forgotten), so every capture gets them.
    for fact in AGENT_FACTS:
        db.execute(f"ALTER TABLE images ADD COLUMN agent_{fact} TEXT")
    db.execute("DELETE FROM agent_text_policy")


def _screen_rect(db: sqlite3.Connection) -> None:
    # Where the image's rectangle sat on the whole screen (root coordinates,
    # JSON [x, y, w, h]; NULL when not known, as for an import): the images
    # of one capture are placed side by side by it, so a line a display's
    # edge cuts is read across the seam (noru.redact.seams).
    db.execute("ALTER TABLE images ADD COLUMN screen_rect TEXT")


def _image_shows(db: sqlite3.Connection) -> None:
    # What the image is: 'window', 'display' or 'region' (NULL: not recorded,
    # as for an import or a capture stored before this), so that a display
    # capture is named as a display, not as the window active on it.
    db.execute("ALTER TABLE images ADD COLUMN shows TEXT")


MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
    ("0001_initial", _initial),
    ("0002_window_rects", _window_rects),
    ("0003_ocr_version", _ocr_version),
    ("0004_ax_layer", _ax_layer),
    ("0005_excluded", _excluded),
    ("0006_retention", _retention),
    ("0007_agent_text", _agent_text),
    ("0008_agent_sources", _agent_sources),
    ("0009_screen_rect", _screen_rect),
    ("0010_image_shows", _image_shows),
]
KNOWN = {name for name, _ in MIGRATIONS}

# The columns readers select, per table, with the migration that added each.
COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "captures": (
        *(
            (column, "0001_initial")
            for column in (
                "seq", "id", "captured_at", "captured_ts", "origin", "note", "image_count",
                "ocr_state", "ocr_engine", "ocr_confidence", "ocr_error", "imported",
                "delivered_at",
            )
        ),
        ("ocr_version", "0003_ocr_version"),
        ("kept", "0006_retention"),
        ("bytes", "0006_retention"),
    ),
    "images": (
        *(
            (column, "0001_initial")
            for column in (
                "capture_seq", "position", "path", "width", "height", "display_mode",
                "display_index", "display_name", "app_id", "app_name", "window_title",
                "workspace_hint", "ax_text", "ocr_lines",
            )
        ),
        ("windows", "0002_window_rects"),
        ("ax_lines", "0004_ax_layer"),
        ("ax_note", "0004_ax_layer"),
        ("excluded", "0005_excluded"),
        ("screen_rect", "0009_screen_rect"),
        ("shows", "0010_image_shows"),
    ),
}  # fmt: skip


def select_list(
    done: set[str], table: str, alias: str, columns: tuple[str, ...] | None = None
) -> str:
    """``alias.col, ...`` for every column of ``table`` (or those of ``columns``);
    ``NULL AS col`` for those whose migration is not in ``done`` (a database no
    writer has upgraded yet)."""
    return ", ".join(
        f"{alias}.{column}" if migration in done else f"NULL AS {column}"
        for column, migration in COLUMNS[table]
        if columns is None or column in columns
    )


def applied(db: sqlite3.Connection) -> set[str]:
    """The migrations recorded in ``db``."""
    return set(_applied(db))


def _applied(db: sqlite3.Connection) -> list[str]:
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'"
    ).fetchone()
    if not exists:
        return []
    return [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY name")]


def check_readable(db: sqlite3.Connection) -> None:
    """Refuse a database this version cannot read (newer, or not Noru's)."""
    applied = _applied(db)
    unknown = [name for name in applied if name not in KNOWN]
    if unknown:
        raise SchemaTooNew(
            "this history was written by a newer Noru "
            f"(unknown migration {unknown[0]}); upgrade Noru to read it"
        )
    if not applied:
        raise StoreError("the database has no Noru schema yet")


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply missing migrations in order, each in its own transaction."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied = set(_applied(db))
    unknown = applied - KNOWN
    if unknown:
        raise SchemaTooNew(
            f"this history was written by a newer Noru (unknown migration {min(unknown)})"
        )
    done: list[str] = []
    for name, step in MIGRATIONS:
        if name in applied:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            step(db)
            db.execute(
                "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                (name, format_utc(datetime.now(UTC))),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        done.append(name)
    return done
