"""Compilers, interpreters and type checkers: what a person pastes when a
build or a run fails (tracebacks, errors under source lines with carets and
tildes), with the colours each tool prints."""

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
    hexid,
    line,
    module_path,
    pick,
    project,
    runs,
    snake,
    tricky,
    version,
)

__all__ = [
    "gcc_error",
    "go_panic",
    "mypy_errors",
    "python_traceback",
    "rustc_error",
    "tsc_error",
]


def _prompt(rng: random.Random, command: str) -> Shown:
    return line(("$ ", ""), command)


def _args(rng: random.Random) -> str:
    return ", ".join(rng.choice(NOUNS) for _ in range(rng.randint(1, 3)))


# --- Python ---------------------------------------------------------------------------


def _py_statement(rng: random.Random) -> tuple[str, str]:
    """A source line and the marks Python 3.11+ prints under it ("" for none)."""
    a, b, fn = rng.choice(NOUNS), rng.choice(NOUNS), snake(rng)
    choice = rng.randrange(5)
    if choice == 0:
        call = f"{fn}({_args(rng)})"
        code = f"{rng.choice(NOUNS)} = {call}"
        return code, " " * (len(code) - len(call)) + "^" * len(call)
    if choice == 1:
        obj = f"{a}.{snake(rng, 2)}({b})"
        key = f'["{rng.choice(NOUNS)}s"]'
        code = f"return {obj}{key}"
        return code, " " * 7 + "~" * len(obj) + "^" * len(key)
    if choice == 2:
        left, right = f"{a}.{rng.choice(NOUNS)}_count", f"len({b}s)"
        code = f"ratio = {left} / {right}"
        return code, " " * 8 + "~" * len(left) + "~^~" + "~" * len(right)
    if choice == 3:
        return f'with open({a}_path, "rb") as fh:', ""
    return f'{a} = int({b}.get("{rng.choice(NOUNS)}_id", 0))', ""


_PY_ERRORS = (
    lambda rng: ("KeyError", f"'{rng.choice(NOUNS)}s'"),
    lambda rng: ("ValueError", f"invalid literal for int() with base 10: '{tricky(rng)}'"),
    lambda rng: ("TypeError", "unsupported operand type(s) for /: 'NoneType' and 'int'"),
    lambda rng: ("AttributeError", f"'NoneType' object has no attribute '{snake(rng)}'"),
    lambda rng: ("ZeroDivisionError", "division by zero"),
    lambda rng: (
        "FileNotFoundError",
        f"[Errno 2] No such file or directory: 'config/{rng.choice(NOUNS)}.toml'",
    ),
    lambda rng: ("ModuleNotFoundError", f"No module named '{pick(rng, PACKAGES)}'"),
    lambda rng: (
        "json.decoder.JSONDecodeError",
        f"Expecting value: line {rng.randint(1, 9)} column {rng.randint(1, 80)} "
        f"(char {rng.randint(0, 999)})",
    ),
    lambda rng: (
        "requests.exceptions.ConnectionError",
        f"HTTPSConnectionPool(host='api.{project(rng)}.io', port=443): Max retries exceeded",
    ),
)


def _traceback(rng: random.Random, columns: int, *, coloured: bool) -> list[Shown]:
    """One traceback: frames in the project, then in a library, the error."""
    name = project(rng)
    roots = [f"/home/me/src/{name}/src/{name}", f"src/{name}"]
    library = rng.choice(PACKAGES)
    out = [line("Traceback (most recent call last):")]
    for depth in range(rng.randint(1, 4)):
        if depth >= 2 and rng.random() < 0.6:
            path = f"/home/me/src/{name}/.venv/lib/python3.11/site-packages/{library}/"
            path += f"{rng.choice(NOUNS)}.py"
        else:
            path = module_path(rng, rng.choice(roots), "py")
        if len(path) + 40 > columns:
            path = module_path(rng, f"src/{name}", "py")
        number, function = str(rng.randint(3, 980)), rng.choice((snake(rng), "<module>", "main"))
        mag = "35" if coloured else ""
        out.append(
            line('  File "', (path, mag), '", line ', (number, mag), ", in ", (function, mag))
        )
        code, marks = _py_statement(rng)
        indent = "    "
        out.append(line(indent + code))
        if marks and rng.random() < 0.8:
            parts: list[tuple[str, str]] = []
            for char in marks.lstrip():
                sgr = ("1;31" if char == "^" else "31") if coloured else ""
                if parts and parts[-1][1] == sgr:
                    parts[-1] = (parts[-1][0] + char, sgr)
                else:
                    parts.append((char, sgr))
            out.append(line(indent + " " * (len(marks) - len(marks.lstrip())), *parts))
    kind, message = rng.choice(_PY_ERRORS)(rng)
    out.append(line((kind, "1;35" if coloured else ""), ": ", (message, "35" if coloured else "")))
    return out


def python_traceback(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A Python program failing: the command, log lines, a traceback (Python
    3.11's ``^^^`` and ``~~~`` marks under the failing expression, 3.13's
    colours on some screens), sometimes chained to a second one."""
    coloured = rng.random() < 0.5

    def blocks() -> Iterator[list[Shown]]:
        while True:
            name = project(rng)
            command = rng.choice(
                (
                    f"python -m {name}.cli {rng.choice(NOUNS)} --batch-size {rng.randint(1, 900)}",
                    f"python scripts/{snake(rng)}.py --dry-run",
                    f"./manage.py {snake(rng, 2)} --settings={name}.settings.dev",
                )
            )
            yield [_prompt(rng, command)]
            first = _traceback(rng, columns, coloured=coloured)
            if rng.random() < 0.3:
                first += [
                    blank(),
                    line(
                        rng.choice(
                            (
                                "During handling of the above exception, another exception "
                                "occurred:",
                                "The above exception was the direct cause of the following "
                                "exception:",
                            )
                        )
                    ),
                    blank(),
                    *_traceback(rng, columns, coloured=coloured),
                ]
            yield first

    return Screen(columns, rows).fill(blocks())


# --- C ---------------------------------------------------------------------------------


def _gcc_diagnostic(rng: random.Random, path: str) -> list[Shown]:
    """One gcc diagnostic: the location and message, the source line with its
    number in a gutter, the caret and tildes under the culprit, maybe a fix-it."""
    ident = snake(rng, 2)
    typo = ident[:-1] if len(ident) > 5 else ident + "s"
    number, column = rng.randint(12, 2400), 0
    kind = rng.choice(("error", "error", "warning", "note"))
    choices = [
        (
            f"    size_t n = {typo}->len;",
            typo,
            f"'{typo}' undeclared (first use in this function); did you mean '{ident}'?",
            ident,
        ),
        (
            f"    if ({ident} = NULL) {{",
            f"{ident} = NULL",
            "suggest parentheses around assignment used as truth value [-Wparentheses]",
            "",
        ),
        (
            f"    return {ident}({rng.choice(NOUNS)}, {rng.randint(0, 64)})",
            f"{ident}({rng.choice(NOUNS)}, {rng.randint(0, 64)})",
            "expected ';' before '}' token",
            "",
        ),
        (
            f"    struct {camel(rng)} *{rng.choice(NOUNS)} = malloc(sizeof *{ident});",
            ident,
            f"'{ident}' may be used uninitialized [-Wmaybe-uninitialized]",
            "",
        ),
        (
            f'    printf("%d\\n", {ident});',
            "%d",
            "format '%d' expects argument of type 'int', but argument 2 has type 'long int' "
            "[-Wformat=]",
            "%ld",
        ),
    ]
    code, culprit, message, fix = rng.choice(choices)
    column = code.index(culprit) if culprit in code else 4
    colour = {"error": "1;31", "warning": "1;35", "note": "1;36"}[kind]
    gutter = f"{number:>5} | "
    under = " " * column + "^" + "~" * (len(culprit) - 1)
    out = [
        line((f"{path}:{number}:{column + 1}: ", BOLD), (f"{kind}:", colour), f" {message}"),
        line(gutter + code),
        line(" " * 6 + "| ", (under, "1;32")),
    ]
    if fix:
        out.append(line(" " * 6 + "| ", (" " * column + fix, "32")))
    return out


def gcc_error(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """gcc failing a build: ``In function 'x':``, diagnostics with the source
    line, ``^~~~`` under it and fix-it hints, then make giving up."""
    name = project(rng)

    def blocks() -> Iterator[list[Shown]]:
        yield [line(f"$ make -j{rng.randint(2, 16)}")]
        while True:
            path = module_path(rng, "src", "c")
            obj = path.replace("src/", "build/").replace(".c", ".o")
            yield [line(f"cc -O2 -g -Wall -Wextra -Iinclude -c {path} -o {obj}")]
            block = [line((f"{path}:", BOLD), " In function ", (f"'{snake(rng)}'", BOLD), ":")]
            for _ in range(rng.randint(1, 3)):
                block += _gcc_diagnostic(rng, path)
            yield block
            if rng.random() < 0.4:
                yield [
                    line(f"make: *** [Makefile:{rng.randint(10, 90)}: {obj}] Error 1"),
                    line(f"make: *** Waiting for unfinished jobs.... ({name})"),
                ]

    return Screen(columns, rows).fill(blocks())


# --- Rust --------------------------------------------------------------------------------


def rustc_error(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """cargo build failing: ``error[E0382]`` with its ``-->`` location, the
    source lines in a ``|`` gutter with ``^^^`` and ``---`` labels, notes,
    help with ``+++`` additions, and the summary."""
    crate = project(rng)

    def diagnostic() -> list[Shown]:
        var, ty, fn = rng.choice(NOUNS), camel(rng), snake(rng)
        path = module_path(rng, "src", "rs")
        n = rng.randint(20, 800)
        width = len(str(n + 2))
        pad = " " * width
        blue = "1;34"

        def src(number: int, code: str) -> Shown:
            return line((f"{number:>{width}} |", blue), f" {code}")

        def mark(at: int, length: int, char: str, label: str, sgr: str) -> Shown:
            return line((f"{pad} |", blue), " " * (at + 1), (char * length + " " + label, sgr))

        code1 = f"    let {var} = {fn}(&{rng.choice(NOUNS)})?;"
        code2 = f"    let {rng.choice(NOUNS)} = {ty}::new({var});"
        used = f"{var}.{rng.choice(NOUNS)}"
        code3 = f'    println!("{{}}", {used});'
        kind = rng.randrange(3)
        out = []
        if kind == 0:
            out.append(line(("error[E0382]", "1;31"), (f": borrow of moved value: `{var}`", BOLD)))
        elif kind == 1:
            out.append(line(("error[E0308]", "1;31"), (": mismatched types", BOLD)))
        else:
            out.append(line(("warning", "1;33"), (f": unused variable: `{var}`", BOLD)))
        at = {0: (n + 2, code3.index(used)), 1: (n, 0), 2: (n, code1.index(var))}[kind]
        out.append(line((f"{pad}--> ", blue), f"{path}:{at[0]}:{at[1] + 1}"))
        out.append(line((f"{pad} |", blue)))
        if kind == 0:
            out += [
                src(n, code1),
                mark(
                    code1.index(var),
                    len(var),
                    "-",
                    f"move occurs because `{var}` has type `{ty}`, which does not implement "
                    "the `Copy` trait",
                    blue,
                ),
                src(n + 1, code2),
                mark(code2.index(f"({var})") + 1, len(var), "-", "value moved here", blue),
                src(n + 2, code3),
                mark(code3.index(used), len(used), "^", "value borrowed here after move", "1;31"),
                line((f"{pad} |", blue)),
                line(
                    ("help", "1;36"),
                    ": consider cloning the value if the performance cost is acceptable",
                ),
                line((f"{pad} |", blue)),
                line(
                    (f"{n + 1:>{width}} |", blue), f" {code2.replace(var + ')', var + '.clone())')}"
                ),
                line(
                    (f"{pad} |", blue),
                    " " * (code2.index(f"({var})") + len(var) + 2),
                    ("++++++++", "32"),
                ),
            ]
        elif kind == 1:
            found = rng.choice(("&str", "Option<u32>", "i64", "Vec<u8>"))
            code = f"    let {var}: {ty} = {fn}({rng.randint(0, 99)});"
            start = code.index(fn)
            out += [
                src(n, code),
                line(
                    (f"{pad} |", blue),
                    " " * (code.index(ty) + 1),
                    ("-" * len(ty), blue),
                    "   ",
                    ("^" * (len(code) - start - 1), "1;31"),
                    (f" expected `{ty}`, found `{found}`", "1;31"),
                ),
                line((f"{pad} |", blue), " " * (code.index(ty) + 1), ("|", blue)),
                line(
                    (f"{pad} |", blue), " " * (code.index(ty) + 1), ("expected due to this", blue)
                ),
                line((f"{pad} |", blue)),
                line(
                    (f"{pad} = ", blue),
                    ("note", BOLD),
                    f": expected struct `{ty}`, found `{found}`",
                ),
            ]
        else:
            out += [
                src(n, code1),
                mark(
                    code1.index(var),
                    len(var),
                    "^",
                    f"help: if this is intentional, prefix it with an underscore: `_{var}`",
                    "1;33",
                ),
                line((f"{pad} |", blue)),
                line(
                    (f"{pad} = ", blue),
                    ("note", BOLD),
                    ": `#[warn(unused_variables)]` on by default",
                ),
            ]
        return [*out, blank()]

    def blocks() -> Iterator[list[Shown]]:
        yield [line("$ cargo build")]
        yield [line(("   Compiling", "1;32"), f" {crate} v{version(rng)} (/home/me/src/{crate})")]
        count = 0
        while True:
            found = diagnostic()
            count += found[0].plain.startswith("error")
            yield found
            if count and rng.random() < 0.25:
                yield [
                    line(
                        ("error", "1;31"),
                        (
                            f': could not compile `{crate}` (bin "{crate}") '
                            f"due to {count} previous error{'s' if count > 1 else ''}",
                            BOLD,
                        ),
                    ),
                    blank(),
                ]

    return Screen(columns, rows).fill(blocks())


# --- TypeScript and mypy ----------------------------------------------------------------


def tsc_error(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """``tsc --pretty`` errors: the file in cyan, the line number in reverse
    video, the source line and ``~~~~`` under the culprit in red, then the
    count and its table of files."""
    files: dict[str, int] = {}

    def diagnostic() -> list[Shown]:
        path = module_path(rng, "src", rng.choice(("ts", "tsx")))
        n = rng.randint(5, 900)
        prop, ty = f"{rng.choice(NOUNS)}{camel(rng, 1)}", camel(rng) + "Options"
        mod = rng.choice(NOUNS)
        options = [
            (
                f"    if (opts.{prop} > {rng.randint(1, 9)}) {{",
                prop,
                "TS2339",
                f"Property '{prop}' does not exist on type '{ty}'.",
            ),
            (
                f"  const {prop}: number = {rng.choice(NOUNS)}.id;",
                prop,
                "TS2322",
                "Type 'string' is not assignable to type 'number'.",
            ),
            (
                f"  return {snake(rng, 2)}({rng.choice(NOUNS)}, null);",
                "null",
                "TS2345",
                f"Argument of type 'null' is not assignable to parameter of type '{ty}'.",
            ),
            (
                f'import {{ {camel(rng)} }} from "./{mod}";',
                f'"./{mod}"',
                "TS2307",
                f"Cannot find module './{mod}' or its corresponding type declarations.",
            ),
        ]
        code, culprit, number, message = rng.choice(options)
        column = code.index(culprit)
        files[path] = files.get(path, 0) + 1
        gutter = str(n)
        return [
            line(
                (path, "96"),
                ":",
                (str(n), "93"),
                ":",
                (str(column + 1), "93"),
                " - ",
                ("error", "91"),
                f" {number}: {message}",
            ),
            blank(),
            line((gutter, "7"), " " + code),
            line((" " * len(gutter), "7"), " " + " " * column, ("~" * len(culprit), "91")),
            blank(),
        ]

    def blocks() -> Iterator[list[Shown]]:
        while True:
            yield from run()

    def run() -> Iterator[list[Shown]]:
        files.clear()
        yield [line("$ npx tsc --noEmit -p tsconfig.json"), blank()]
        for _ in range(rng.randint(2, 12)):
            yield diagnostic()
        total = sum(files.values())
        summary = [line(f"Found {total} errors in {len(files)} files."), blank()]
        summary.append(line("Errors  Files"))
        for path, count in files.items():
            summary.append(
                line(
                    f"{count:>6}  {path}",
                )
            )
        yield summary

    return Screen(columns, rows).fill(blocks())


def mypy_errors(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """mypy's report: ``path:line: error: ... [code]`` lines, notes, and the
    summary in red or green."""

    def report() -> Iterator[Shown]:
        name = project(rng)
        yield line(f"$ mypy src/{name}")
        count = 0
        files = set()
        for _ in range(rng.randint(3, 60)):
            path = module_path(rng, f"src/{name}", "py")
            files.add(path)
            where = (f"{path}:{rng.randint(1, 900)}:", BOLD)
            a, b = snake(rng), camel(rng)
            options = [
                (
                    "error",
                    f'Argument 1 to "{a}" has incompatible type "str | None"; expected "str"',
                    "arg-type",
                ),
                (
                    "error",
                    f'Item "None" of "{b} | None" has no attribute "{rng.choice(NOUNS)}"',
                    "union-attr",
                ),
                (
                    "error",
                    f'Incompatible return value type (got "list[{b}]", expected "dict[str, {b}]")',
                    "return-value",
                ),
                ("error", "Function is missing a return type annotation", "no-untyped-def"),
                ("error", f'Name "{a}" is not defined', "name-defined"),
                ("note", f'Revealed type is "builtins.dict[builtins.str, {name}.{b}]"', ""),
            ]
            kind, message, code = rng.choice(options)
            count += kind == "error"
            colour = "31" if kind == "error" else "34"
            tail = [("  ", ""), (f"[{code}]", "33")] if code else []
            yield line(where, " ", (f"{kind}:", colour), f" {message}", *tail)
        summary = f"Found {count} errors in {len(files)} files (checked {rng.randint(20, 300)} "
        summary += "source files)"
        yield line((summary, "1;31"))

    return runs(lambda: list(report()), columns, rows)


# --- Go -----------------------------------------------------------------------------------


def go_panic(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A Go program panicking: the panic message, the goroutine and its
    frames (function, then the file and line with its ``+0x`` offset),
    ``exit status 2``."""
    module = f"github.com/{rng.choice(NOUNS)}co/{project(rng)}"

    def blocks() -> Iterator[list[Shown]]:
        while True:
            yield [line(f"$ go run ./cmd/{project(rng)}")]
            message = rng.choice(
                (
                    "runtime error: invalid memory address or nil pointer dereference",
                    f"runtime error: index out of range [{rng.randint(1, 9)}] with length "
                    f"{rng.randint(0, 1)}",
                    "assignment to entry in nil map",
                    f"{snake(rng)}: unexpected EOF",
                )
            )
            out = [line(("panic: ", BOLD), message)]
            if "nil pointer" in message:
                out.append(
                    line(
                        f"[signal SIGSEGV: segmentation violation code=0x1 addr=0x"
                        f"{rng.randint(0, 64):x} pc=0x{hexid(rng, 6)}]"
                    )
                )
            out += [blank(), line(f"goroutine {rng.randint(1, 90)} [running]:")]
            for _ in range(rng.randint(2, 6)):
                package = rng.choice(("internal/" + rng.choice(NOUNS), "pkg/" + rng.choice(NOUNS)))
                function = f"{module}/{package}.(*{camel(rng)}).{camel(rng)}"
                out.append(line(f"{function}(0x{hexid(rng, 10)}, 0x{hexid(rng, 10)})"))
                out.append(
                    line(
                        f"        /home/me/go/src/{module}/{package}/{rng.choice(NOUNS)}.go:"
                        f"{rng.randint(10, 700)} +0x{hexid(rng, rng.choice((2, 3)))}"
                    )
                )
            out += [line("exit status 2")]
            yield out

    return Screen(columns, rows).fill(blocks())
