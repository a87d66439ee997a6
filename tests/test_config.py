"""The person's config.toml: defaults, durations, and bad values reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from noru.config import Config, load_config
from noru.times import format_duration, parse_duration


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (1, "1 second"),
        (30, "30 seconds"),
        (600, "10 minutes"),
        (5400, "1.5 hours"),
        (86400, "1 day"),
        (1209600, "2 weeks"),
    ],
)
def test_durations_read_like_a_person_writes_them(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


@pytest.mark.parametrize("text", ["10", "m", "ten minutes", "-5m", ""])
def test_a_malformed_duration_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_a_missing_config_is_the_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()


def test_good_values_are_taken_and_bad_ones_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        'handoff_window = "2m"\nocr_settle = 99\nmax_edge = 1024\nhotkey = "CTRL+SHIFT+K"\n'
        "ocr_engine = 3\n"
    )
    config = load_config(tmp_path)
    assert (config.handoff_window, config.max_edge, config.hotkey) == (120, 1024, "ctrl+shift+k")
    assert config.ocr_settle == Config().ocr_settle and config.ocr_engine == "tesseract"
    assert len(config.problems) == 2


def test_a_config_that_does_not_parse_is_reported_and_defaults_apply(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("handoff_window = [unclosed")
    config = load_config(tmp_path)
    assert config.max_edge == 1568 and "the whole file is ignored" in config.problems[0]


def test_an_unknown_key_is_a_problem_that_names_it_and_the_key_meant(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("max_egde = 900\nzzz = 1\n")
    config = load_config(tmp_path)
    assert config == Config()
    assert config.problems == (
        "max_egde: unknown setting, ignored (did you mean max_edge?)",
        "zzz: unknown setting, ignored "
        "(known: handoff_window, ocr_settle, max_edge, hotkey, ocr_engine, ax_budget, ax_switch, "
        "exclude_apps, exclude_titles, keep_days, max_disk, min_free)",
    )


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('max_edge = "big"', "max_edge = 'big' ignored: use whole pixels between 64 and 8192"),
        ("max_edge = true", "max_edge = True ignored: use whole pixels between 64 and 8192"),
        ("handoff_window = -5", "handoff_window = -5 ignored: use a duration between 1s and 7d"),
        ('handoff_window = "soon"', "handoff_window = 'soon' ignored: not a duration"),
        ('hotkey = ""', "hotkey = '' ignored: use a name like ctrl+alt+n"),
    ],
)
def test_a_bad_value_keeps_the_default_and_names_the_key(
    tmp_path: Path, line: str, problem: str
) -> None:
    (tmp_path / "config.toml").write_text(line + "\n")
    config = load_config(tmp_path)
    assert config == Config()
    assert len(config.problems) == 1 and config.problems[0].startswith(problem)
