"""The shell itself: prompts and the commands typed at them with their
output, Powerline prompts, tmux's panes and status bar, and man pages."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    BOLD,
    NOUNS,
    PACKAGES,
    USERS,
    WORDS,
    Screen,
    blank,
    camel,
    clock,
    fit,
    hexid,
    host,
    line,
    project,
    sentence,
    snake,
    token62,
    tricky,
    version,
)

__all__ = ["man_page", "powerline_prompt", "shell_session"]


# --- prompts ---------------------------------------------------------------------------


def _folder(rng: random.Random) -> str:
    return rng.choice(
        (
            "~",
            f"~/src/{project(rng)}",
            f"~/src/{project(rng)}/tests",
            "/etc/nginx",
            "/var/log",
            f"~/work/{project(rng)}-{rng.choice(NOUNS)}",
            "/tmp",
        )
    )


def _prompt(
    rng: random.Random, style: int, user: str, machine: str, folder: str
) -> list[tuple[str, str]]:
    """A prompt's parts: Debian's bash (``me@box:~/src$ ``, coloured), zsh's
    default (``me@box ~/src % ``), a root prompt (``#``), or a bare ``$ ``."""
    if style == 0:
        return [(f"{user}@{machine}", "1;32"), (":", ""), (folder, "1;34"), ("$ ", "")]
    if style == 1:
        return [(f"{user}@{machine} {folder} % ", "")]
    if style == 2:
        return [(f"root@{machine}:{folder}# ", "")]
    return [("$ ", "")]


def _ls(rng: random.Random, columns: int) -> list[Shown]:
    """Plain ``ls``: names in columns as wide as the longest, filled down then
    across, directories in bold blue."""
    names = sorted(
        {
            rng.choice(
                (
                    f"{snake(rng)}.py",
                    f"{rng.choice(NOUNS)}s",
                    "Makefile",
                    "README.md",
                    f"{rng.choice(NOUNS)}.toml",
                    "LICENSE",
                    f"{tricky(rng).strip('/')}.txt",
                    f"{camel(rng)}.java",
                    "node_modules",
                    f"{project(rng)}.egg-info",
                )
            )
            for _ in range(rng.randint(3, 30))
        }
    )
    width = max(len(n) for n in names) + 2
    across = max(1, columns // width)
    down = -(-len(names) // across)
    out = []
    for row in range(down):
        parts: list[tuple[str, str]] = []
        for col in range(across):
            index = col * down + row
            if index < len(names):
                name = names[index]
                sgr = "1;34" if "." not in name and name[0].islower() else ""
                pad = " " * (width - len(name)) if index + down < len(names) else ""
                parts += [(name, sgr), (pad, "")]
        out.append(line(*parts))
    return out


def _typed(rng: random.Random) -> str:
    """A command people type often, for ``history``."""
    return rng.choice(
        (
            "git status",
            "make test",
            "ls -la",
            "cd ..",
            f"vim {snake(rng)}.py",
            "docker compose up -d",
        )
    )


def _grep(rng: random.Random) -> list[Shown]:
    """``grep -rn`` hits: the file in magenta, the line number in green, the
    match in bold red."""
    word = rng.choice(NOUNS)
    out = []
    for _ in range(rng.randint(1, 8)):
        before = f"    {snake(rng)} = self."
        after = f"_{rng.choice(NOUNS)}({rng.randint(0, 99)})"
        out.append(
            line(
                (f"src/{project(rng)}/{rng.choice(NOUNS)}.py", "35"),
                (":", "36"),
                (str(rng.randint(1, 900)), "32"),
                (":", "36"),
                before,
                (word, "1;31"),
                after,
            )
        )
    return out


_OUTPUTS: list[
    tuple[Callable[[random.Random], str], Callable[[random.Random, int], list[Shown]]]
] = [
    (lambda rng: "ls", _ls),
    (lambda rng: f"grep -rn {rng.choice(NOUNS)} src/", lambda rng, columns: _grep(rng)),
    (
        lambda rng: "python3 --version",
        lambda rng, columns: [line(f"Python 3.{rng.randint(8, 13)}.{rng.randint(0, 9)}")],
    ),
    (
        lambda rng: "which python3 node go",
        lambda rng, columns: [
            line("/usr/bin/python3"),
            line("/home/me/.nvm/versions/node/v20.11.1/bin/node"),
            line("/usr/local/go/bin/go"),
        ],
    ),
    (
        lambda rng: f"wc -l src/{project(rng)}/*.py",
        lambda rng, columns: [
            line(f"{rng.randint(1, 2000):>6} src/{snake(rng)}.py") for _ in range(rng.randint(2, 7))
        ],
    ),
    (
        lambda rng: "echo $PATH",
        lambda rng, columns: [line("/home/me/.local/bin:/usr/local/bin:/usr/bin:/bin:/usr/games")],
    ),
    (lambda rng: f"cd {_folder(rng)}", lambda rng, columns: []),
    (
        lambda rng: f"head -n 4 data/{rng.choice(NOUNS)}s.csv",
        lambda rng, columns: [
            line("id,name,amount,currency,created_at"),
            *(
                line(
                    f"{rng.randint(1, 9999)},{rng.choice(NOUNS)}_{token62(rng, 4)},"
                    f"{rng.randint(1, 99999)}.{rng.randint(0, 99):02d},EUR,"
                    f"2025-0{rng.randint(1, 9)}-{rng.randint(10, 28)}"
                )
                for _ in range(3)
            ),
        ],
    ),
    (
        lambda rng: "uname -a",
        lambda rng, columns: [
            line(
                f"Linux {host(rng)} 6.1.0-{rng.randint(10, 28)}-amd64 #1 SMP PREEMPT_DYNAMIC "
                f"Debian 6.1.{rng.randint(60, 130)}-1 "
                f"(2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}) x86_64 GNU/Linux"
            )
        ],
    ),
    (
        lambda rng: f"ping -c 2 {host(rng)}.lan",
        lambda rng, columns: [
            line(f"PING {host(rng)}.lan (192.168.1.{rng.randint(2, 254)}) 56(84) bytes of data."),
            line(
                f"64 bytes from 192.168.1.{rng.randint(2, 254)}: icmp_seq=1 ttl=64 time="
                f"{rng.random() * 9:.3f} ms"
            ),
            line(
                f"64 bytes from 192.168.1.{rng.randint(2, 254)}: icmp_seq=2 ttl=64 time="
                f"{rng.random() * 9:.3f} ms"
            ),
        ],
    ),
    (
        lambda rng: "history | tail -n 5",
        lambda rng, columns: [
            line(f"{rng.randint(100, 2000):>5}  {_typed(rng)}") for _ in range(5)
        ],
    ),
    (
        lambda rng: f"cat {rng.choice(NOUNS)}.toml",
        lambda rng, columns: [
            line(f"[{rng.choice(NOUNS)}]"),
            line(f'name = "{project(rng)}"'),
            line(f'version = "{version(rng)}"'),
            line(f"retries = {rng.randint(1, 9)}"),
            line(f'endpoint = "https://api.{project(rng)}.io/v{rng.randint(1, 3)}"'),
        ],
    ),
    (
        lambda rng: f"pip show {rng.choice(PACKAGES)} | head -3",
        lambda rng, columns: [
            line(f"Name: {rng.choice(PACKAGES)}"),
            line(f"Version: {version(rng)}"),
            line(f"Summary: {sentence(rng, 6)}"),
        ],
    ),
    (lambda rng: "git rev-parse HEAD", lambda rng, columns: [line(hexid(rng, 40))]),
]


def _session(rng: random.Random, columns: int, style: int) -> Iterator[list[Shown]]:
    user, machine = rng.choice(USERS), host(rng)
    folder = _folder(rng)
    while True:
        command, output = rng.choice(_OUTPUTS)
        typed = command(rng)
        yield [line(*_prompt(rng, style, user, machine, folder), typed), *output(rng, columns)]
        if typed.startswith("cd "):
            folder = typed[3:]


def shell_session(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """Commands typed at a prompt (Debian's bash, zsh's, root's, or a bare
    ``$``) with their output: ls in columns, grep hits, versions, paths,
    CSV; the last line a prompt waiting, with nothing typed."""
    style = rng.randrange(4)
    waiting = _prompt(rng, style, rng.choice(USERS), host(rng), _folder(rng))
    lines = Screen(columns, rows - 1).fill(_session(rng, columns, style)) if rows > 1 else []
    lines.append(fit(line(*waiting) if rng.random() < 0.7 else line("$ "), columns))
    return lines


# --- Powerline --------------------------------------------------------------------------

RIGHT, RIGHT_THIN, LEFT, BRANCH, LOCK = "\ue0b0", "\ue0b1", "\ue0b2", "\ue0a0", "\ue0a2"


def _powerline(rng: random.Random, columns: int, command: str) -> list[Shown]:
    """An agnoster-like prompt with ``command`` typed at it: segments on
    coloured backgrounds joined by ````, the git branch after ````;
    sometimes on two lines, with a status at the right of the first."""
    segments: list[tuple[str, int]] = []  # text, background colour (0-7)
    if rng.random() < 0.6:
        segments.append((f" {rng.choice(USERS)}@{host(rng)} ", 0))
    folder = _folder(rng)
    if rng.random() < 0.2:
        folder = f"{LOCK} {folder}"
    segments.append((f" {folder} ", 4))
    if rng.random() < 0.8:
        dirty = rng.random() < 0.5
        branch = rng.choice(
            ("main", f"feature/{rng.choice(NOUNS)}-{rng.randint(1, 999)}", f"fix/{snake(rng, 2)}")
        )
        mark = " ±" if dirty else ""
        segments.append((f" {BRANCH} {branch}{mark} ", 3 if dirty else 2))
    parts: list[tuple[str, str]] = []
    for n, (text, background) in enumerate(segments):
        foreground = 37 if background == 0 else 30
        parts.append((text, f"{foreground};{40 + background}"))
        following = segments[n + 1][1] if n + 1 < len(segments) else None
        sgr = (
            f"{30 + background};{40 + following}" if following is not None else f"{30 + background}"
        )
        parts.append((RIGHT, sgr))
    parts.append((" ", ""))
    if rng.random() < 0.35:
        # Two lines: the segments, then an arrow where the command is typed;
        # a right-aligned status on the first line.
        status = f"{LEFT} ✔ {clock(rng)} "
        used = sum(len(text) for text, _ in parts)
        gap = columns - used - len(status) - 1
        first = [*parts, (" " * max(1, gap), ""), (status, "32")]
        return [line(*first), line(("❯ ", "1;32"), command)]
    return [line(*parts, command)]


def powerline_prompt(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """Commands typed at Powerline prompts (Powerline's private-use glyphs
    U+E0A0 and U+E0B0-B2 between coloured segments) and what they printed."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            command, output = rng.choice(_OUTPUTS)
            typed = command(rng)
            yield [*_powerline(rng, columns, typed), *output(rng, columns)]

    screen = Screen(columns, max(1, rows - 2))
    screen.fill(blocks())
    lines = screen.lines
    lines += [fit(shown, columns) for shown in _powerline(rng, columns, "")[: rows - len(lines)]]
    return lines


# --- man pages ---------------------------------------------------------------------------

_MANUALS = [
    ("grep", "print lines that match patterns", "[OPTION...] PATTERNS [FILE...]"),
    (
        "rsync",
        "a fast, versatile, remote (and local) file-copying tool",
        "[OPTION...] SRC... [DEST]",
    ),
    ("tar", "an archiving utility", "[-] A --catenate --concatenate | c --create [options]"),
    ("ssh", "OpenSSH remote login client", "[-46AaCfGgKkMNnqsTtVvXxYy] [-B bind_interface]"),
    ("find", "search for files in a directory hierarchy", "[-H] [-L] [-P] [starting-point...]"),
    ("journalctl", "Print log entries from the systemd journal", "[OPTIONS...] [MATCHES...]"),
    (
        "git-rebase",
        "Reapply commits on top of another base tip",
        "[-i | --interactive] [<options>] [--exec <cmd>]",
    ),
]


def _justified(words: list[str], width: int) -> list[str]:
    """``words`` filled into lines of ``width``, each but the last stretched
    to the width by widening its gaps from the left, as groff justifies."""
    lines: list[list[str]] = []
    current: list[str] = []
    for word in words:
        if current and len(" ".join([*current, word])) > width:
            lines.append(current)
            current = []
        current.append(word)
    out = []
    for words_ in lines:
        gaps = len(words_) - 1
        spare = width - len(" ".join(words_))
        if gaps == 0:
            out.append(words_[0])
            continue
        widths = [1 + spare // gaps + (1 if n < spare % gaps else 0) for n in range(gaps)]
        out.append("".join(w + " " * g for w, g in zip(words_, [*widths, 0], strict=True)))
    if current:
        out.append(" ".join(current))
    return out


def _prose(rng: random.Random, sentences: int) -> list[str]:
    words: list[str] = []
    for _ in range(sentences):
        chunk = sentence(rng, rng.randint(6, 16)).split()
        if rng.random() < 0.4:
            chunk.insert(
                rng.randrange(len(chunk)),
                rng.choice(
                    (
                        "--verbose",
                        "-r",
                        "PATTERNS",
                        "FILE",
                        "stdout",
                        "0O",
                        "(1)",
                        f"{rng.choice(WORDS)}_{rng.choice(WORDS)}",
                    )
                ),
            )
        chunk[-1] += rng.choice((".", ".", ",", ";"))
        words += chunk
    words[-1] = words[-1].rstrip(",;") + "."
    return words


def man_page(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A man page in ``less``: the title line, NAME, SYNOPSIS, DESCRIPTION
    and OPTIONS in bold, justified paragraphs indented by 7, options and
    their descriptions, and less's status line in reverse video at the bottom."""
    name, summary, usage = rng.choice(_MANUALS)
    width = columns
    title = f"{name.upper()}(1)"
    middle = "User Commands"
    gap = width - 2 * len(title) - len(middle)
    left = gap // 2
    header = f"{title}{' ' * left}{middle}{' ' * (gap - left)}{title}"
    body: list[Shown] = [
        line(header),
        blank(),
        line(("NAME", BOLD)),
        line(f"       {name} - {summary}"),
        blank(),
        line(("SYNOPSIS", BOLD)),
        line("       ", (name, BOLD), f" {usage}"),
        blank(),
        line(("DESCRIPTION", BOLD)),
    ]
    for _ in range(rng.randint(1, 3)):
        body += [line("       " + text) for text in _justified(_prose(rng, 3), width - 7)]
        body.append(blank())
    body.append(line(("OPTIONS", BOLD)))
    while len(body) < rows * 2:
        short = rng.choice("abcdefhilnqrstvxzACEHILNPRSVZ")
        long = snake(rng, 2).replace("_", "-")
        argument = rng.choice(("", "=NUM", "=FILE", "=WHEN", "=PATTERN"))
        body.append(
            line("       ", (f"-{short}", BOLD), ", ", (f"--{long}", BOLD), (argument, "4"))
        )
        body += [
            line(" " * 14 + text) for text in _justified(_prose(rng, rng.randint(1, 2)), width - 14)
        ]
        body.append(blank())
    status = fit(
        line((f" Manual page {name}(1) line 1 (press h for help or q to quit)", "7")), columns
    )
    if rows == 1:
        return [status]
    screen = Screen(columns, rows - 1)
    screen.add(*body)
    return [*screen.lines, status]
