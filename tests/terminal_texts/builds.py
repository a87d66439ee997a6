"""Test runners, builds and source code: pytest's report, CMake and make
building, and code thick with the operators ligature fonts join."""

from __future__ import annotations

import random
from collections.abc import Iterator

from tests.terminal_shown import Shown
from tests.terminal_texts.build import (
    BOLD,
    NOUNS,
    Screen,
    blank,
    camel,
    hexid,
    line,
    module_path,
    project,
    runs,
    sentence,
    snake,
    version,
)

__all__ = ["ligatures", "make_build", "pytest_output"]


def pytest_output(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """A pytest run: the session header, progress lines of dots and ``F``s
    with their percentages at the right edge, failures with the test's code,
    ``>`` and ``E`` lines, the short summary and the coloured last line, the
    ``=`` and ``_`` rules as wide as the screen."""
    width = columns

    def rule(char: str, title: str, sgr: str = "") -> Shown:
        side = max(1, (width - len(title) - 2) // 2)
        text = f"{char * side} {title} {char * side}"
        return line((text[:width], sgr))

    def run() -> list[Shown]:
        name = project(rng)
        tests = [f"tests/test_{rng.choice(NOUNS)}.py" for _ in range(rng.randint(3, 14))]
        counts = [rng.randint(1, 40) for _ in tests]
        total = sum(counts)
        failures: list[tuple[str, str]] = []
        out = [
            rule("=", "test session starts", BOLD),
            line(f"platform linux -- Python 3.11.2, pytest-{version(rng)}, pluggy-1.5.0"),
            line(f"rootdir: /home/me/src/{name}"),
            line("configfile: pyproject.toml"),
            line(f"plugins: anyio-4.{rng.randint(0, 9)}.0, cov-5.0.0"),
            line((f"collected {total} items", BOLD)),
            blank(),
        ]
        done = 0
        for path, count in zip(tests, counts, strict=True):
            marks = "".join(rng.choice("......F.s.") for _ in range(count))
            for n, mark in enumerate(marks):
                if mark == "F":
                    failures.append((path, f"test_{snake(rng)}_{n}"))
            done += count
            percent = f"[{100 * done // total:>3}%]"
            room = width - len(path) - 1 - len(percent)
            shown = marks[: max(1, room - 1)]
            parts: list[tuple[str, str]] = [(path + " ", "")]
            for mark in shown:
                parts.append((mark, {"F": "31", "s": "33"}.get(mark, "32")))
            gap = " " * max(1, width - len(path) - 1 - len(shown) - len(percent))
            out.append(line(*parts, gap, (percent, "32" if not failures else "31")))
        out.append(blank())
        if failures:
            out.append(rule("=", "FAILURES", BOLD))
            for path, test in failures[:3]:
                expected, got = rng.randint(2, 99), rng.randint(2, 99)
                fn = snake(rng)
                out += [
                    rule("_", test, "1;31"),
                    blank(),
                    line(f"    def {test}():"),
                    line(
                        f"        {rng.choice(NOUNS)} = {camel(rng)}(retries={rng.randint(1, 5)})"
                    ),
                    line(("> ", "1;31"), f"      assert {fn}({rng.randint(1, 9)}) == {expected}"),
                    line(("E       assert ", "1;31"), (f"{got} == {expected}", "1;31")),
                    line(
                        ("E        +  where ", "1;31"),
                        (f"{got} = {fn}({rng.randint(1, 9)})", "1;31"),
                    ),
                    blank(),
                    line((f"{path}", "1;31"), f":{rng.randint(10, 400)}: AssertionError"),
                ]
            out.append(rule("=", "short test summary info", "36"))
            for path, test in failures:
                out.append(line(("FAILED", "31"), f" {path}::{test} - assert"))
        passed = total - len(failures)
        took = f"{rng.randint(1, 90)}.{rng.randint(10, 99)}s"
        summary = f"{len(failures)} failed, {passed} passed in {took}"
        out.append(rule("=", summary, "31" if failures else "32"))
        return out

    # A short screen shows the end of the run, as a terminal does.
    return runs(run, columns, rows, tail=True)


def make_build(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """CMake configuring then make building: ``-- `` lines, ``[ 42%] Building
    C object`` in green, linking in bold green, warnings, ``Built target``."""
    name = project(rng)

    def lines() -> Iterator[Shown]:
        sources = [
            module_path(rng, "src", rng.choice(("c", "cpp"))) for _ in range(rng.randint(4, 40))
        ]
        yield line("$ cmake -S . -B build -DCMAKE_BUILD_TYPE=Release")
        yield line("-- The C compiler identification is GNU 12.2.0")
        yield line("-- The CXX compiler identification is GNU 12.2.0")
        yield line("-- Detecting C compiler ABI info - done")
        yield line('-- Found ZLIB: /usr/lib/x86_64-linux-gnu/libz.so (found version "1.2.13")')
        yield line("-- Configuring done (0.4s)")
        yield line("-- Generating done (0.0s)")
        yield line(f"-- Build files have been written to: /home/me/src/{name}/build")
        yield line(f"$ cmake --build build -j{rng.randint(2, 16)}")
        for n, source in enumerate(sources):
            percent = 100 * (n + 1) // (len(sources) + 2)
            language = "CXX" if source.endswith("pp") else "C"
            target = rng.choice((name, f"{name}_core", "tests"))
            yield line(
                f"[{percent:>3}%] ",
                (
                    f"Building {language} object src/CMakeFiles/"
                    f"{target}.dir/{source.removeprefix('src/')}.o",
                    "32",
                ),
            )
            if rng.random() < 0.12:
                yield line(
                    (
                        f"/home/me/src/{name}/{source}:{rng.randint(5, 900)}:"
                        f"{rng.randint(1, 40)}: ",
                        BOLD,
                    ),
                    ("warning:", "1;35"),
                    f" unused variable '{snake(rng)}' [-Wunused-variable]",
                )
        yield line("[ 97%] ", (f"Linking C executable {name}", "1;32"))
        yield line(f"[100%] Built target {name}")

    return runs(lambda: list(lines()), columns, rows)


def ligatures(rng: random.Random, columns: int, rows: int) -> list[Shown]:
    """Source code thick with what ligature fonts join: ``->``, ``=>``,
    ``!=``, ``===``, ``<=``, ``>=``, ``::``, ``//``, ``&&``, ``||``, ``|>``,
    ``..=``, shown by ``cat`` or by ``bat`` with its numbered ``│`` gutter."""
    ident, ty, other = snake(rng, 2), camel(rng), rng.choice(NOUNS)
    snippets = [
        f"const {camel(rng)} = ({other}: {ty}) => {other}.{rng.choice(NOUNS)} !== null;",
        f"if ({other} != null && {other}.length >= {rng.randint(1, 9)} || flag === false) {{",
        f"fn {ident}(input: &str) -> Result<{ty}, Box<dyn std::error::Error>> {{",
        f"    let total: u64 = items.iter().map(|x| x.{other}).sum::<u64>();",
        f"    for i in 0..={rng.randint(3, 99)} {{ if i % 2 == 0 {{ continue; }} }}",
        f"    std::collections::HashMap::<String, {ty}>::new()",
        f"// TODO({rng.choice(NOUNS)}): {sentence(rng, 5).lower()} -> see #{rng.randint(10, 9999)}",
        f"{other} |> Enum.map(&(&1 * 2)) |> Enum.filter(fn x -> x >= 10 end)",
        f"  {ident} :: [{ty}] -> Maybe {ty}",
        f"  {ident} xs = foldr (\\x acc -> if x <= acc then x else acc) <$> xs",
        "while (i-- > 0 && *p++ != '\\0') { n <<= 1; n |= mask >> 3; }",
        f"  return a <=> b;  /* www.example.com :: {other} */",
        f"export type {ty} = {{ {other}?: string | null; id: number }};",
        f"{other} ??= {{}}; {other}.{rng.choice(NOUNS)} ||= [];",
        "#[derive(Debug, Clone, PartialEq, Eq)]",
        f'    match {other} {{ Some(x) => x, None => return Err("{ident}".into()) }}',
        f'<!-- {sentence(rng, 3)} --> <a href="/{other}">{other}</a>',
        f'assert {ident}(0x{hexid(rng, 4)}) == {rng.randint(0, 99)}, "{other} mismatch"',
    ]
    rng.shuffle(snippets)
    numbered = rng.random() < 0.5
    screen = Screen(columns, rows)
    if numbered:
        screen.add(line("─" * 7 + "┬" + "─" * (columns - 9)))
        screen.add(line("       │ File: ", (f"src/{ident}.ts", BOLD)))
        screen.add(line("─" * 7 + "┼" + "─" * (columns - 9)))
    n = rng.randint(1, 300)
    while True:
        for code in snippets:
            if screen.full:
                return screen.lines
            screen.add(line(f"{n:>6} │ ", code) if numbered else line(code))
            n += 1
        rng.shuffle(snippets)
