"""Redaction's false positives on real ordinary screens, as read.

bench/redact_real.py measures false positives on text we generate; this
shows what real programs print and what any Debian machine with Noru
holds: this repository's git log, diffs, full commit ids and blob ids;
`ls -l` of /usr/bin and /usr/lib; `ps` (process names only, no
arguments); `ip addr`; `dpkg -l`, apt's and dpkg's logs, a package's
md5sums, `apt-cache show` (MD5 and SHA-256 sums); the venv's `pip list`;
/etc/services and /etc/mime.types; the CA certificates' PEM and
`openssl x509 -text` of one; sha256sum of the standard library's files
and some of them (hashlib, secrets, uuid, getpass); npm's token.js;
PostgreSQL's sample config; Noru's own rules and security doc; man pages
of ssh-keygen and curl; a licence; and, in Firefox, the text of npm's and
Debian's local HTML docs (npmrc's ``_authToken=MYTOKEN`` examples among
it). Nothing that can hold this machine's credentials: no environment,
no home, no process arguments, nothing from the network.

Each screen is the first rows of one output (from a heading, for some),
tabs expanded, cut to the width, shown by ``--shown`` of the real
terminals of bench/redact_real.py in turn (xterm bitmap, Xft 9 and Xft 10
dark, rxvt-unicode, st, kitty) on a private Xvfb, grabbed by Noru's
capturer and read by its Tesseract engine as that bench does, then
searched by noru.redact.find_lines, and served as agents get them
(``for_agent``: the pixels it fills). The screens marked ``[held out]``
were added with issue 37's rules, chosen before those rules were run on
them and not tuned on after; their total is printed apart. ``--text``
measures the text as shown only (no terminal, no OCR): fast, and what the
rules do alone. Printed per screen kind: the tokens
read, those a finding covers and their share, and how many the findings
in the text itself cover (before OCR); in total, and over the screens
chosen blind (a kind marked * was chosen after a scan of its text had
found something); the pixels filled as agents get the screens, of all
the windows' (an unsure line beside a key-like word is filled whole, a
span's box reaches past its text: area, not tokens, shows what they
cost); then every redacted span, its kind and the line it was
read in, to judge by eye (an example key a doc prints is content, not a
false positive), and what was found in the text itself.

    .venv/bin/python bench/redact_ordinary.py [--screens N] [--shown 2] [--text]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterable
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "bench")]

from tests import real_clients  # noqa: E402
from tests.xserver import running_xserver  # noqa: E402

from noru.capture import Capturer  # noqa: E402
from noru.ocr.tesseract import TesseractEngine  # noqa: E402
from noru.redact import Finding, find_lines  # noqa: E402
from noru.redact.apply import for_agent  # noqa: E402
from redact_real import SHOWN, _tokens  # noqa: E402
from redact_unsure import POLICY, _area, _record  # noqa: E402

ROWS = 48  # of output on a terminal screen
WIDTH = 149  # SHOWN's terminals are 150 columns; a line must be shorter
PAGE_ROWS, PAGE_WIDTH = 26, 120  # a Firefox page's lines (1800x1200, 16 px)
TERMINALS = [name for name in SHOWN if not name.startswith("Firefox")]
# The system Python's library (Debian's, not the venv's interpreter's).
LIB = next(p for p in sorted(Path("/usr/lib").glob("python3.*")) if (p / "uuid.py").exists())
NPM = Path("/usr/lib/node_modules/npm/docs/output")
SITE = Path(sysconfig.get_paths()["purelib"])  # the interpreter's running this
# What the commands run with: nothing of this machine's own environment.
ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
    "LC_ALL": "C.UTF-8",
    "COLUMNS": str(WIDTH),
    "MANWIDTH": "110",
    "GIT_PAGER": "cat",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PIP_NO_INDEX": "1",
}


def _run(*argv: str) -> Callable[[], str]:
    def output() -> str:
        return subprocess.run(
            argv, cwd=ROOT, env=ENV, capture_output=True, text=True, errors="replace",
            timeout=120, check=True,
        ).stdout  # fmt: skip

    return output


def _file(path: Path | str) -> Callable[[], str]:
    return lambda: Path(path).read_text(errors="replace")


class _Text(HTMLParser):
    """A page's text, a line per block as a browser lays it out (roughly)."""

    BLOCKS = frozenset({"p", "div", "h1", "h2", "h3", "h4", "li", "pre", "tr", "br", "dt", "dd"})
    HIDDEN = frozenset({"script", "style", "head"})

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.inside: dict[str, int] = {"pre": 0, **dict.fromkeys(self.HIDDEN, 0)}

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in self.inside:
            self.inside[tag] += 1
        self.parts.append("\n" if tag in self.BLOCKS else "")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.inside:
            self.inside[tag] = max(0, self.inside[tag] - 1)
        self.parts.append("\n" if tag in self.BLOCKS else "")

    def handle_data(self, data: str) -> None:
        if not any(self.inside[tag] for tag in self.HIDDEN):
            self.parts.append(data if self.inside["pre"] else data.replace("\n", " "))


def _page(path: Path | str) -> Callable[[], str]:
    def text() -> str:
        parser = _Text()
        parser.feed(Path(path).read_text(errors="replace"))
        lines = "".join(parser.parts).splitlines()
        return "\n".join(" ".join(line.split()) for line in lines if line.strip())

    return text


# (screen kind, its text, where it starts: a line's index or the first
# line holding that string). Firefox shows those whose name ends ".html".
# A name ending " *" was chosen after a scan of the text (find_lines on the
# files whole) had found something there; the others were chosen blind.
SCREENS: list[tuple[str, Callable[[], str], int | str]] = [
    ("git log --stat", _run("git", "log", "--stat", "-n", "20"), 0),
    ("git log -p", _run("git", "log", "-p", "-n", "3"), 0),
    ("git log -p rules.py", _run("git", "log", "-p", "-n1", "--", "src/noru/redact/rules.py"), 0),
    ("git log, full ids", _run("git", "log", "--format=%H %ad %an %s", "--date=iso"), 0),
    ("git ls-tree -r HEAD", _run("git", "ls-tree", "-r", "HEAD"), 0),
    ("ls -l /usr/bin", _run("ls", "-l", "/usr/bin"), 0),
    ("ls -l /usr/lib/x86_64-linux-gnu", _run("ls", "-l", "/usr/lib/x86_64-linux-gnu"), 0),
    ("ps -eo ...,comm", _run("ps", "-eo", "pid,ppid,user,stat,rss,etime,comm"), 0),
    ("ip addr", _run("ip", "addr"), 0),
    ("dpkg -l", _run("dpkg", "-l"), 0),
    ("/var/log/apt/history.log", _file("/var/log/apt/history.log"), 0),
    ("/var/log/dpkg.log", _file("/var/log/dpkg.log"), 0),
    ("coreutils.md5sums", _file("/var/lib/dpkg/info/coreutils.md5sums"), 0),
    ("apt-cache show", _run("apt-cache", "show", "python3", "git", "openssl"), 0),
    ("pip list", _run(str(ROOT / ".venv/bin/python"), "-m", "pip", "list"), 0),
    ("/etc/services", _file("/etc/services"), "tcpmux"),
    ("/etc/mime.types", _file("/etc/mime.types"), "application/"),
    ("ca-certificates.crt", _file("/etc/ssl/certs/ca-certificates.crt"), 0),
    (
        "openssl x509 -text",
        _run("openssl", "x509", "-noout", "-text", "-in", "/etc/ssl/certs/ISRG_Root_X1.pem"),
        0,
    ),
    ("sha256sum *.py", _run("sh", "-c", f"sha256sum {LIB}/*.py"), 0),
    ("hashlib.py", _file(LIB / "hashlib.py"), 0),
    ("secrets.py", _file(LIB / "secrets.py"), 24),
    ("uuid.py", _file(LIB / "uuid.py"), 0),
    ("getpass.py *", _file(LIB / "getpass.py"), 0),
    ("npm token.js *", _file(NPM.parent.parent / "lib/commands/token.js"), "const name = "),
    (
        "postgresql.conf.sample *",
        _run("sh", "-c", "cat /usr/share/postgresql/*/postgresql.conf.sample"),
        "# - Authentication -",
    ),
    ("noru rules.py", _file(ROOT / "src/noru/redact/rules.py"), 0),
    ("docs/security.md", _file(ROOT / "docs/security.md"), "## Secrets on screen"),
    ("man ssh-keygen", _run("man", "-P", "cat", "ssh-keygen"), 0),
    ("man curl *", _run("man", "-P", "cat", "curl"), "       --proxy-basic"),
    ("Apache-2.0", _file("/usr/share/common-licenses/Apache-2.0"), 0),
    ("npmrc.html *", _page(NPM / "configuring-npm/npmrc.html"), "Starting in npm v11"),
    ("npm-token.html", _page(NPM / "commands/npm-token.html"), "npm token list"),
    ("users-and-groups.html", _page("/usr/share/doc/base-passwd/users-and-groups.html"), 0),
    # Held out (issue 37): chosen before the new rules were run on them, and
    # not tuned on after (their totals are reported apart).
    ("netrc.py [held out]", _file(LIB / "netrc.py"), 0),
    ("smtplib.py [held out]", _file(LIB / "smtplib.py"), "    def login(self, user, password"),
    ("ssl.py [held out]", _file(LIB / "ssl.py"), "def create_default_context"),
    ("urllib/request.py [held out]", _file(LIB / "urllib/request.py"), "class HTTPPasswordMgr"),
    ("a wheel's RECORD [held out]", lambda: _file(next(SITE.glob("*.dist-info/RECORD")))(), 0),
    ("npm oidc.js [held out]", _file(NPM.parent.parent / "lib/utils/oidc.js"), 0),
    (
        "npm config definitions.js [held out]",
        _file(NPM.parent.parent / "node_modules/@npmcli/config/lib/definitions/definitions.js"),
        "bearer token stored",
    ),
    ("base64 of a PNG [held out]", _run("base64", "/usr/share/gitweb/static/git-logo.png"), 0),
    (
        "sha512sum, md5sum, b2sum [held out]",
        _run("sh", "-c", f"for f in {LIB}/json/*.py; do sha512sum $f; md5sum $f; b2sum $f; done"),
        0,
    ),
    (
        "uuids [held out]",
        _run(
            "python3",
            "-c",
            "import uuid, random; r = random.Random(5); "
            "[print(uuid.UUID(int=r.getrandbits(128)), uuid.UUID(int=r.getrandbits(128)), i)"
            " for i in range(60)]",
        ),
        0,
    ),
    (
        "git rev-list --objects [held out]",
        _run("git", "rev-list", "--objects", "-n", "60", "HEAD"),
        0,
    ),
    ("git log -p store [held out]", _run("git", "log", "-p", "-n", "2", "--", "src/noru/store"), 0),
    ("man ssh [held out]", _run("man", "-P", "cat", "ssh"), 0),
    ("man gpg [held out]", _run("man", "-P", "cat", "gpg"), "--passphrase"),
    ("openssl.cnf [held out]", _file("/etc/ssl/openssl.cnf"), 0),
    ("alternatives.log [held out]", _file("/var/log/alternatives.log"), 0),
    ("find email/ [held out]", _run("find", str(LIB / "email")), 0),
]


def screen_lines(text: str, start: int | str, rows: int, width: int) -> list[str]:
    """``rows`` lines of ``text`` from ``start``, as a terminal shows them:
    tabs expanded, what is not printable a ``?``, cut to ``width``."""
    lines = text.splitlines()
    if isinstance(start, str):
        start = next(i for i, line in enumerate(lines) if start in line)
    shown = []
    for line in lines[start : start + rows]:
        line = line.expandtabs(8)
        shown.append("".join(c if c.isprintable() else "?" for c in line)[:width].rstrip())
    while shown and not shown[-1]:
        shown.pop()
    return shown


def _totals(counts: dict[str, list[int]]) -> dict[str, list[int]]:
    """All screens; those chosen blind (no ``*``); the held-out ones."""
    parts = {
        "all": list(counts.values()),
        "all chosen blind (no *)": [c for n, c in counts.items() if not n.endswith(" *")],
        "held out (issue 37)": [c for n, c in counts.items() if n.endswith("[held out]")],
    }
    return {name: [sum(c[k] for c in part) for k in range(3)] for name, part in parts.items()}


def _is_page(name: str) -> bool:
    """Whether a screen kind is a page Firefox shows, not a terminal's text."""
    return name.removesuffix(" *").endswith(".html")


def _shown_lines(name: str, text: Callable[[], str], start: int | str) -> list[str] | None:
    """A screen kind's lines as its client shows them (a page's rows, or a
    terminal's), or None, said on stderr, when its text cannot be had here."""
    size = (PAGE_ROWS, PAGE_WIDTH) if _is_page(name) else (ROWS, WIDTH)
    try:
        return screen_lines(text(), start, *size)
    except (OSError, subprocess.SubprocessError, StopIteration) as error:
        print(f"  ... {name}: skipped ({error!r})", file=sys.stderr, flush=True)
        return None


def _covers(findings: Iterable[Finding], begin: int, end: int) -> bool:
    """Whether a finding overlaps the token at ``begin:end`` of its line."""
    return any(f.start < end and begin < f.end for f in findings)


def text_only(screens: int) -> None:
    """The share of each screen's tokens that a finding covers, in the text
    as shown (no terminal, no OCR): fast, and what the rules do alone."""
    ENV["HOME"] = tempfile.mkdtemp(prefix="noru-redact-ordinary-")
    counts: dict[str, list[int]] = {}
    found_spans = []
    for name, text, start in SCREENS[:screens]:
        lines = _shown_lines(name, text, start)
        if lines is None:
            continue
        found = find_lines(lines)
        tokens = list(_tokens(lines))
        covered = sum(_covers(found[i], s, e) for i, s, e in tokens)
        counts[name] = [len(tokens), covered, covered]
        found_spans += [(name, f.kind, lines[i][f.start : f.end], lines[i])
                        for i, spans in enumerate(found) for f in spans]  # fmt: skip
    print(f"redaction on ordinary screens' text as shown (no OCR), {len(counts)} screens")
    print(f"{'screen kind':38} {'tokens':>7} {'redacted':>8} {'share':>7}")
    for name, (tokens, covered, _) in [*counts.items(), *_totals(counts).items()]:
        goal = "   (goal <= 0.5 %)" if name in ("all", "held out (issue 37)") else ""
        print(f"{name:38} {tokens:7} {covered:8} {covered / max(1, tokens):7.2%}{goal}")
    print(f"\nevery redacted span ({len(found_spans)}):")
    for name, kind, span, line in found_spans:
        print(f"  {name}: {kind}: {span!r}\n      in: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--screens", type=int, default=len(SCREENS), help="screen kinds shown")
    parser.add_argument("--shown", type=int, default=2, help="terminals each screen is shown in")
    parser.add_argument(
        "--text", action="store_true", help="the text as shown only, not shown and read (no OCR)"
    )
    args = parser.parse_args()
    if args.text:
        text_only(args.screens)
        return
    engine = TesseractEngine()
    counts: dict[str, list[int]] = {}  # kind: [tokens read, covered, covered in the text]
    redacted: list[tuple[str, str, str, str]] = []  # screen/client, kind, span, line
    in_text: list[tuple[str, str, str, str]] = []  # the same in the text, before OCR
    shown = 0
    area = [0, 0]  # pixels filled as agents get the screens (``for_agent``), of all
    with (
        tempfile.TemporaryDirectory(prefix="noru-redact-ordinary-") as tmp,
        running_xserver(Path(tmp), width=2560, height=1600) as server,
        Capturer(display=server.display) as capturer,
    ):
        ENV["HOME"] = tmp  # no one's configuration (git's, pip's, man's)
        for n, (name, text, start) in enumerate(SCREENS[: args.screens]):
            lines = _shown_lines(name, text, start)
            if lines is None:
                continue
            page = _is_page(name)
            count = counts.setdefault(name, [0, 0, 0])
            before = 0  # the text's tokens a finding covers
            for i, found in enumerate(find_lines(lines)):
                for f in found:
                    in_text.append((name, f.kind, lines[i][f.start : f.end], lines[i]))
                    before += sum(_covers([f], s, e) for _, s, e in _tokens([lines[i]]))
            clients = ["Firefox 16 px"] if page else [
                TERMINALS[(n * args.shown + k) % len(TERMINALS)] for k in range(args.shown)
            ]  # fmt: skip
            for client_name in clients:
                try:
                    opened = (
                        real_clients.open_firefox(
                            server, name, lines, x=60, y=60, width=1800, height=1200
                        )
                        if page
                        else SHOWN[client_name](server, lines)
                    )
                except (RuntimeError, ValueError) as error:  # it did not start, or overflowed
                    print(f"  ... {name}: not shown in {client_name} ({error})", file=sys.stderr)
                    continue
                with opened as client:
                    client.bring_under_pointer()
                    (grab,) = capturer.grab_window("pointer")
                lines_read = engine.recognise(grab.image).lines
                read = [line.text for line in lines_read]
                found = find_lines(read)
                served = for_agent(_record(tuple(lines_read), grab.image.size), POLICY)
                area[0] += _area(list(served.boxes[0]), grab.image.size)
                area[1] += grab.image.width * grab.image.height
                for i, begin, end in _tokens(read):
                    count[0] += 1
                    count[1] += _covers(found[i], begin, end)
                count[2] += before
                for i, findings in enumerate(found):
                    for f in findings:
                        span = read[i][f.start : f.end]
                        redacted.append((f"{name} / {client_name}", f.kind, span, read[i]))
                shown += 1
            print(f"  ... {name} done", file=sys.stderr, flush=True)
    engine.close()
    print(f"redaction on real ordinary screens, Tesseract {engine.version}, {shown} screens")
    print(f"{'screen kind':32} {'tokens':>7} {'redacted':>8} {'share':>7} {'in text':>7}")
    totals = _totals(counts)
    for name, (tokens, covered, before) in [*counts.items(), *totals.items()]:
        line = f"{name:32} {tokens:7} {covered:8} {covered / max(1, tokens):7.2%} {before:7}"
        print(line + ("   (goal <= 0.5 %)" if name in totals else ""))
    share = area[0] / max(1, area[1])
    print(f"\nfilled as agents get them: {area[0]:,} of {area[1]:,} pixels ({share:.4%})")
    print(f"\nevery redacted span as read ({len(redacted)}):")
    for where, kind, span, line in redacted:
        print(f"  {where}: {kind}: {span!r}\n      in: {line}")
    print(f"\nfound in the text shown, before OCR ({len(in_text)}, each screen once):")
    for name, kind, span, line in in_text:
        print(f"  {name}: {kind}: {span!r}\n      in: {line}")


if __name__ == "__main__":
    main()
