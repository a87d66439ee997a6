"""The access mode's one word, which the menu and the console both show."""

from __future__ import annotations

import itertools

import pytest

from noru import access
from noru.access import AccessState
from noru.panel import menu


@pytest.mark.parametrize(
    ("authorized", "paused", "revoked", "word"),
    [
        (False, False, False, "unset"),
        (True, False, False, "allowed"),
        (True, True, False, "paused"),
        (False, True, False, "paused"),
        (True, False, True, "revoked"),
        (True, True, True, "revoked"),
        (False, False, True, "revoked"),
    ],
)
def test_revoked_wins_over_paused_which_wins_over_allowed(
    authorized: bool, paused: bool, revoked: bool, word: str
) -> None:
    state = AccessState(authorized=authorized, paused=paused, revoked=revoked)
    assert access.mode(state) == word


def test_the_menu_marks_and_names_its_icon_by_that_word() -> None:
    for authorized, paused, revoked in itertools.product((False, True), repeat=3):
        state = AccessState(authorized=authorized, paused=paused, revoked=revoked)
        word = access.mode(state)
        assert menu.icon(state, looking=False) == f"noru-{word}"
        checked = {item.label for item in menu.layout(state) if item.checked}
        expected = {
            "allowed": {"Allow Agent Observations"},
            "paused": {"Resume Agent Perception"},
            "revoked": {"Revoke Agent Access"},
            "unset": set(),
        }[word]
        assert checked == expected
