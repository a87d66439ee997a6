"""The capture shortcut as `config.toml` writes it (``ctrl+alt+n``), read
into X11's modifier masks and a key name.

Its own module so that everything that reads the shortcut imports it
downward: the X11 key grab (``noru.app.hotkey``), the desktop portal's
binding (``noru.app.portal_shortcut``) and the compositor's line printed by
`noru config sway` / `noru config hyprland`.
"""

from __future__ import annotations

__all__ = ["parse_hotkey"]

_MODIFIERS = {
    "ctrl": "ControlMask",
    "control": "ControlMask",
    "alt": "Mod1Mask",
    "shift": "ShiftMask",
    "super": "Mod4Mask",
    "win": "Mod4Mask",
}


def parse_hotkey(text: str) -> tuple[list[str], str]:
    """``ctrl+alt+n`` -> (["ControlMask", "Mod1Mask"], "n"); ValueError if unknown."""
    parts = [p.strip().lower() for p in text.split("+") if p.strip()]
    if not parts:
        raise ValueError("empty hotkey")
    *mods, key = parts
    unknown = [m for m in mods if m not in _MODIFIERS]
    if unknown:
        raise ValueError(f"unknown modifier {unknown[0]!r} (use ctrl, alt, shift, super)")
    return [_MODIFIERS[m] for m in mods], key
