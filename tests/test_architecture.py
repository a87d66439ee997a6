"""docs/architecture.md is true: the code imports only across the lines its table draws."""

from __future__ import annotations

import ast
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


def test_the_package_root_holds_only_the_version() -> None:
    assert imports(SOURCE / "__init__.py") == set()
