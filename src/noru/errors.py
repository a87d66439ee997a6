"""One error tree for Noru.

Every class carries its wire identity as a class attribute. For an agent,
``noru.mcp.session.to_wire`` turns an exception into the JSON-RPC answer: a
``ProtocolError`` into its error object, a ``Refusal`` (the contract's
steering: an operational refusal) into a normal result (its text made by
``noru.contract.refusal_result``), a ``StoreError``
into -32603 asking for `noru doctor`, and anything outside this tree into
-32603 with no path or trace. For the person, the CLI's one seam
(``noru.cli.base.NoruGroup``) turns any ``NoruError`` into a message and status 1.

::

    NoruError
     ├── ProtocolError          a JSON-RPC error object; ``code`` on the class
     │    ├── ParseError            -32700  input is not JSON (or not UTF-8)
     │    ├── InvalidRequest        -32600  not a JSON-RPC request, bad batch, not initialized
     │    ├── MethodNotFound        -32601  unknown method
     │    ├── InvalidParams         -32602  unknown tool, bad arguments, bad resource URI
     │    ├── HistoryBlocked        -32001  resources/read while history is revoked
     │    └── InternalError         -32603  anything unexpected; message carries no path
     ├── CaptureError           a capture could not be taken (the app reports it)
     ├── DataDirError           the data dir is not a folder, or cannot be created or written
     ├── StoreError             the store cannot be opened or read
     │    ├── SchemaTooNew          the database was written by a newer Noru
     │    └── NoRoom                a capture would leave the disk too full
     ├── OcrError               the OCR engine is missing or failed on an image
     ├── AutostartError         start at login cannot be written or changed as asked
     ├── EditRefused            the person's edit breaks a limit (``noru.edits``): nothing changed
     └── Refusal                a normal tool result (isError false); ``tag`` on the class
          ├── AppNotRunning         "Noru app not running"
          │    └── AppVersionMismatch   the running app speaks another app protocol
          ├── NotAuthorized         "Noru not authorized"
          ├── Paused                "Noru paused"
          ├── PermissionDenied      "Noru permission denied"
          │    └── WindowExcluded       a window the person never lets Noru capture
          ├── Busy                  "Noru busy"
          ├── HistoryRevoked        "Noru history revoked"
          ├── NoMatch               "Noru no match"
          ├── LayerAbsent           "Noru layer absent"
          └── NothingNew            "Noru nothing new"
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "AppNotRunning",
    "AppVersionMismatch",
    "AutostartError",
    "Busy",
    "CaptureError",
    "DataDirError",
    "EditRefused",
    "HistoryBlocked",
    "HistoryRevoked",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "LayerAbsent",
    "MethodNotFound",
    "NoMatch",
    "NoRoom",
    "NoruError",
    "NotAuthorized",
    "NothingNew",
    "OcrError",
    "ParseError",
    "Paused",
    "PermissionDenied",
    "ProtocolError",
    "Refusal",
    "SchemaTooNew",
    "StoreError",
    "WindowExcluded",
]


class NoruError(Exception):
    """Root of every error Noru raises on purpose."""


class ProtocolError(NoruError):
    """Answered as a JSON-RPC error object."""

    code: ClassVar[int] = -32603

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ParseError(ProtocolError):
    code = -32700


class InvalidRequest(ProtocolError):
    code = -32600


class MethodNotFound(ProtocolError):
    code = -32601


class InvalidParams(ProtocolError):
    code = -32602


class HistoryBlocked(ProtocolError):
    code = -32001


class InternalError(ProtocolError):
    code = -32603


class CaptureError(NoruError):
    """A capture could not be taken; the message says why in the person's words."""


class DataDirError(NoruError):
    """The data dir cannot be used: not a folder, or not creatable or writable."""


class StoreError(NoruError):
    """The store cannot be opened, read or written."""


class NoRoom(StoreError):
    """A capture was refused: writing it would leave the disk too full."""


class SchemaTooNew(StoreError):
    """The database was migrated by a newer Noru than this one."""


class OcrError(NoruError):
    """The OCR engine is missing, misconfigured, or failed on one image."""


class AutostartError(NoruError):
    """Start at login cannot be set up as asked; the message says why and what to do."""


class EditRefused(NoruError):
    """One of the person's edits breaks a limit of ``noru.edits``; the message
    names the limit, ``what`` the part of the edit refused (``note``,
    ``pattern``, ``kind``, ``value``). Nothing was changed."""

    def __init__(self, message: str, *, what: str | None = None) -> None:
        super().__init__(message)
        self.what = what


class Refusal(NoruError):
    """An operational refusal (the contract's steering): answered to an agent
    as a normal result with a next action, to the person as a message. The
    app sends one to ``noru mcp`` as ``appwire.Refused``, its reply that
    carries a refusal whole.

    ``details`` are the lines after the tag line (what was asked, what exists);
    ``next_action`` overrides the class's default ``Next:`` text.
    """

    tag: ClassVar[str] = ""
    next_action: ClassVar[str] = ""
    #: The person's gesture in the Noru menu that lifts this refusal, for those
    #: a gesture lifts (``in_console_too``).
    gesture: ClassVar[str | None] = None

    def __init__(
        self, summary: str = "", *, details: tuple[str, ...] = (), next_action: str | None = None
    ) -> None:
        super().__init__(summary or self.tag)
        self.summary = summary
        self.details = details
        if next_action is not None:
            self.next_action = next_action  # type: ignore[misc]

    def in_console_too(self) -> None:
        """Say that the gesture's control is also in the Noru console: for a
        machine where no panel shows the Noru menu (``noru mcp`` asks the app:
        ``appwire.MenuState``). The sentence follows the gesture's."""
        if self.gesture is None or CONSOLE_TOO in self.next_action:
            return
        if self.gesture in self.next_action:
            told = self.next_action.replace(self.gesture, f"{self.gesture} {CONSOLE_TOO}", 1)
        else:  # words of the app's own (another version's): the sentence goes last
            told = f"{self.next_action} {CONSOLE_TOO}"
        self.next_action = told  # type: ignore[misc]

    @staticmethod
    def by_tag(tag: str) -> type[Refusal] | None:
        """The refusal class whose tag is ``tag``, if there is one."""
        return next((cls for cls in Refusal.__subclasses__() if cls.tag == tag), None)


class AppNotRunning(Refusal):
    tag = "Noru app not running"
    next_action = (
        "Ask the person to launch Noru (`noru app`), then retry. "
        "Live targets never fall back to history."
    )


class AppVersionMismatch(AppNotRunning):
    """An app is running, but of another version: to the agent, not running."""

    next_action = (
        "Ask the person to restart the Noru app (`noru app`) so that it and this "
        "server are the same version, then retry."
    )


# The remedies below name the person's gesture in the Noru menu, as the
# published contract does, never the command that grants access: an agent
# with a shell must not read its own way in from the answer. Where no panel
# shows the menu, the answer adds that the same control is in the console
# (``Refusal.in_console_too``), again without a command.
CONSOLE_TOO = (
    "No panel on this machine shows the Noru menu now; the same control is in the Noru console."
)


class NotAuthorized(Refusal):
    tag = "Noru not authorized"
    gesture = "Ask the person to open the Noru menu and explicitly choose Allow Agent Observations."
    next_action = f"{gesture} An agent cannot grant this itself."


class Paused(Refusal):
    tag = "Noru paused"
    gesture = (
        "Ask the person to choose Resume Agent Perception in the Noru menu when live "
        "context is wanted."
    )
    next_action = (
        f"{gesture} History remains available unless access was revoked: "
        "list_captures, search_captures, get_capture."
    )


class PermissionDenied(Refusal):
    tag = "Noru permission denied"
    next_action = "Ask the person to grant screen access to Noru, then retry."


class WindowExcluded(PermissionDenied):
    """The window asked for is one the person never lets Noru capture."""

    next_action = (
        "The person has excluded this window from capture; Noru cannot see it. "
        "Work without it, or ask the person to show what you need in another window."
    )


class Busy(Refusal):
    tag = "Noru busy"
    next_action = "Retry shortly; Noru already retried briefly on its own."


class HistoryRevoked(Refusal):
    tag = "Noru history revoked"
    gesture = (
        "Ask the person to open the Noru menu and explicitly restore agent observations "
        "(Allow Agent Observations)."
    )
    next_action = f"{gesture} History is never served around a revoke."


class NoMatch(Refusal):
    tag = "Noru no match"
    next_action = "Relax the filter, or call list_captures without one."


class LayerAbsent(Refusal):
    tag = "Noru layer absent"
    next_action = (
        "Fetch the default bundle (omit `layers`) or request one of the layers named above."
    )


class NothingNew(Refusal):
    tag = "Noru nothing new"
    next_action = (
        "Ask the person to name or describe the capture they mean; find it with "
        "list_captures or search_captures, then fetch it with get_capture."
    )
