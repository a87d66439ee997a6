"""The person's "not a secret": `noru redact allow VALUE` keeps a value they
see often from being redacted, stored as a digest next to their patterns;
`--remove` undoes it; agents' side only reads the file, and a damaged one
fails closed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from noru.cli import main
from noru.redact import find, find_lines, policy
from noru.redact.apply import redact_texts
from noru.redact.detect import Allowed, allowed_digest

# A test fixture's key the person's screens show all day: it passes a rule.
FIXTURE_KEY = "AKIAIOSFODNN7EXAMPLE"
OTHER_KEY = "AKIA4QXZ7PLM2RT9WQ3E"


def test_an_allowed_value_is_not_redacted_and_others_still_are(home: Path) -> None:
    result = CliRunner().invoke(main, ["redact", "allow", FIXTURE_KEY])
    assert result.exit_code == 0, result.output
    in_force = policy.load(home, ["secrets", "cards"])
    lines = [f"aws_access_key_id = {FIXTURE_KEY}", f"aws_access_key_id = {OTHER_KEY}"]
    texts, found = redact_texts(lines, in_force)
    assert texts[0] == lines[0] and found[0] == []
    assert texts[1] == "aws_access_key_id = [redacted: aws-key]"


def test_the_file_holds_a_digest_and_a_hint_never_the_value(home: Path) -> None:
    CliRunner().invoke(main, ["redact", "allow", FIXTURE_KEY])
    raw = (home / policy.FILE).read_text()
    assert FIXTURE_KEY not in raw and FIXTURE_KEY[4:] not in raw
    (entry,) = json.loads(raw)["allowed"]
    assert entry == {"digest": allowed_digest(FIXTURE_KEY), "hint": "AKIA... (20 characters)"}
    assert os.stat(home / policy.FILE).st_mode & 0o777 == 0o600
    listed = CliRunner().invoke(main, ["redact", "list"])
    assert "allowed AKIA... (20 characters)  (never redacted)" in listed.output
    assert "1 value you allowed" in listed.output


def test_allow_remove_redacts_it_again(home: Path) -> None:
    runner = CliRunner()
    runner.invoke(main, ["redact", "allow", FIXTURE_KEY])
    removed = runner.invoke(main, ["redact", "allow", "--remove", FIXTURE_KEY])
    assert removed.exit_code == 0, removed.output
    assert policy.load_allowed(home) == []
    again = runner.invoke(main, ["redact", "allow", "--remove", FIXTURE_KEY])
    assert again.exit_code == 1 and "not allowed" in again.output
    assert find(FIXTURE_KEY) != []


def test_a_value_asked_for_is_not_echoed(home: Path) -> None:
    result = CliRunner().invoke(main, ["redact", "allow"], input=FIXTURE_KEY + "\n")
    assert result.exit_code == 0, result.output
    assert FIXTURE_KEY not in result.output
    assert [a.digest for a in policy.load_allowed(home)] == [allowed_digest(FIXTURE_KEY)]


def test_allowing_keeps_the_persons_patterns_and_adding_keeps_the_allowed(home: Path) -> None:
    runner = CliRunner()
    runner.invoke(main, ["redact", "add", "--pattern", r"CUST-\d{5}"])
    runner.invoke(main, ["redact", "allow", FIXTURE_KEY])
    runner.invoke(main, ["redact", "add", "--pattern", r"ORD-\d{5}"])
    assert [p.pattern for p in policy.load_patterns(home)] == [r"CUST-\d{5}", r"ORD-\d{5}"]
    assert len(policy.load_allowed(home)) == 1


def test_a_too_short_value_is_refused_and_nothing_is_written(home: Path) -> None:
    result = CliRunner().invoke(main, ["redact", "allow", "ab"])
    assert result.exit_code == 2 and "at least 4" in result.output
    assert not (home / policy.FILE).exists()


def test_a_damaged_allowed_list_fails_closed(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / policy.FILE).write_text(json.dumps({"patterns": [], "allowed": [{"digest": "x"}]}))
    in_force = policy.load(home, ["secrets"])
    assert in_force.problem is not None and "allowed value" in in_force.problem
    result = CliRunner().invoke(main, ["redact", "allow", FIXTURE_KEY])
    assert result.exit_code == 1 and "no capture is served" in result.output


def test_a_file_of_an_earlier_version_without_allowed_values_still_reads(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / policy.FILE).write_text(json.dumps({"patterns": [{"pattern": "x+y", "kind": "k"}]}))
    in_force = policy.load(home, ["secrets"])
    assert in_force.problem is None and in_force.allowed == ()


def test_an_allowed_value_is_still_allowed_as_the_engine_misreads_it() -> None:
    allowed = Allowed(frozenset({allowed_digest(FIXTURE_KEY)}))
    misread = "AKIAI0SFODNN7EXAMPLE"  # O read as 0
    assert find(f"id {misread}", own=[allowed]) == []
    assert find_lines([f'"{FIXTURE_KEY}"'], own=[allowed]) == [[]]
