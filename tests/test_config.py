"""The person's config.toml: defaults, durations, bad values reported, and set_values."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from noru.config import Config, SettingError, load_config, set_values
from noru.errors import DataDirError
from noru.sizes import normalise_size, parse_size
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
        "(known: handoff_window, ocr_settle, max_edge, hotkey, ocr_engine, ocr_second_opinion, "
        "ax_budget, ax_switch, exclude_apps, exclude_titles, keep_days, max_disk, min_free, "
        "notify_observe, notify_handoff, result_shape, redact, redact_at_rest)",
    )


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('max_edge = "big"', "max_edge = 'big' ignored: use whole pixels between 64 and 8192"),
        ("max_edge = true", "max_edge = True ignored: use whole pixels between 64 and 8192"),
        ("handoff_window = -5", "handoff_window = -5 ignored: use a duration between 1s and 7d"),
        ('handoff_window = "soon"', "handoff_window = 'soon' ignored: not a duration"),
        ('hotkey = ""', "hotkey = '' ignored: use a name like ctrl+alt+n"),
        ('notify_observe = "no"', "notify_observe = 'no' ignored: use true or false"),
        ("ocr_second_opinion = 0", "ocr_second_opinion = 0 ignored: use true or false"),
    ],
)
def test_a_bad_value_keeps_the_default_and_names_the_key(
    tmp_path: Path, line: str, problem: str
) -> None:
    (tmp_path / "config.toml").write_text(line + "\n")
    config = load_config(tmp_path)
    assert config == Config()
    assert len(config.problems) == 1 and config.problems[0].startswith(problem)


# --- set_values: the one writer of config.toml ---------------------------------------


def test_notifications_are_on_for_observations_and_off_for_handoffs_unless_set(
    tmp_path: Path,
) -> None:
    assert (load_config(tmp_path).notify_observe, load_config(tmp_path).notify_handoff) == (
        True,
        False,
    )
    (tmp_path / "config.toml").write_text("notify_observe = false\nnotify_handoff = true\n")
    config = load_config(tmp_path)
    assert (config.notify_observe, config.notify_handoff, config.problems) == (False, True, ())


def config_file(home: Path) -> Path:
    return home / "config.toml"


def test_setting_on_a_missing_file_creates_it_private_with_what_was_asked(tmp_path: Path) -> None:
    config = set_values(tmp_path, {"keep_days": "30", "max_disk": " 5 gb", "min_free": "0"})
    path = config_file(tmp_path)
    assert path.read_text() == 'keep_days = 30\nmax_disk = "5GB"\nmin_free = "0"\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (config.keep_days, config.max_disk, config.min_free) == (30, 5 * 10**9, 0)
    assert config.from_file == {"keep_days", "max_disk", "min_free"}
    assert not config.problems
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temp file left


def test_setting_keeps_every_other_line_comment_and_order(tmp_path: Path) -> None:
    config_file(tmp_path).write_text(
        "# my Noru settings\n"
        'hotkey = "ctrl+alt+k"   # the one I can reach\n'
        "\n"
        'max_disk = "20GB"   # my budget\n'
        'exclude_apps = [\n  "KeePassXC",  # passwords\n  "Signal",\n]\n'
        "# the end\n"
    )
    set_values(tmp_path, {"max_disk": "500mb", "keep_days": 14})
    assert config_file(tmp_path).read_text() == (
        "# my Noru settings\n"
        'hotkey = "ctrl+alt+k"   # the one I can reach\n'
        "\n"
        'max_disk = "500MB"   # my budget\n'
        'exclude_apps = [\n  "KeePassXC",  # passwords\n  "Signal",\n]\n'
        "# the end\n"
        "keep_days = 14\n"
    )
    config = load_config(tmp_path)
    assert (config.hotkey, config.exclude_apps) == ("ctrl+alt+k", ("KeePassXC", "Signal"))
    assert (config.max_disk, config.keep_days) == (500 * 10**6, 14)


@pytest.mark.parametrize(
    ("line", "changes", "after"),
    [
        ("keep_days = 7", {"keep_days": "1.5"}, "keep_days = 1.5"),
        ('max_disk = "1GB"#tight', {"max_disk": 0}, 'max_disk = "0" #tight'),
        (
            '  "min_free" = "1GB"  # "#" inside',
            {"min_free": "2g"},
            '  min_free = "2GB"  # "#" inside',
        ),
        ('max_disk = """\n1GB"""  # long', {"max_disk": "3TiB"}, 'max_disk = "3TiB"  # long'),
        ('keep_days = "soon"', {"keep_days": 3}, "keep_days = 3"),  # a bad value is replaced
    ],
)
def test_an_existing_line_is_replaced_in_place_with_its_comment(
    tmp_path: Path, line: str, changes: dict[str, object], after: str
) -> None:
    config_file(tmp_path).write_text(f'hotkey = "f9"\n{line}\nocr_settle = 2\n')
    set_values(tmp_path, changes)
    assert config_file(tmp_path).read_text() == f'hotkey = "f9"\n{after}\nocr_settle = 2\n'


def test_a_table_and_a_multiline_string_are_not_mistaken_for_top_level(tmp_path: Path) -> None:
    before = (
        "ocr_settle = 1\n"
        'note = """\n'
        "keep_days = 5\n"
        "[pretend]\n"
        '"""\n'
        "\n"
        "# the server's own settings\n"
        "[server]\n"
        "keep_days = 9\n"
        'max_disk = "1GB"\n'
    )
    config_file(tmp_path).write_text(before)
    set_values(tmp_path, {"keep_days": 30, "max_disk": "2GB"})
    after = config_file(tmp_path).read_text()
    assert after == before.replace('"""\n\n', '"""\nkeep_days = 30\nmax_disk = "2GB"\n\n', 1)
    data = tomllib.loads(after)
    assert data["server"] == {"keep_days": 9, "max_disk": "1GB"}
    assert data["note"] == "keep_days = 5\n[pretend]\n"
    assert (data["keep_days"], data["max_disk"]) == (30, "2GB")


def test_a_file_with_only_tables_gets_the_setting_above_them(tmp_path: Path) -> None:
    config_file(tmp_path).write_text("# mine\n[server]\nport = 1\n")
    set_values(tmp_path, {"min_free": "1GB"})
    assert config_file(tmp_path).read_text() == 'min_free = "1GB"\n\n# mine\n[server]\nport = 1\n'
    assert load_config(tmp_path).min_free == 10**9


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        ({"keep_days": "soon"}, "keep_days", "use a number of days"),
        ({"keep_days": -1}, "keep_days", "use a number of days"),
        ({"keep_days": "nan"}, "keep_days", "use a number of days"),
        ({"keep_days": True}, "keep_days", "use a number of days"),
        ({"max_disk": "big"}, "max_disk", "not a size: 'big'"),
        ({"max_disk": "-5GB"}, "max_disk", "not a size"),
        ({"min_free": True}, "min_free", 'use a size like "20GB"'),
        ({"max_disk": "1GB", "min_free": "lots"}, "min_free", "not a size"),  # all or nothing
        ({"hotkey": "f9"}, "hotkey", "cannot be set here (settable: keep_days, max_disk"),
    ],
)
def test_a_bad_value_is_refused_naming_the_key_and_nothing_is_written(
    tmp_path: Path, changes: dict[str, object], key: str, words: str
) -> None:
    original = b'# mine\r\nmax_disk = "20GB"\r\n'
    config_file(tmp_path).write_bytes(original)
    with pytest.raises(SettingError) as refused:
        set_values(tmp_path, changes)
    assert refused.value.key == key and str(refused.value).startswith(f"{key}: ")
    assert words in refused.value.reason
    assert config_file(tmp_path).read_bytes() == original
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_a_bad_value_on_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(SettingError):
        set_values(tmp_path, {"max_disk": "big"})
    assert not config_file(tmp_path).exists()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'hotkey = "f9"\nmax_disk = [unclosed\n', "at line 2"),
        (b"keep_days = 1\nkeep_days = 2\n", "at line 2"),
        (b'hotkey = "\xff"\n', "utf-8"),
    ],
)
def test_a_damaged_config_is_refused_and_left_byte_for_byte(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    config_file(tmp_path).write_bytes(content)
    with pytest.raises(DataDirError) as refused:
        set_values(tmp_path, {"keep_days": 30})
    message = str(refused.value)
    assert "config.toml does not parse" in message and problem in message
    assert config_file(tmp_path).read_bytes() == content


def test_a_key_written_in_a_way_that_cannot_be_edited_safely_is_refused(tmp_path: Path) -> None:
    content = b"keep_days.inner = 1\n"  # a table, not a line to replace
    config_file(tmp_path).write_bytes(content)
    with pytest.raises(DataDirError, match="cannot change safely"):
        set_values(tmp_path, {"keep_days": 30})
    assert config_file(tmp_path).read_bytes() == content


def test_an_existing_file_keeps_its_mode_line_ends_and_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "noru.toml"
    real.parent.mkdir()
    real.write_bytes(b'hotkey = "f9"\r\nkeep_days = 3\r\n')
    real.chmod(0o640)
    home = tmp_path / "home"
    home.mkdir()
    config_file(home).symlink_to(real)
    set_values(home, {"keep_days": 4, "max_disk": "1GB"})
    assert config_file(home).is_symlink()
    assert real.read_bytes() == b'hotkey = "f9"\r\nkeep_days = 4\r\nmax_disk = "1GB"\r\n'
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(os.listdir(real.parent)) == ["noru.toml"]


@pytest.mark.parametrize(
    ("changes", "loaded"),
    [
        ({"keep_days": 30}, {"keep_days": 30.0}),
        ({"keep_days": " 0.5 "}, {"keep_days": 0.5}),
        ({"keep_days": 7.0, "max_disk": "1.5GiB"}, {"keep_days": 7.0, "max_disk": 1610612736}),
        ({"max_disk": 0, "min_free": "250 MB"}, {"max_disk": 0, "min_free": 250 * 10**6}),
        ({"min_free": 123456}, {"min_free": 123456}),
    ],
)
def test_what_is_set_is_what_load_config_reads_back(
    tmp_path: Path, changes: dict[str, object], loaded: dict[str, object]
) -> None:
    returned = set_values(tmp_path, changes)
    again = load_config(tmp_path)
    assert returned == again and not again.problems
    assert {key: getattr(again, key) for key in loaded} == loaded
    assert again.from_file == set(changes)


def test_setting_nothing_writes_nothing(tmp_path: Path) -> None:
    assert set_values(tmp_path, {}) == Config()
    assert not config_file(tmp_path).exists()


@pytest.mark.parametrize(
    ("typed", "written"),
    [("20GB", "20GB"), (" 20 gb ", "20GB"), ("500m", "500MB"), ("1.5gib", "1.5GiB"),
     ("12kb", "12kB"), ("0", "0"), ("4096", "4096"), ("10b", "10B")],
)  # fmt: skip
def test_a_size_is_written_back_in_its_usual_spelling_with_the_same_bytes(
    typed: str, written: str
) -> None:
    assert normalise_size(typed) == written
    assert parse_size(written) == parse_size(typed)


def test_redact_takes_known_kinds_only_and_keeps_the_safe_default(home: Path) -> None:
    (home / "config.toml").write_text('redact = ["secrets", "passwords"]\nredact_at_rest = "yes"\n')
    config = load_config(home)
    assert config.redact == ("secrets", "cards") and config.redact_at_rest is False
    assert any(
        "unknown passwords; known: secrets, cards, emails, phones" in p for p in config.problems
    )
    (home / "config.toml").write_text('redact = ["Emails", "secrets"]\n')
    assert load_config(home).redact == ("emails", "secrets")
    (home / "config.toml").write_text("redact = []\n")
    assert load_config(home).redact == ()
