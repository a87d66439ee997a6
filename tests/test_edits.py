"""The person's edits have one set of limits, whichever way they are made
(``noru.edits``): a note over the limit is refused whole by the CLI, the
console and the app, and nothing is saved or cut to fit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from noru import appwire
from noru.cli import main
from noru.edits import NOTE_MAX
from noru.errors import InternalError
from noru.store import Reader
from tests.app_process import SETTLE_FOR_TESTS, running_app
from tests.history_data import png, seed
from tests.test_console import SAME, running_console
from tests.wire import noru_command
from tests.xserver import XServer

TOO_LONG = "n" * (NOTE_MAX + 1)
REFUSED = f"a note is at most {NOTE_MAX:,} characters"


def _note(home: Path, capture_id: str) -> str | None:
    with Reader.open(home) as reader:
        record = reader.get(capture_id)
    assert record is not None
    return record.note


def test_the_cli_saves_a_note_of_the_limit_and_refuses_one_longer(home: Path) -> None:
    capture_id = seed(home).terminal.id
    longest = "n" * NOTE_MAX
    done = CliRunner().invoke(main, ["note", capture_id, longest])
    assert done.exit_code == 0, done.output
    assert _note(home, capture_id) == longest
    refused = CliRunner().invoke(main, ["note", capture_id, TOO_LONG + "!"])
    assert refused.exit_code == 1 and REFUSED in refused.output
    assert _note(home, capture_id) == longest  # left as it was


def test_an_import_with_a_note_over_the_limit_imports_nothing(home: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(png(40, 30))
    done = CliRunner().invoke(main, ["import", "--no-ocr", "--note", TOO_LONG, str(shot)])
    assert done.exit_code == 1 and REFUSED in done.output
    with Reader.open(home) as reader:
        assert reader.count() == 0


def test_the_console_refuses_a_note_over_the_limit_rather_than_cut_it(home: Path) -> None:
    capture_id = seed(home).terminal.id
    with running_console(home) as console:
        cookie = console.sign_in()
        status, _, page = console.request(
            "POST", f"/capture/{capture_id}/note", body={"note": TOO_LONG},
            headers=SAME, cookie=cookie,
        )  # fmt: skip
    assert status == 400 and REFUSED in page.decode()
    assert _note(home, capture_id) is None


def test_the_app_refuses_a_capture_whose_note_is_over_the_limit(
    home: Path, desktop: XServer, tmp_path: Path
) -> None:
    (home / "config.toml").write_text(SETTLE_FOR_TESTS)
    with running_app(home, desktop.env, tmp_path / "app.log"):
        client = appwire.AppClient(home, timeout=60)
        request = appwire.Capture(mode="display", display=1, note=TOO_LONG)
        with pytest.raises(InternalError, match=REFUSED):
            client.expect(request, appwire.Captured)
        # The CLI says so before it asks the app.
        done = subprocess.run(
            [*noru_command(), "capture", "--display", "1", "--note", TOO_LONG],
            capture_output=True,
            text=True,
            timeout=60,
            env={**desktop.env, "NORU_HOME": str(home)},
            check=False,
        )
        assert done.returncode == 1 and REFUSED in done.stderr
    with Reader.open(home) as reader:
        assert reader.count() == 0


def test_the_console_refuses_an_exclusion_config_toml_already_makes(home: Path) -> None:
    from noru import exclusions

    seed(home)
    (home / "config.toml").write_text('exclude_apps = ["KeePassXC"]\n')
    with running_console(home) as console:
        cookie = console.sign_in()
        status, _, page = console.request(
            "POST", "/exclusions/add", body={"kind": "app", "pattern": "keepassxc"},
            headers=SAME, cookie=cookie,
        )  # fmt: skip
    assert status == 400 and "is excluded by config.toml" in page.decode()
    assert not exclusions.load(home).rules  # as `noru exclude add` leaves it
