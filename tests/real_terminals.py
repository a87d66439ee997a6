"""Real terminals showing text we give them, with the ground truth of what they show.

On an ``XServer`` from tests/xserver.py these start a real terminal that
prints a file with ``cat``, wait until its window is mapped and drawn, and
hand back a ``Client`` (tests/real_clients.py) whose ``lines`` are the
terminal's rows as they show: no prompt, the cursor hidden, lines that
scrolled away gone. Its menu bar or toolbar, when it has one, is in
``Client.chrome``, not in ``lines``.

- ``open_xterm``: xterm in its default bitmap font ("fixed", 6x13), another
  bitmap font of xfonts-base (``bitmap="9x15"``) or an Xft font
  (``font="DejaVu Sans Mono", size=9``). Long lines wrap as xterm wraps them
  (``xterm_screen`` computes that).
- ``open_terminal``: rxvt-unicode, st, xfce4-terminal, Konsole, kitty or
  Alacritty in a fontconfig family at a point size. Lines must fit: nothing
  wraps, unless asked (``wraps``: long lines wrap as xterm wraps them, and
  the terminal must print at exactly the size asked).

What both take:

- lines as plain text, or as ``Shown`` (tests/terminal_shown.py, which
  this module re-exports): the text and the same text with the SGR escapes
  a real tool prints (git's red and green, gcc's bold); the truth is the
  plain text;
- a ``theme`` (``PALETTES``): background, foreground and the 16-colour
  palette, printed as escape sequences (OSC 11, 10 and 4) before the text,
  so ANSI colours look as they do for people who chose that theme; each
  terminal is also configured with the same colours where it has a way
  (Konsole ignores OSC 4: its palette comes from a colour scheme);
- ``chrome``: ``"none"`` hides what a terminal can hide (scrollbar, menu
  bar), ``"default"`` leaves the window as a new user sees it (urxvt's
  scrollbar, xfce4-terminal's and Konsole's menu bar, Konsole's toolbar);
- ``dpi``: a HiDPI screen (192: twice the pixels), by each terminal's own
  means: Xft.dpi for xterm and urxvt (``-xrm``), a fontconfig ``dpi`` for
  st, ``GDK_SCALE`` for xfce4-terminal, ``QT_SCALE_FACTOR`` for Konsole,
  ``WINIT_X11_SCALE_FACTOR`` for Alacritty, and the Xft.dpi X resource
  (``xrdb``, set while kitty runs and put back once it is closed) for kitty,
  which reads only that;
- ``highlight``: one line in reverse video across the width (a selection,
  a status line);
- ``own_palette``: the theme's background and text colour only, the
  terminal keeping its own 16 colours.

Each terminal waits until it has the size asked before it prints, and
reports the size it printed at: a terminal that did not take it fails to
open rather than show rows the truth does not say (one a column narrower,
as Konsole can be at some sizes, is taken when every line still fits). Every terminal is
stopped by its own pid when the client is closed, also when a start fails,
and its files (the text, its config, its HOME) live in a temporary folder
removed then. ``missing(kind)`` says what to install when one is not here
(``missing_any`` for any program, application or terminal).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from tests import real_clients
from tests.parts import require
from tests.processes import START_TIMEOUT
from tests.real_clients import (
    Client,
    Kind,
    TerminalKind,
    find_window,
    find_window_of,
    launch,
    log_tail,
    move_window,
    new_title,
    start_process,
)
from tests.terminal_shown import (
    PALETTES,
    Palette,
    Shown,
    TerminalTheme,
    cell_width,
    xterm_screen,
)
from tests.xserver import XServer, _title_pattern

__all__ = [
    "CHROME",
    "KONSOLE_MENU",
    "KONSOLE_TOOLBAR",
    "LOG",
    "PALETTES",
    "TERMINALS",
    "XFCE_MENU",
    "Chrome",
    "Palette",
    "Shown",
    "Terminal",
    "TerminalKind",
    "TerminalTheme",
    "cell_width",
    "missing",
    "missing_any",
    "open_terminal",
    "open_xterm",
    "xterm_screen",
]

Terminal = Literal["urxvt", "st", "xfce4-terminal", "konsole", "kitty", "alacritty"]
# Each terminal's program, and the Debian package that has it.
TERMINALS: dict[Terminal, tuple[str, str]] = {
    "urxvt": ("urxvt", "rxvt-unicode"),
    "st": ("stterm", "stterm"),
    "xfce4-terminal": ("xfce4-terminal", "xfce4-terminal"),
    "konsole": ("konsole", "konsole"),
    "kitty": ("kitty", "kitty"),
    "alacritty": ("alacritty", "alacritty"),
}
Chrome = Literal["none", "default"]

# The words of the terminals' own widgets (Konsole 22.12, xfce4-terminal 1.0),
# as they stand in a row: text in the window that is no row of the terminal.
# A program's log, 28 lines alike in shape: a grid the engines read row by row.
LOG = [
    f"2026-11-{d:02d} 10:{d:02d}:07.495 INFO noru.store.reader handler {d * 37} ok"
    for d in range(1, 29)
]
KONSOLE_MENU = "File Edit View Bookmarks Plugins Settings Help"
KONSOLE_TOOLBAR = "New Tab Split View Copy Paste Find"
XFCE_MENU = "File Edit View Terminal Tabs Help"
CHROME = frozenset({KONSOLE_MENU, KONSOLE_TOOLBAR, XFCE_MENU})

# SGR colours words are drawn in when a terminal is asked for ``coloured``.
_COLOURS = (31, 32, 33, 34, 35, 36, 91, 94)
# X core fonts of xfonts-base xterm can be given (``bitmap``), by their file.
_BITMAPS = Path("/usr/share/fonts/X11/misc")


def missing(kind: TerminalKind) -> str | None:
    """What to install for the terminal ``kind`` to run here, or None when it can."""
    if kind == "xterm":
        if shutil.which("xterm") is None:
            return "xterm is not installed (apt: xterm)"
        # The default "fixed" font lives in xfonts-base; without it xterm exits.
        if not (_BITMAPS / "6x13-ISO8859-1.pcf.gz").exists():
            return "xterm's default font is not installed (apt: xfonts-base)"
        return None
    program, package = TERMINALS[kind]
    if shutil.which(program) is None:
        return f"{kind} is not installed (apt: {package})"
    return None


# --- what is printed --------------------------------------------------------------


def _shown(line: str | Shown) -> Shown:
    return line if isinstance(line, Shown) else Shown.text(line)


def _printed(
    lines: Sequence[Shown],
    *,
    palette: Palette,
    columns: int,
    coloured: bool,
    highlight: int | None,
) -> str:
    """The file a terminal ``cat``s: the cursor hidden (DECTCEM), the theme's
    escapes, then each line as the tool printed it."""
    out = []
    for number, line in enumerate(lines):
        if number == highlight:
            # To the last column but one: a terminal a column narrower than
            # asked (Konsole, at some sizes) shows it on one row all the same.
            pad = " " * max(0, columns - 1 - line.width)
            out.append(f"\033[7m{line.plain}{pad}\033[0m")
        else:
            out.append(_coloured(line.plain) if coloured else line.styled)
    return "\033[?25l" + palette.escapes() + "".join(f"{line}\n" for line in out)


def _coloured(line: str) -> str:
    """``line`` with every other word in an SGR colour (the text stays the same)."""
    words = line.split(" ")
    return " ".join(
        f"\033[{_COLOURS[i // 2 % len(_COLOURS)]}m{word}\033[0m" if i % 2 and word else word
        for i, word in enumerate(words)
    )


# --- printing and waiting -----------------------------------------------------------

# Run in the terminal: wait (10 s at most) until its rows and columns are the
# ones asked, so nothing is printed into a window about to change size; print
# the file; write the size it printed at where ``ready`` looks for it; then
# print what is appended to a third file (``Client.print_line``).
_SCRIPT = (
    'n=0; while [ "$(stty size)" != "$4" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done; '
    'cat "$1"; stty size > "$2.part"; mv "$2.part" "$2"; exec tail -n 0 -f "$3"'
)


def _script(folder: Path, *, rows: int, columns: int) -> list[str]:
    """``sh -c`` running ``_SCRIPT`` on the client's files."""
    files = [str(folder / name) for name in ("text", "shown", "more")]
    return ["sh", "-c", _SCRIPT, "sh", *files, f"{rows} {columns}"]


def _wait_printed(
    process: subprocess.Popen[str],
    folder: Path,
    log: Path,
    *,
    what: str,
    rows: int,
    columns: int,
    widest: int | None = None,
) -> None:
    """Until the terminal has printed its text; fails when it printed at
    another size than ``rows`` x ``columns`` (its rows would not be the
    truth's). With ``widest`` (the widest line's cells), fewer columns are
    fine as long as that line still fits: the rows are the same."""
    shown = folder / "shown"
    deadline = time.monotonic() + START_TIMEOUT
    while not shown.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not show its text:\n{log_tail(log)}")
        time.sleep(0.05)
    size = shown.read_text().split()
    narrower = widest is not None and size[0] == str(rows) and widest <= int(size[1]) < columns
    if size != [str(rows), str(columns)] and not narrower:
        raise RuntimeError(
            f"{what} printed at {'x'.join(reversed(size))}, not {columns}x{rows} as asked"
        )


# --- xterm --------------------------------------------------------------------------


def open_xterm(
    server: XServer,
    lines: Sequence[str | Shown],
    *,
    columns: int = 80,
    rows: int = 24,
    font: str | None = None,
    size: int = 9,
    bitmap: str | None = None,
    theme: TerminalTheme = "light",
    x: int = 0,
    y: int = 0,
    title: str | None = None,
    subpixel: bool = False,
    dpi: int | None = None,
    chrome: Chrome = "none",
    coloured: bool = False,
    highlight: int | None = None,
    own_palette: bool = False,
) -> Client:
    """xterm showing ``lines``: in its default bitmap font ("fixed"), the X
    core font ``bitmap`` (a name of xfonts-base: "9x15", "10x20"), or the Xft
    ``font`` at ``size`` points; with ``subpixel``, Xft draws it anti-aliased
    by sub-pixel (RGB, the LCD filter on), and at ``dpi`` (192: a HiDPI
    screen, twice the pixels). ``chrome="none"`` turns the scrollbar off
    (``+sb``); xterm's default has none either. ``coloured``, ``highlight``
    and ``own_palette`` as for ``open_terminal``. ``lines`` of the client are
    the rows on screen (long lines wrap)."""
    shown = [_shown(line) for line in lines]
    problem = missing("xterm")
    title = title or new_title("xterm")
    palette = PALETTES[theme].without_colours() if own_palette else PALETTES[theme]
    xft = [*(("-xrm", "*Xft.rgba: rgb", "-xrm", "*Xft.lcdfilter: lcddefault") if subpixel else ()),
           *(("-xrm", f"*Xft.dpi: {dpi}") if dpi else ())]  # fmt: skip
    if font and bitmap:
        raise ValueError("an Xft font or a bitmap font, not both")
    fonts = ["-fa", font, "-fs", str(size)] if font else ["-fn", bitmap] if bitmap else []
    follow: list[Path] = []

    def start(folder: Path) -> tuple[subprocess.Popen[str], bool]:
        (folder / "text").write_text(
            _printed(shown, palette=palette, columns=columns, coloured=coloured,
                     highlight=highlight)
        )  # fmt: skip
        (folder / "more").touch()
        follow.append(folder / "more")
        args = [
            "xterm",
            *("-geometry", f"{columns}x{rows}+{x}+{y}"),
            *("-bg", palette.background, "-fg", palette.foreground),
            *fonts,
            *(["+sb"] if chrome == "none" else []),
            *xft,
            *("-title", title),
            # The theme's escapes set colours, whatever the app-defaults say.
            *("-xrm", "XTerm*allowColorOps: true"),
            "-hold",
            *("-e", *_script(folder, rows=rows, columns=columns)),
        ]
        return start_process(args, env=server.env, log=folder / "log"), False

    def ready(
        process: subprocess.Popen[str], folder: Path, log: Path
    ) -> tuple[str, tuple[str, ...]]:
        what = f"xterm {title!r}"
        _wait_printed(process, folder, log, what=what, rows=rows, columns=columns)
        window = find_window(server, process, _title_pattern(title), what, log)
        plain = [line.plain for line in shown]
        return window, tuple(xterm_screen(plain, columns=columns, rows=rows))

    client = launch(server, "xterm", title, start, ready, problem=problem)
    client.follow = follow[0]
    return client


# --- the other terminals ------------------------------------------------------------


@dataclass(frozen=True)
class _Asked:
    """How a terminal is asked to look: what ``open_terminal`` was given."""

    columns: int
    rows: int
    font: str
    size: int
    palette: Palette
    x: int
    y: int
    title: str
    chrome: Chrome
    dpi: int | None

    @property
    def scale(self) -> int:
        """The HiDPI factor (2 at 192 dpi)."""
        return max(1, round((self.dpi or 96) / 96))


def _terminal_args(kind: Terminal, folder: Path, a: _Asked) -> tuple[list[str], dict[str, str]]:
    """The command line that opens ``kind`` as asked (the script still to
    come after it) and the environment it needs (its config in ``folder``)."""
    p = a.palette
    env = {
        "HOME": str(folder),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_RUNTIME_DIR": str(folder),
        "LIBGL_ALWAYS_SOFTWARE": "1",  # kitty and alacritty draw with Mesa's software GL
    }
    bare = a.chrome == "none"
    if kind == "urxvt":
        args = [
            "urxvt", "-fn", f"xft:{a.font}:size={a.size}", "-bg", p.background,
            "-fg", p.foreground, *(["+sb"] if bare else []),
            *(["-xrm", f"Xft.dpi: {a.dpi}"] if a.dpi else []),
            "-geometry", f"{a.columns}x{a.rows}+{a.x}+{a.y}", "-title", a.title, "-e",
        ]  # fmt: skip
    elif kind == "st":
        # Its colours are built in (light grey on black): the theme's
        # escapes set them. Xft reads a dpi from the font's pattern.
        dpi = f":dpi={a.dpi}" if a.dpi else ""
        args = ["stterm", "-f", f"{a.font}:size={a.size}{dpi}",
                "-g", f"{a.columns}x{a.rows}+{a.x}+{a.y}", "-t", a.title, "-e"]  # fmt: skip
    elif kind == "xfce4-terminal":
        rc = folder / "config" / "xfce4" / "terminal" / "terminalrc"
        rc.parent.mkdir(parents=True)
        hidden = (
            "MiscMenubarDefault=FALSE\nMiscToolbarDefault=FALSE\n"
            "ScrollingBar=TERMINAL_SCROLLBAR_NONE\n"
        )
        rc.write_text(
            "[Configuration]\n"
            f"ColorForeground={p.foreground}\nColorBackground={p.background}\n"
            f"ColorCursor={p.foreground}\nColorBoldUseDefault=TRUE\n"
            + (f"ColorPalette={';'.join(p.colours)}\n" if p.colours else "")
            + f"FontName={a.font} {a.size}\nMiscCursorBlinks=FALSE\n"
            + f"MiscBordersDefault=TRUE\n{hidden if bare else ''}"
        )
        args = [
            "xfce4-terminal", "--disable-server",
            f"--geometry={a.columns}x{a.rows}+{a.x}+{a.y}", f"--title={a.title}",
            *(["--hide-menubar", "--hide-toolbar", "--hide-scrollbar"] if bare else []), "-x",
        ]  # fmt: skip
        if a.dpi:
            env["GDK_SCALE"] = str(a.scale)
    elif kind == "konsole":
        data = folder / "data" / "konsole"
        data.mkdir(parents=True)
        # Konsole 22.12 takes OSC 10 and 11 but not OSC 4: the palette is its scheme's.
        scheme = [
            f"[Background]\nColor={p.rgb(p.background)}\n",
            f"[BackgroundIntense]\nColor={p.rgb(p.background)}\n",
            f"[Foreground]\nColor={p.rgb(p.foreground)}\n",
            f"[ForegroundIntense]\nColor={p.rgb(p.foreground)}\n",
            *(f"[Color{n}]\nColor={p.rgb(c)}\n" for n, c in enumerate(p.colours[:8])),
            *(f"[Color{n}Intense]\nColor={p.rgb(c)}\n" for n, c in enumerate(p.colours[8:])),
            "[General]\nDescription=Noru\nOpacity=1\n",
        ]
        (data / "Noru.colorscheme").write_text("".join(scheme))
        (data / "Noru.profile").write_text(
            f"[Appearance]\nColorScheme=Noru\nFont={a.font},{a.size},-1,5,50,0,0,0,0,0\n"
            f"[General]\nName=Noru\nTerminalColumns={a.columns}\nTerminalRows={a.rows}\n"
            "ShowTerminalSizeHint=false\n"
            + ("[Scrolling]\nScrollBarPosition=2\n" if bare else "")
            + "[Cursor Options]\nCursorShape=0\n"
        )
        if bare:
            # Its menu bar off; its toolbars stay (Konsole 22.12 keeps them
            # whatever this says), and are chrome (KONSOLE_TOOLBAR).
            rc = folder / "config" / "konsolerc"
            rc.parent.mkdir(parents=True)
            rc.write_text(
                "[MainWindow][Toolbar mainToolBar]\nHidden=true\n"
                "[MainWindow][Toolbar sessionToolbar]\nHidden=true\n"
                "[KonsoleWindow]\nShowMenuBarByDefault=false\n"
            )
        args = ["konsole", "--nofork", *(["--hide-menubar", "--hide-tabbar"] if bare else []),
                "--profile", "Noru", "-p", f"tabtitle={a.title}", "-e"]  # fmt: skip
        if a.dpi:
            env["QT_SCALE_FACTOR"] = str(a.scale)
    elif kind == "kitty":
        colours = [arg for n, c in enumerate(p.colours) for arg in ("-o", f"color{n}={c}")]
        args = [
            "kitty", "--config", "NONE", "-o", f"font_family={a.font}",
            "-o", f"font_size={a.size}", "-o", f"background={p.background}",
            "-o", f"foreground={p.foreground}", *colours,
            "-o", f"initial_window_width={a.columns}c", "-o", f"initial_window_height={a.rows}c",
            "-o", "remember_window_size=no", "-o", "cursor_blink_interval=0",
            "-o", "enable_audio_bell=no", "--title", a.title,
        ]  # fmt: skip
    else:
        config = folder / "alacritty.yml"
        colours = [
            f"  {group}:\n"
            + "".join(f"    {n}: '{c}'\n" for n, c in zip(_NAMES, half, strict=True))
            for group, half in (("normal", p.colours[:8]), ("bright", p.colours[8:]))
            if p.colours
        ]
        config.write_text(
            f"window:\n  dimensions: {{columns: {a.columns}, lines: {a.rows}}}\n"
            f"  position: {{x: {a.x}, y: {a.y}}}\n  dynamic_title: false\n"
            f'font:\n  normal: {{family: "{a.font}"}}\n  size: {a.size}\n'
            f"colors:\n  primary: {{background: '{p.background}', foreground: '{p.foreground}'}}\n"
            + "".join(colours)
            + "cursor:\n  blinking: Never\n"
        )
        args = ["alacritty", "--config-file", str(config), "-t", a.title, "-e"]
        if a.dpi:
            env["WINIT_X11_SCALE_FACTOR"] = str(a.scale)
    return args, env


_NAMES = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")


def _chrome_lines(kind: Terminal, chrome: Chrome) -> tuple[str, ...]:
    """The text of the terminal's own widgets, top to bottom."""
    if kind == "konsole":
        return (KONSOLE_MENU, KONSOLE_TOOLBAR) if chrome == "default" else (KONSOLE_TOOLBAR,)
    if kind == "xfce4-terminal" and chrome == "default":
        return (XFCE_MENU,)
    return ()


@contextmanager
def _xft_dpi(server: XServer, dpi: int) -> Iterator[None]:
    """The X resource Xft.dpi set to ``dpi`` on the server (the root window's
    RESOURCE_MANAGER, which kitty reads its scale from), the resources as
    they were put back on the way out."""
    before = server.run("xrdb", "-query")

    def load(option: str, text: str) -> None:
        subprocess.run(
            ["xrdb", "-nocpp", option], input=text, env=server.env, text=True,
            capture_output=True, timeout=START_TIMEOUT, check=True,
        )  # fmt: skip

    load("-merge", f"Xft.dpi: {dpi}\n")
    try:
        yield
    finally:
        load("-load", before)


def open_terminal(
    server: XServer,
    kind: Terminal,
    lines: Sequence[str | Shown],
    *,
    columns: int = 100,
    rows: int = 30,
    font: str = "DejaVu Sans Mono",
    size: int = 10,
    theme: TerminalTheme = "dark",
    x: int = 0,
    y: int = 0,
    coloured: bool = False,
    highlight: int | None = None,
    chrome: Chrome = "none",
    dpi: int | None = None,
    own_palette: bool = False,
    env: Mapping[str, str] | None = None,
    wraps: bool = False,
) -> Client:
    """The terminal ``kind`` showing ``lines`` (each narrower than ``columns``:
    nothing wraps; more than ``rows`` scroll the first ones away, into its
    scrollback) in ``font`` at ``size`` points, in ``theme``'s colours;
    ``coloured``: every other word in one of the palette's colours (as
    prompts, `ls --color` and syntax colours draw them), instead of the
    lines' own escapes; ``highlight``: that line in reverse video across the
    whole width (a status line, a selection); ``chrome`` and ``dpi`` as the
    module says; ``own_palette``: the theme's background and text colour
    only, the terminal's own 16 colours; ``env``: more of its environment
    (a session bus); ``wraps``: lines may be longer than ``columns``, and
    wrap at its last column, where the terminal must print at exactly the
    size asked (a column fewer would wrap them elsewhere)."""
    shown = [_shown(line) for line in lines]
    if not wraps and any(line.width >= columns for line in shown):
        raise ValueError(f"the lines must fit in {columns - 1} columns")
    title = new_title(kind)
    palette = PALETTES[theme].without_colours() if own_palette else PALETTES[theme]
    asked = _Asked(columns, rows, font, size, palette, x, y, title, chrome, dpi)
    follow: list[Path] = []
    resources = ExitStack()

    def start(folder: Path) -> tuple[subprocess.Popen[str], bool]:
        (folder / "text").write_text(
            _printed(shown, palette=asked.palette, columns=columns, coloured=coloured,
                     highlight=highlight)
        )  # fmt: skip
        (folder / "more").touch()
        follow.append(folder / "more")
        args, extra = _terminal_args(kind, folder, asked)
        if kind == "kitty" and dpi:
            resources.enter_context(_xft_dpi(server, dpi))
        command = [*args, *_script(folder, rows=rows, columns=columns)]
        return start_process(
            command, env={**server.env, **extra, **(env or {})}, log=folder / "log"
        ), False

    def ready(
        process: subprocess.Popen[str], folder: Path, log: Path
    ) -> tuple[str, tuple[str, ...]]:
        what = f"{kind} {title!r}"
        widest = max((line.width for line in shown), default=0)
        if highlight is not None:
            widest = columns - 1
        exact = widest >= columns
        _wait_printed(
            process, folder, log, what=what, rows=rows, columns=columns,
            widest=None if exact else widest,
        )  # fmt: skip
        window = find_window_of(server, process, what, log)
        if kind in ("konsole", "kitty"):
            move_window(server, window, x, y)  # they take no place on their command line
        # What it shows: the last rows (the cursor's row below them).
        plain = [line.plain for line in shown]
        return window, tuple(xterm_screen(plain, columns=columns, rows=rows))

    # The resources stay while kitty runs: it reads its scale again after it
    # maps its window, and would draw at 96 dpi in a window sized for 192.
    client = launch(server, kind, title, start, ready, problem=missing(kind), after=resources.close)
    client.follow = follow[0]
    client.chrome = _chrome_lines(kind, chrome)
    return client


def missing_any(kind: Kind) -> str | None:
    """``missing`` for any program: a terminal's here, an application's in
    tests/real_clients.py."""
    if kind in get_args(TerminalKind):
        return missing(kind)  # type: ignore[arg-type]
    return real_clients.missing(kind)  # type: ignore[arg-type]


def need(kind: Kind) -> None:
    """Skip (fail under CI) unless ``kind``'s program is installed here."""
    problem = missing_any(kind)
    require(problem is None, problem or "")
