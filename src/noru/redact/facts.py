"""Facts made from text, as agents get them: a capture's source.

A capture's source facts are text the screen's windows gave: the window
title, the app's name and id, the display's name, and the workspace hint
inferred from the title. Each is served to agents as the policy lets them
see text (``[redacted: KIND]`` for each span it finds), and a fact made
from a redacted value is made again from what agents get of it:

- ``window_title``, ``app_name``, ``app_id``, ``display_name``: each
  redacted on its own (they are separate facts, never one text).
- ``workspace_hint``: where the title holds a secret, inferred again from
  the title with each secret taken out (``noru.sources.infer_workspace``);
  a hint that would hold any part of one is none (a project is not named by
  a secret). What remains is then redacted on its own too.

The person's own views (``noru show``, the console) read the facts as
taken; ``noru mcp`` reads them through ``view`` (``Reading.show_sources_as``),
so that every row, header, listing, no-match answer and filter of an agent's
works on these values only: a filter never matches inside a secret.

With rules that cannot be read (``Policy.problem``) no title and no hint is
served: they cannot be checked (``noru.present.agent.withheld_view``).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from noru.redact.detect import Finding, find_lines
from noru.redact.policy import Policy
from noru.sources import Source, infer_workspace
from noru.store import SourceView

__all__ = ["CACHED", "forget", "source_for_agent", "view"]

# Sources remembered per process: history repeats its titles, and a filter
# reads every capture's source.
CACHED = 65536
# Stands for a secret while a hint is inferred again: no separator, no word.
_HOLE = "\ue000"


def _findings(text: str | None, policy: Policy) -> list[Finding]:
    if not text:
        return []
    (found,) = find_lines([text], policy.categories, policy.own)
    return found


def _replaced(text: str, findings: list[Finding], by: str | None = None) -> str:
    out, at = [], 0
    for finding in findings:
        out += [text[at : finding.start], by if by is not None else f"[redacted: {finding.kind}]"]
        at = finding.end
    out.append(text[at:])
    return "".join(out)


@lru_cache(maxsize=CACHED)
def _alone(text: str | None, policy: Policy) -> tuple[str | None, tuple[str, ...]]:
    """One fact redacted on its own, and the kinds found in it."""
    found = _findings(text, policy)
    if not found or text is None:
        return text, ()
    return _replaced(text, found), tuple(finding.kind for finding in found)


@lru_cache(maxsize=CACHED)
def _titled(
    title: str | None, hint: str | None, policy: Policy
) -> tuple[str | None, str | None, tuple[str, ...]]:
    """A window title and the hint inferred from it, as agents get them, and
    the kinds found in them."""
    if policy.problem:
        return None, None, ()
    kinds: tuple[str, ...] = ()
    in_title = _findings(title, policy)
    if title is not None and in_title:
        kinds = tuple(finding.kind for finding in in_title)
        if hint is not None:
            again = infer_workspace(_replaced(title, in_title, _HOLE))
            hint = None if again is None or _HOLE in again else again
        title = _replaced(title, in_title)
    hint, in_hint = _alone(hint, policy)
    return title, hint, kinds + in_hint


def source_for_agent(source: Source, policy: Policy) -> tuple[Source, list[str]]:
    """``source`` as an agent gets it under ``policy`` (see the module's
    doc), and the kinds of what was taken out; as it is with redaction off."""
    if not policy.on:
        return source, []
    title, hint, kinds = _titled(source.window_title, source.workspace_hint, policy)
    (app_name, in_name), (app_id, in_id), (display_name, in_display) = (
        _alone(text, policy) for text in (source.app_name, source.app_id, source.display_name)
    )
    seen = replace(
        source,
        window_title=title,
        workspace_hint=hint,
        app_name=app_name,
        app_id=app_id,
        display_name=display_name,
    )
    found = [*kinds, *in_name, *in_id, *in_display]
    return (source if seen == source else seen), found


def view(policy: Policy) -> SourceView | None:
    """What a reader shows agents of each source fact under ``policy``
    (``Reading.show_sources_as``); None with redaction off."""
    if not policy.on:
        return None
    return SourceView(
        source=lambda source: source_for_agent(source, policy)[0],
        hint=lambda title, hint: _titled(title, hint, policy)[1],
        text=lambda text: _alone(text, policy)[0],
    )


def forget() -> None:
    """Forget every source redacted so far (a new policy's, or a bench's cold start)."""
    _alone.cache_clear()
    _titled.cache_clear()
