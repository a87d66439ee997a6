"""Version control and package managers: git's status, log and diff, pip and
npm installing (and failing to), with the colours each prints by default."""

from __future__ import annotations

import random
from collections.abc import Iterator

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    BOLD,
    NOUNS,
    PACKAGES,
    Screen,
    blank,
    camel,
    date_long,
    email,
    hexid,
    line,
    module_path,
    person,
    project,
    runs,
    sentence,
    snake,
    tricky,
    version,
)

__all__ = ["git_diff", "git_log", "git_status", "npm_install", "pip_install"]

# git indents file lists with a tab; a terminal shows it as 8 spaces.
TAB = " " * 8


def _branch(rng: random.Random) -> str:
    return rng.choice(
        (
            "main",
            f"feature/{snake(rng, 2).replace('_', '-')}",
            f"fix/{rng.choice(NOUNS)}-{rng.randint(100, 9999)}",
            f"release/{version(rng)}",
        )
    )


def _commit_subject(rng: random.Random) -> str:
    verb = rng.choice(("Fix", "Add", "Remove", "Refactor", "Bump", "Handle", "Document"))
    what = rng.choice(
        (
            f"{snake(rng)} overflow on {tricky(rng)}",
            f"{camel(rng)} retry backoff",
            f"{rng.choice(PACKAGES)} from {version(rng)} to {version(rng)}",
            f"null {rng.choice(NOUNS)} in {snake(rng)}()",
            f'"{rng.choice(NOUNS)}" option to {project(rng)} CLI',
            sentence(rng, 4).lower(),
        )
    )
    return f"{verb} {what}"


def git_status(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``git status``: the branch and how it stands with its upstream, staged
    changes in green, unstaged and untracked files in red, git's hints in
    parentheses."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            branch = _branch(rng)
            head = [line("$ git status"), line(f"On branch {branch}")]
            ahead = rng.randint(1, 12)
            head.append(
                line(
                    rng.choice(
                        (
                            f"Your branch is ahead of 'origin/{branch}' by {ahead} commits.",
                            f"Your branch is up to date with 'origin/{branch}'.",
                            f"Your branch and 'origin/{branch}' have diverged,",
                        )
                    )
                )
            )
            if "ahead" in head[-1].plain:
                head.append(line('  (use "git push" to publish your local commits)'))
            head.append(blank())
            yield head
            name = project(rng)
            if rng.random() < 0.8:
                staged = [
                    line("Changes to be committed:"),
                    line('  (use "git restore --staged <file>..." to unstage)'),
                ]
                for _ in range(rng.randint(1, 6)):
                    state = rng.choice(
                        ("modified:   ", "new file:   ", "deleted:    ", "renamed:    ")
                    )
                    path = module_path(rng, f"src/{name}", rng.choice(("py", "ts", "go", "toml")))
                    if state.startswith("renamed"):
                        path = f"{path} -> {module_path(rng, f'src/{name}', 'py')}"
                    staged.append(line(TAB, (state + path, "32")))
                yield [*staged, blank()]
            unstaged = [
                line("Changes not staged for commit:"),
                line('  (use "git add <file>..." to update what will be committed)'),
                line('  (use "git restore <file>..." to discard changes in working directory)'),
            ]
            for _ in range(rng.randint(1, 8)):
                path = module_path(rng, rng.choice((f"src/{name}", "tests", "docs")), "py")
                unstaged.append(line(TAB, ("modified:   " + path, "31")))
            yield [*unstaged, blank()]
            untracked = [
                line("Untracked files:"),
                line('  (use "git add <file>..." to include in what will be committed)'),
            ]
            for _ in range(rng.randint(1, 5)):
                untracked.append(
                    line(
                        TAB,
                        (
                            rng.choice(
                                (
                                    f"{snake(rng)}.py",
                                    f"notes/{rng.choice(NOUNS)}.md",
                                    ".env.local",
                                    f"data/{tricky(rng).strip('/')}.csv",
                                )
                            ),
                            "31",
                        ),
                    )
                )
            yield [*untracked, blank()]
            yield [line('no changes added to commit (use "git add" and/or "git commit -a")')]

    return Screen(columns, rows).fill(blocks())


def _decorations(rng: random.Random) -> list[tuple[str, str]]:
    """``(HEAD -> main, origin/main, tag: v1.2.0)`` in git's colours."""
    branch = _branch(rng)
    parts: list[tuple[str, str]] = [("(", "33"), ("HEAD -> ", "1;36"), (branch, "1;32")]
    parts += [(", ", "33"), (f"origin/{branch}", "1;31")]
    if rng.random() < 0.3:
        parts += [(", ", "33"), (f"tag: v{version(rng)}", "1;33")]
    parts.append((")", "33"))
    return parts


def git_log(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``git log --oneline --graph`` or the full ``git log``: hashes in
    yellow, decorations, authors, dates and indented messages."""
    oneline = rng.random() < 0.5

    def blocks() -> Iterator[list[Shown]]:
        yield [line("$ git log --oneline --graph" if oneline else "$ git log")]
        first = True
        while True:
            sha = hexid(rng, 40)
            decoration = _decorations(rng) if first or rng.random() < 0.1 else []
            first = False
            if oneline:
                graph = rng.choice(("* ", "* ", "* ", "| * ", "*   "))
                tail = [(" ", ""), *decoration] if decoration else []
                yield [line(graph, (sha[:7], "33"), *tail, " " + _commit_subject(rng))]
                continue
            who = person(rng)
            block = [
                line(("commit " + sha, "33"), *([(" ", ""), *decoration] if decoration else []))
            ]
            if rng.random() < 0.15:
                block.append(line(f"Merge: {hexid(rng, 7)} {hexid(rng, 7)}"))
            block += [
                line(f"Author: {who} <{email(rng, who)}>"),
                line(f"Date:   {date_long(rng)}"),
                blank(),
                line("    " + _commit_subject(rng)),
            ]
            if rng.random() < 0.5:
                block.append(blank())
                for _ in range(rng.randint(1, 4)):
                    block.append(line("    " + sentence(rng, rng.randint(5, 11))))
            yield [*block, blank()]

    return Screen(columns, rows).fill(blocks())


_CODE = (
    lambda rng: (
        f'    {snake(rng)} = {rng.choice(NOUNS)}.get("{rng.choice(NOUNS)}", {rng.randint(0, 99)})'
    ),
    lambda rng: f"    if {rng.choice(NOUNS)} is None:",
    lambda rng: f'        raise {camel(rng)}Error(f"missing {{{rng.choice(NOUNS)}!r}}")',
    lambda rng: f"    return {snake(rng)}({rng.choice(NOUNS)}, timeout={rng.randint(1, 60)})",
    lambda rng: (
        f"def {snake(rng)}(self, {rng.choice(NOUNS)}: str, *, "
        f"retries: int = {rng.randint(1, 9)}) -> bool:"
    ),
    lambda rng: f"    for {rng.choice(NOUNS)} in self.{rng.choice(NOUNS)}s:",
    lambda rng: (
        f'        log.debug("{rng.choice(NOUNS)} %s took %.2f ms", {rng.choice(NOUNS)}, ms)'
    ),
    lambda rng: "",
    lambda rng: f"    # {sentence(rng, 6)}",
)


def git_diff(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``git diff``: the bold file header, the hunk header in cyan, context
    lines, removed lines in red after ``-``, added lines in green after ``+``."""

    def blocks() -> Iterator[list[Shown]]:
        yield [line("$ git diff")]
        name = project(rng)
        while True:
            path = module_path(rng, f"src/{name}", "py")
            header = [
                line((f"diff --git a/{path} b/{path}", BOLD)),
                line((f"index {hexid(rng, 7)}..{hexid(rng, 7)} 100644", BOLD)),
                line((f"--- a/{path}", BOLD)),
                line((f"+++ b/{path}", BOLD)),
            ]
            yield header
            for _ in range(rng.randint(1, 3)):
                start = rng.randint(1, 600)
                hunk = [
                    line(
                        (
                            f"@@ -{start},{rng.randint(3, 12)} +{start},{rng.randint(3, 14)} @@",
                            "36",
                        ),
                        f" def {snake(rng)}(self):",
                    )
                ]
                for _ in range(rng.randint(3, 12)):
                    code = rng.choice(_CODE)(rng)
                    roll = rng.random()
                    if roll < 0.25:
                        hunk.append(line(("-" + code, "31")))
                    elif roll < 0.5:
                        hunk.append(line(("+" + code, "32")))
                    else:
                        hunk.append(line(" " + code))
                yield hunk

    return Screen(columns, rows).fill(blocks())


def _wheel(package: str, release: str) -> str:
    return f"{package}-{release}-py3-none-any.whl"


def pip_install(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``pip install``: Collecting and Downloading lines with their ``━━━``
    progress bars, requirements already satisfied, the install, and on some
    screens the error that stops it."""

    def lines() -> Iterator[Shown]:
        chosen = rng.sample(PACKAGES, rng.randint(2, 6))
        yield line(f"$ pip install {' '.join(chosen)}")
        bar = "━" * min(40, columns // 3)
        for package in chosen + rng.sample(PACKAGES, rng.randint(0, 8)):
            release = version(rng)
            yield line(
                f"Collecting {package}=={release}"
                if rng.random() < 0.3
                else f"Collecting {package}"
            )
            size, unit = (
                (rng.uniform(8, 999), "kB") if rng.random() < 0.7 else (rng.uniform(1, 90), "MB")
            )
            yield line(f"  Downloading {_wheel(package, release)} ({size:.0f} {unit})")
            yield line(
                "     ",
                (bar, "32"),
                " ",
                (f"{size:.1f}/{size:.1f} {unit}", "32"),
                " ",
                (f"{rng.randint(1, 90) / 10:.1f} MB/s", "31"),
                " eta ",
                ("0:00:00", "36"),
            )
            if rng.random() < 0.3:
                dep = rng.choice(PACKAGES)
                yield line(
                    f"Requirement already satisfied: {dep}>={version(rng)} in "
                    f"./.venv/lib/python3.11/site-packages (from {package}) ({version(rng)})"
                )
        if rng.random() < 0.35:
            missing = rng.choice(PACKAGES)
            yield line(
                ("ERROR: ", "31"),
                (
                    f"Could not find a version that satisfies the requirement {missing}=="
                    f"{rng.randint(5, 9)}.9.9 (from versions: {version(rng)}, {version(rng)})",
                    "31",
                ),
            )
            yield line(("ERROR: ", "31"), (f"No matching distribution found for {missing}", "31"))
            return
        yield line(f"Installing collected packages: {', '.join(chosen)}")
        yield line("Successfully installed " + " ".join(f"{p}-{version(rng)}" for p in chosen))

    return runs(lambda: list(lines()), columns, rows)


def npm_install(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``npm install``: deprecation warnings (``npm WARN deprecated``), the
    count of packages added, audit results with severities, and on some
    screens an ``npm ERR!`` resolution failure."""
    names = [
        "lodash",
        "axios",
        "react-dom",
        "webpack",
        "eslint",
        "typescript",
        "vite",
        "@babel/core",
        "@types/node",
        "uuid",
        "glob",
        "rimraf",
        "inflight",
        "chokidar",
    ]

    def lines() -> Iterator[Shown]:
        yield line("$ npm install")
        for _ in range(rng.randint(1, 6)):
            name = rng.choice(names)
            yield line(
                ("npm ", ""),
                ("WARN", "30;43"),
                " ",
                ("deprecated", "35"),
                f" {name}@{version(rng)}: {sentence(rng, 6)}",
            )
        if rng.random() < 0.3:
            yield line(("npm ", ""), ("ERR!", "31;40"), " ", ("code", "35"), " ERESOLVE")
            yield line(
                ("npm ", ""),
                ("ERR!", "31;40"),
                " ",
                ("ERESOLVE", "35"),
                " unable to resolve dependency tree",
            )
            yield line(("npm ", ""), ("ERR!", "31;40"))
            yield line(
                ("npm ", ""), ("ERR!", "31;40"), f" While resolving: {project(rng)}@{version(rng)}"
            )
            yield line(("npm ", ""), ("ERR!", "31;40"), f" Found: react@{version(rng)}")
            yield line(
                ("npm ", ""),
                ("ERR!", "31;40"),
                f' Could not resolve dependency: peer react@"^{rng.randint(15, 18)}.0.0"',
            )
            return
        yield blank()
        yield line(
            f"added {rng.randint(20, 1500)} packages, and audited {rng.randint(1500, 2500)} "
            f"packages in {rng.randint(2, 59)}s"
        )
        yield blank()
        yield line(f"{rng.randint(40, 300)} packages are looking for funding")
        yield line("  run `npm fund` for details")
        yield blank()
        low, high = rng.randint(0, 9), rng.randint(0, 4)
        yield line(
            f"{low + high} vulnerabilities (",
            (f"{low} low", BOLD),
            ", ",
            (f"{high} high", "1;31"),
            ")",
        )
        yield blank()
        yield line("To address all issues, run:")
        yield line("  npm audit fix")

    return runs(lambda: list(lines()), columns, rows)
