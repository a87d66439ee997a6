"""`noru doctor` reads the person's settings once a run: config.toml and the
redaction file are each opened once, however many checks look at them."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from noru.doctor import run_checks
from tests.history_data import seed

# The files opened while ``_watching`` names a data dir (an audit hook cannot
# be removed: it counts only while a test asks it to).
_opened: Counter[str] = Counter()
_watching: list[Path] = []


def _count_opens(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _watching and isinstance(args[0], str | Path):
        path = Path(args[0])
        if path.parent == _watching[0]:
            _opened[path.name] += 1


sys.addaudithook(_count_opens)


def test_one_doctor_run_reads_the_config_and_the_redaction_file_once(home: Path) -> None:
    seed(home)  # a history, so that agents' search index is checked too
    (home / "config.toml").write_text("ax_budget = 0\n")
    patterns = {"patterns": [{"pattern": "hunter2", "kind": "pattern"}], "allowed": []}
    (home / "redactions.json").write_text(json.dumps(patterns))
    _opened.clear()
    _watching.append(home)
    try:
        checks = {check.name: check for check in run_checks(home)}
    finally:
        _watching.clear()
    # The checks that read them all saw them: the config, redaction and the index.
    assert checks["configuration"].ok
    assert checks["accessibility"].found.startswith("switched off")
    assert "1 pattern" in checks["redaction"].found, checks["redaction"].found
    assert "agents' search index" in checks
    assert _opened["config.toml"] == 1
    assert _opened["redactions.json"] == 1
