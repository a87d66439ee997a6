"""Kinds of text for the third dev set of kinds (``REPORTS``): errors and
reports of tools neither part of the corpus holds, written as the corpus's
kinds are (tests/terminal_texts): a Ruby backtrace, a .NET exception, a
Gradle build failure, ESLint's report, a MySQL result table drawn in ASCII
(``+----+``, ``|``) and ``ip addr``.

None of them is a held-out kind of the corpus or close to one (its Rust,
Go, pytest, psql, kubectl and YAML kinds), so tuning on them leaves the
held-out part held out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    BOLD,
    NOUNS,
    Screen,
    blank,
    camel,
    hexid,
    line,
    project,
    snake,
    version,
)

Kind = Callable[[random.Random, int, int], list[Shown]]


def ruby_backtrace(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A Ruby program failing: the error with its class, then ``from`` frames."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            name = project(rng)
            model = rng.choice(NOUNS)
            error = rng.choice(
                (
                    f"undefined method `{snake(rng)}' for nil:NilClass (NoMethodError)",
                    f"uninitialized constant {camel(rng)}::{camel(rng)} (NameError)",
                    f"wrong number of arguments (given {rng.randint(0, 3)}, expected "
                    f"{rng.randint(1, 4)}) (ArgumentError)",
                    f"Couldn't find {camel(rng, 1)} with 'id'={rng.randint(1, 9999)} "
                    "(ActiveRecord::RecordNotFound)",
                )
            )
            out = [
                line(f"$ bundle exec ruby bin/{rng.choice(NOUNS)}.rb"),
                line(
                    f"app/models/{model}.rb:{rng.randint(3, 400)}:in `{snake(rng)}': ",
                    (error, "1;31"),
                ),
            ]
            for _ in range(rng.randint(3, 8)):
                where = f"{rng.choice(('app/models', 'app/services', 'lib'))}/{rng.choice(NOUNS)}"
                method = rng.choice((f"block in {snake(rng)}", snake(rng), "each", "map"))
                out.append(line(f"        from {where}.rb:{rng.randint(1, 300)}:in `{method}'"))
            out.append(line(f"        from bin/{name}:{rng.randint(3, 40)}:in `<main>'"))
            yield out

    return Screen(columns, rows).fill(blocks())


def dotnet_exception(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A .NET program failing: ``Unhandled exception.`` and its ``at`` frames."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            space = f"{camel(rng, 1)}.{camel(rng, 1)}"
            error = rng.choice(
                (
                    "System.InvalidOperationException: Sequence contains no elements",
                    "System.NullReferenceException: Object reference not set to an "
                    "instance of an object.",
                    f"System.IO.FileNotFoundException: Could not find file "
                    f"'/app/{rng.choice(NOUNS)}.json'.",
                    f"System.ArgumentOutOfRangeException: Index was out of range. Must be "
                    f"non-negative and less than the size of the collection. (Parameter "
                    f"'{rng.choice(NOUNS)}')",
                )
            )
            out = [
                line(f"$ dotnet run --project src/{space}"),
                line(("Unhandled exception. ", "31"), (error, "31")),
            ]
            for _ in range(rng.randint(3, 8)):
                cls = f"{space}.{camel(rng)}"
                args = rng.choice(("", "String name", "Int32 id, CancellationToken token"))
                where = f"/src/{space}/{camel(rng)}.cs:line {rng.randint(10, 600)}"
                out.append(line(f"   at {cls}.{camel(rng)}({args}) in {where}"))
            out.append(line(f"   at {space}.Program.Main(String[] args) in /src/Program.cs:line 7"))
            yield out

    return Screen(columns, rows).fill(blocks())


def gradle_failure(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A Gradle build failing: the compiler's errors, then what went wrong."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            package = f"com/{project(rng)}/{rng.choice(NOUNS)}"
            out = [line("$ ./gradlew build"), line("> Task :app:compileJava FAILED")]
            for _ in range(rng.randint(1, 3)):
                file = f"/home/dev/app/src/main/java/{package}/{camel(rng)}.java"
                symbol = f"{rng.choice(('method', 'variable', 'class'))} {camel(rng)}"
                out += [
                    line(
                        f"{file}:{rng.randint(5, 300)}: ", ("error", "31"), ": cannot find symbol"
                    ),
                    line(f"        {rng.choice(NOUNS)}.{snake(rng)}({rng.choice(NOUNS)});"),
                    line("        ^"),
                    line(f"  symbol:   {symbol}"),
                ]
            count = rng.randint(1, 9)
            out += [
                line(f"{count} error{'s' if count > 1 else ''}"),
                blank(),
                line(("FAILURE: Build failed with an exception.", "1;31")),
                blank(),
                line(("* What went wrong:", BOLD)),
                line("Execution failed for task ':app:compileJava'."),
                line("> Compilation failed; see the compiler error output for details."),
                blank(),
                line(("* Try:", BOLD)),
                line("> Run with --stacktrace option to get the stack trace."),
                blank(),
                line(("BUILD FAILED", "1;31"), f" in {rng.randint(1, 59)}s"),
                line(f"{rng.randint(1, 9)} actionable tasks: {rng.randint(1, 9)} executed"),
            ]
            yield out

    return Screen(columns, rows).fill(blocks())


def eslint_report(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """ESLint's report: each file, its problems by line and column, a total."""
    rules = (
        ("'{}' is assigned a value but never used", "@typescript-eslint/no-unused-vars"),
        ("Unexpected any. Specify a different type", "@typescript-eslint/no-explicit-any"),
        ("React Hook useEffect has a missing dependency: '{}'", "react-hooks/exhaustive-deps"),
        ("Expected '===' and instead saw '=='", "eqeqeq"),
        ("'{}' is not defined", "no-undef"),
        ("Unexpected console statement", "no-console"),
    )

    def blocks() -> Iterator[list[Shown]]:
        yield [line("$ npx eslint src"), blank()]
        while True:
            path = f"/home/dev/{project(rng)}/src/{rng.choice(NOUNS)}/{camel(rng)}.tsx"
            out = [line((path, "4"))]
            for _ in range(rng.randint(1, 5)):
                message, rule = rng.choice(rules)
                where = f"{rng.randint(1, 400)}:{rng.randint(1, 80)}"
                kind = rng.choice((("error", "31"), ("warning", "33")))
                out.append(
                    line(
                        (f"  {where:>7}", "2"),
                        "  ",
                        kind,
                        " " * (9 - len(kind[0])),
                        f"{message.format(snake(rng))}  ",
                        (rule, "2"),
                    )
                )
            errors, warnings = rng.randint(0, 20), rng.randint(0, 20)
            yield [*out, blank()]
            if rng.random() < 0.3:
                yield [
                    line(
                        (
                            f"✖ {errors + warnings} problems ({errors} errors, "
                            f"{warnings} warnings)",
                            "1;31",
                        )
                    ),
                    blank(),
                ]

    return Screen(columns, rows).fill(blocks())


def mysql_table(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """The MySQL client's query and its result, a table drawn in ASCII."""

    def blocks() -> Iterator[list[Shown]]:
        while True:
            table = f"{rng.choice(NOUNS)}s"
            names = ["id", snake(rng, 2), rng.choice(NOUNS), "created_at"]
            body = []
            for _ in range(rng.randint(2, 8)):
                body.append(
                    [
                        str(rng.randint(1, 99999)),
                        rng.choice((snake(rng), hexid(rng, 12), "NULL")),
                        rng.choice((version(rng), str(rng.randint(0, 999)), camel(rng))),
                        f"2026-{rng.randint(1, 12):02}-{rng.randint(1, 28):02} "
                        f"{rng.randint(0, 23):02}:{rng.randint(0, 59):02}:{rng.randint(0, 59):02}",
                    ]
                )
            widths = [max(len(r[i]) for r in [names, *body]) for i in range(len(names))]
            rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

            def row(cells: list[str], widths: list[int] = widths) -> Shown:
                padded = (cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
                return line("| " + " | ".join(padded) + " |")

            yield [
                line(f"mysql> SELECT {', '.join(names)} FROM {table} LIMIT {len(body)};"),
                line(rule),
                row(names),
                line(rule),
                *(row(cells) for cells in body),
                line(rule),
                line(f"{len(body)} rows in set (0.{rng.randint(0, 99):02} sec)"),
                blank(),
            ]

    return Screen(columns, rows).fill(blocks())


def ip_addr(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``ip addr``: each interface, its flags, its link and its addresses."""

    def mac() -> str:
        return ":".join(hexid(rng, 2) for _ in range(6))

    def blocks() -> Iterator[list[Shown]]:
        while True:
            yield [line("$ ip addr")]
            yield from interfaces()

    def interfaces() -> Iterator[list[Shown]]:
        names = ["lo", "eth0", "wlp3s0", "docker0", f"veth{hexid(rng, 7)}", "br-" + hexid(rng, 12)]
        for n, name in enumerate(names[: rng.randint(2, len(names))], 1):
            up = "UP" if rng.random() < 0.7 else "DOWN"
            flags = "LOOPBACK,UP,LOWER_UP" if name == "lo" else f"BROADCAST,MULTICAST,{up}"
            state = "UNKNOWN" if name == "lo" else up
            mtu = 65536 if name == "lo" else rng.choice((1500, 1450, 9000))
            address = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
            yield [
                line(
                    f"{n}: ",
                    (name, BOLD),
                    f": <{flags}> mtu {mtu} qdisc {rng.choice(('noqueue', 'fq_codel'))} "
                    f"state {state} group default qlen 1000",
                ),
                line(
                    "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00"
                    if name == "lo"
                    else f"    link/ether {mac()} brd ff:ff:ff:ff:ff:ff"
                ),
                line(
                    f"    inet {address}/{rng.choice((8, 16, 24))} brd {address} scope global "
                    f"dynamic {name}"
                ),
                line(f"       valid_lft {rng.randint(100, 86400)}sec preferred_lft forever"),
                line(
                    f"    inet6 fe80::{hexid(rng, 4)}:{hexid(rng, 4)}:{hexid(rng, 4)}/64 scope link"
                ),
            ]

    return Screen(columns, rows).fill(blocks())


REPORTS: dict[str, Kind] = {
    "dotnet-exception": dotnet_exception,
    "eslint-report": eslint_report,
    "gradle-failure": gradle_failure,
    "ip-addr": ip_addr,
    "mysql-table": mysql_table,
    "ruby-backtrace": ruby_backtrace,
}
