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
    assert config.max_edge == 1568 and "config.toml ignored" in config.problems[0]
