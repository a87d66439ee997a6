"""docs/architecture.md is true: the code imports only across the lines its table draws,
and no module of src/noru reaches itself again through what it imports."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "noru"
PLAN = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\| `(?P<part>\w+)` \|[^|]*\|(?P<allowed>[^|]*)\|$")


def allowed_imports() -> dict[str, set[str]]:
    """The table of parts in docs/architecture.md: part -> the parts it may import."""
    table: dict[str, set[str]] = {}
    for line in PLAN.read_text().splitlines():
        if m := ROW.match(line):
            table[m["part"]] = set(re.findall(r"`(\w+)`", m["allowed"]))
    return table


def part_of(module: str) -> str:
    """``noru.store.reader`` -> ``store``; ``noru.cli`` -> ``cli``."""
    return module.split(".")[1]


def imports(path: Path) -> set[str]:
    """The parts of Noru the module at ``path`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "noru":
                found |= {alias.name for alias in node.names} - {"__version__"}
            elif node.module.startswith("noru."):
                found.add(part_of(node.module))
        elif isinstance(node, ast.Import):
            found |= {part_of(a.name) for a in node.names if a.name.startswith("noru.")}
    return found


def modules() -> list[Path]:
    return sorted(p for p in SOURCE.rglob("*.py") if p.name != "__main__.py")


def module_part(path: Path) -> str:
    relative = path.relative_to(SOURCE)
    return relative.parts[0].removesuffix(".py")


def test_the_table_names_every_part_of_the_package() -> None:
    parts = {module_part(path) for path in modules()} - {"__init__"}
    assert set(allowed_imports()) == parts


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(SOURCE)))
def test_a_module_imports_only_what_its_part_may(path: Path) -> None:
    part = module_part(path)
    if part == "__init__":
        return  # the package itself holds only the version
    extra = imports(path) - allowed_imports()[part] - {part}
    assert not extra, f"{part} may not import {sorted(extra)} (docs/architecture.md)"


def test_the_entry_points_never_import_each_other_downwards() -> None:
    table = allowed_imports()
    assert "mcp" not in table["app"] and "app" not in table["mcp"]
    for part, allowed in table.items():
        if part != "cli":
            assert "cli" not in allowed, part


def module_name(path: Path) -> str:
    """``src/noru/store/reader.py`` -> ``noru.store.reader``; a package is its ``__init__``."""
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports(path: Path, known: set[str]) -> set[str]:
    """The modules of Noru the module at ``path`` imports, anywhere in it (a
    function's lazy import and a TYPE_CHECKING one count: each is an arrow a
    reader follows). ``from noru.x import y`` is the module ``noru.x.y`` when
    there is one, else ``noru.x``; relative imports are resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                inner = f"{base}.{alias.name}"
                found.add(inner if inner in known else base)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return (found & known) - {name}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    paths = {module_name(path): path for path in modules()}
    known = set(paths)
    return {name: module_imports(path, known) for name, path in paths.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each set of modules that import one another round a circle (the graph's
    strongly connected components of more than one module), as one circle
    through them: ``[a, b, c, a]``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(one_circle(graph, component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def one_circle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest way from the component's first module back to itself."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        module = queue.pop(0)
        for imported in sorted(graph[module] & component):
            if imported == start:
                return [*paths[module], start]
            if imported not in paths:
                paths[imported] = [*paths[module], imported]
                queue.append(imported)
    raise AssertionError(f"no circle in {sorted(component)}")  # pragma: no cover


# Circles known today, each ended by the change named: the test below fails on
# any other circle, and the one after it once a known one is gone (delete it here).
KNOWN_CIRCLES: list[set[str]] = []


def test_no_module_imports_itself_round_a_circle() -> None:
    found = circles(import_graph())
    new = [c for c in found if not any(set(c) <= known for known in KNOWN_CIRCLES)]
    assert not new, "import circles: " + "; ".join(" -> ".join(c) for c in new)


def test_the_known_circles_are_still_there() -> None:
    found = circles(import_graph())
    ended = [known for known in KNOWN_CIRCLES if not any(set(c) <= known for c in found)]
    assert not ended, f"ended, delete from KNOWN_CIRCLES: {ended}"


def test_the_circle_finder_finds_a_circle_and_only_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert circles(graph) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_package_root_holds_only_the_version() -> None:
    assert imports(SOURCE / "__init__.py") == set()


# --- rooms of one job, entered by their front doors ------------------------------

MOST_LINES = 500  # past it a module is split by job (docs/architecture.md, STYLE.md)


def test_no_module_is_past_five_hundred_lines() -> None:
    long = {
        str(path.relative_to(SOURCE)): lines
        for path in modules()
        if (lines := len(path.read_text().splitlines())) > MOST_LINES
    }
    assert not long, f"split by job: {long}"


def private_names_across_parts(source: str, mine: str) -> set[str]:
    """The private names (``_x``) of parts other than ``mine`` that a
    module's ``source`` uses: imported by name, or read off an imported
    module (``appwire._codec``)."""
    tree = ast.parse(source)
    found: set[str] = set()
    modules_by_alias: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("noru"):
                continue
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                modules_by_alias[alias.asname or alias.name] = name
                theirs = part_of(name) if node.module == "noru" else part_of(node.module)
                if _private(alias.name) and theirs != mine:
                    found.add(name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("noru.") and alias.asname:
                    modules_by_alias[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules_by_alias
            and part_of(modules_by_alias[node.value.id]) != mine
        ):
            found.add(f"{modules_by_alias[node.value.id]}.{node.attr}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_part_uses_another_parts_private_names() -> None:
    used = {
        str(path.relative_to(SOURCE)): sorted(names)
        for path in modules()
        if (names := private_names_across_parts(path.read_text(), module_part(path)))
    }
    assert not used, f"private names used across parts: {used}"


def test_the_private_name_finder_finds_both_ways() -> None:
    source = (
        "from noru.capture.portal import _take_file, PortalBackend\n"
        "from noru import appwire\n"
        "from noru.app.memory import _quiet\n"  # its own part's: allowed
        "import noru.store.writer as writer\n"
        "appwire._codec(1)\n"
        "writer._seq, appwire.__name__\n"
    )
    assert private_names_across_parts(source, "app") == {
        "noru.capture.portal._take_file",
        "noru.appwire._codec",
        "noru.store.writer._seq",
    }


# --- the walk of one observe_screen ----------------------------------------------

WALK = "## The path of one `observe_screen`, from the stdio line to the grab and back"


def walk_section() -> str:
    """The one section of docs/architecture.md that follows an observe_screen."""
    text = PLAN.read_text()
    assert text.count(WALK) == 1, f"docs/architecture.md needs one section {WALK!r}"
    start = text.index(WALK)
    end = text.find("\n## ", start)
    return text[start : end if end != -1 else len(text)]


def _defines(node: ast.stmt, name: str) -> bool:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    if isinstance(node, ast.Import | ast.ImportFrom):
        return any((a.asname or a.name.split(".")[0]) == name for a in node.names)
    return False


def unfound(name: str) -> str | None:
    """Why the dotted ``noru.…`` name names nothing in src/noru (read, not
    imported); None when it names a module, or a name a module defines (a
    class's member included)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        place = SOURCE.parent.joinpath(*parts[:cut])
        file = place / "__init__.py" if place.is_dir() else place.parent / f"{place.name}.py"
        if file.is_file():
            break
    else:
        return "no such module"
    module = ast.parse(file.read_text()).body
    body: list[ast.stmt] = module
    for depth, attr in enumerate(parts[cut:], cut):
        node = next((n for n in body if _defines(n, attr)), None)
        if node is None:
            return f"{'.'.join(parts[:depth])} defines no {attr}"
        body = _members(module, node) if isinstance(node, ast.ClassDef) else []
    return None


def _members(module: list[ast.stmt], cls: ast.ClassDef) -> list[ast.stmt]:
    """A class's own statements, then those of its bases defined in the same module."""
    found = list(cls.body)
    for base in cls.bases:
        parent = next(
            (n for n in module if isinstance(base, ast.Name) and _defines(n, base.id)), None
        )
        if isinstance(parent, ast.ClassDef):
            found += _members(module, parent)
    return found


def test_the_walk_of_observe_screen_names_only_what_exists() -> None:
    named = sorted(set(re.findall(r"`(noru(?:\.\w+)+)", walk_section())))
    assert len(named) >= 40, named  # the section follows the request through the parts
    problems = {name: why for name in named if (why := unfound(name)) is not None}
    assert not problems, f"docs/architecture.md's observe_screen walk names: {problems}"


def test_the_walk_check_tells_a_name_that_is_gone() -> None:
    assert unfound("noru.app.core.App.handle") is None
    assert unfound("noru.imaging.png.png_of_rows") is None
    assert unfound("noru.capture.x11_pixels") is None
    assert unfound("noru.store.reader.Reader.get") is None  # inherited
    assert unfound("noru.capture.nowhere") == "noru.capture defines no nowhere"
    assert unfound("noru.nowhere.at_all") == "noru defines no nowhere"
    assert unfound("noru.app.core.App.gone") == "noru.app.core.App defines no gone"
    assert unfound("noru.store.writer.Store.add_capture.inner") is not None
