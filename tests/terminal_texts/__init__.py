"""Kinds of text a person has in a terminal when they ask an agent for help.

Each kind is a function ``(rng, columns, rows) -> list[Shown]``: at most
``rows`` lines, each at most ``columns`` cells wide (nothing wraps), drawn
from ``rng`` so a seed gives the same screen and another seed another one.
A ``Shown`` (tests/real_terminals.py) is the plain text (the truth) and the
same text with the SGR escapes the real tool prints. Asked for many rows, a
kind fills them (a dense screen); asked for a few, it gives the first lines
of what it would show (a short screen), or its last where that is what
stays on screen (a test run's summary). No tabs: a tool's tab is written as
the spaces a terminal shows for it.

``KINDS`` names them all; the modules group them by what they show:
``code`` (compilers, interpreters, type checkers), ``builds`` (test
runners, builds, code with ligatures), ``vcs`` (git, pip, npm), ``system``
(listings, processes, containers, units), ``shell`` (prompts, Powerline,
man pages), ``data`` (logs, JSON, YAML, curl, psql, CJK) and ``layout``
(tmux panes made of the others). ``build`` holds what they
are made of.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tests.terminal_shown import Shown
from tests.terminal_texts import builds, code, data, layout, probes, shell, system, vcs

__all__ = ["KINDS", "PROBES", "Kind"]

Kind = Callable[[random.Random, int, int], list[Shown]]

KINDS: dict[str, Kind] = {
    "python-traceback": code.python_traceback,
    "gcc-error": code.gcc_error,
    "rustc-error": code.rustc_error,
    "tsc-error": code.tsc_error,
    "mypy-errors": code.mypy_errors,
    "go-panic": code.go_panic,
    "pytest-output": builds.pytest_output,
    "make-build": builds.make_build,
    "ligatures": builds.ligatures,
    "git-status": vcs.git_status,
    "git-log": vcs.git_log,
    "git-diff": vcs.git_diff,
    "pip-install": vcs.pip_install,
    "npm-install": vcs.npm_install,
    "ls-la": system.ls_la,
    "docker-ps": system.docker_ps,
    "kubectl-get-pods": system.kubectl_get_pods,
    "top": system.top,
    "df-free": system.df_free,
    "env-listing": system.env_listing,
    "systemctl-status": system.systemctl_status,
    "psql-error": data.psql_error,
    "shell-session": shell.shell_session,
    "powerline-prompt": shell.powerline_prompt,
    "man-page": shell.man_page,
    "app-log": data.app_log,
    "json": data.json_document,
    "yaml-config": data.yaml_config,
    "curl-verbose": data.curl_verbose,
    "cjk": data.cjk,
    "tmux-panes": layout.tmux_panes,
}

# Kinds single tests draw, never planned into the corpus
# (``tests.terminal_texts.probes``).
PROBES: dict[str, Kind] = {"tree": probes.tree}
