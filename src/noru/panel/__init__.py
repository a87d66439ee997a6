"""The Noru menu in the panel: a StatusNotifierItem with its dbusmenu.

The app shows it on the session D-Bus (``dbus-fast``, as the accessibility
reader does), so KDE, GNOME (with the AppIndicator extension), XFCE, waybar
and other StatusNotifierItem hosts show it. Where no session bus or no host
(``org.kde.StatusNotifierWatcher``) is present, the app runs on without it
and registers as soon as a host appears.

- ``menu``: the items and the icon for an access state (pure).
- ``interfaces``: the two D-Bus interfaces a host reads.
- ``item``: the menu's state, its actions, the registration, the loop thread.
- ``notify``: the notification that an agent looked.
- ``hosts``: whether the session has a host and a notification server.

The menu's access items write the access state exactly as ``noru allow /
pause / resume / revoke`` do (``access.set_control``); the state shown follows
changes made anywhere else within ``FOLLOW`` seconds.
"""

from noru.panel.item import FOLLOW, Panel

__all__ = ["FOLLOW", "Panel"]
