"""How Noru starts at login: a systemd user unit, or an XDG autostart entry.

- ``turn_on`` writes one of them, and an app-menu launcher beside it;
  ``turn_off`` removes what ``turn_on`` wrote (the files carrying its
  ``MARK``) and nothing else; ``report`` says what is there, whether it is
  switched on, and whether it starts this `noru` with this data dir.
- Which one: the unit (``$XDG_CONFIG_HOME/systemd/user/noru.service``) when
  systemd's user manager answers ``systemctl --user`` and its
  ``graphical-session.target`` is active, that is when the desktop runs its
  session through systemd (GNOME, KDE Plasma). Otherwise the XDG entry
  (``$XDG_CONFIG_HOME/autostart/noru.desktop``), which every desktop's
  session starts: XFCE, LXQt, MATE and bare window managers never reach
  ``graphical-session.target``, so a unit wanted by it would never start
  there. ``via`` overrides the choice.
- The launcher is ``$XDG_DATA_HOME/applications/noru.desktop``.
- ``NORU_HOME``, when set, is carried into what is written (the unit's
  ``Environment=``, the entries' ``env NORU_HOME=...``), expanded as every
  command expands it.
- The rooms: ``files`` (where the three files are, the mark), ``unit_file``
  and ``desktop_entry`` (each format written and read back, with its own
  quoting), ``systemctl`` (the one call to ``systemctl --user``, the seam
  tests replace), ``starters`` (``report``) and ``switch`` (``turn_on``,
  ``turn_off``).
"""

from __future__ import annotations

from noru.autostart.desktop_entry import entry_text, read_desktop_exec
from noru.autostart.files import MARK, UNIT, Targets, Via
from noru.autostart.starters import Report, Starter, report
from noru.autostart.switch import Outcome, turn_off, turn_on
from noru.autostart.systemctl import Answer, Session, Systemctl
from noru.autostart.unit_file import read_unit_exec, unit_problem, unit_text

__all__ = [
    "MARK",
    "UNIT",
    "Answer",
    "Outcome",
    "Report",
    "Session",
    "Starter",
    "Systemctl",
    "Targets",
    "Via",
    "entry_text",
    "read_desktop_exec",
    "read_unit_exec",
    "report",
    "turn_off",
    "turn_on",
    "unit_problem",
    "unit_text",
]
