"""Agents' search index: each capture's text as agents get it, kept in history,
with its source facts as agents get them (what their filters match).

An agent's search must not tell whether a guessed word is hidden in a
secret. Matching history's own text and then dropping the captures whose
redacted text no longer matches gives the right answers, but takes longer
the more captures it drops: a search for a guessed password that some
capture holds would be slower than one for a word no capture holds. So the
person's side keeps a second full-text index, ``agent_text``, of the text
exactly as agents get it (``apply.search_text``), made under the policy
whose fingerprint it records, and agents' searches match there
(``Reading.search``); its time depends on that text only.

- Every change of a capture's text (its OCR text, a note, ``redact_at_rest``'s
  rewrite) takes it out of the index, in the same transaction (the store).
- ``refresh`` puts captures back: the app after each capture's text is
  settled and in the background after it starts, and the person's
  commands after theirs (``noru note``, ``reocr``, ``import``, ``redact``).
- A policy with another fingerprint (``redact`` in config.toml, the
  person's patterns or allowed values, or this version's rules) drops the whole index at the
  next refresh, which then indexes history again, newest first.
- A capture not indexed yet (taken a moment ago, or the index is being
  made again) is still found, the slow way; only such captures can be told
  apart by a search's time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from noru.redact import policy as policies
from noru.redact.apply import search_text
from noru.redact.facts import source_for_agent
from noru.redact.policy import Policy
from noru.sources import Source
from noru.store import CaptureRecord, Store

__all__ = ["BATCH", "fingerprint", "refresh", "view"]

# Captures indexed per transaction: other writers wait at most one batch.
BATCH = 50


@cache
def _rules_digest() -> str:
    """This version's rules and how they are applied, to text and to source
    facts (the workspace hint is inferred again from a title): every module
    of this package and ``noru.sources``, by their bytes. Another version's
    may differ, so its index is made again."""
    from noru import sources

    digest = hashlib.sha256()
    for path in [*sorted(Path(__file__).parent.glob("*.py")), Path(str(sources.__file__))]:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprint(policy: Policy) -> str:
    """Names what agents' redacted text is made by: the categories on, the
    person's patterns and allowed values, and this version's rules."""
    body = {
        "categories": sorted(policy.categories),
        "patterns": [[p.pattern, p.kind] for p in policy.patterns],
        "allowed": sorted(a.digest for a in policy.allowed),
        "rules": _rules_digest(),
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def view(policy: Policy) -> tuple[Callable[[CaptureRecord], tuple[str, str, str] | None], str]:
    """What an agent's search sees of a capture under ``policy``
    (``Reading.search``'s ``seen``) and the fingerprint of it (``indexed``)."""
    return (lambda record: search_text(record, policy)), fingerprint(policy)


def refresh(
    store: Store,
    categories: Sequence[str],
    *,
    ids: Sequence[str] | None = None,
    most: int | None = None,
) -> int:
    """Index the captures not in agents' index (of ``ids``, or all of them,
    newest first, at most ``most``), under the policy now in force; returns
    how many were indexed. ``categories``: the ``redact`` setting; nothing
    is done while it is off or the person's patterns cannot be read (agents'
    searches then read history, or nothing)."""
    policy = policies.load(store.home, categories)
    if not policy.on or policy.problem:
        return 0
    seen, named = view(policy)

    def facts(source: Source) -> Source:
        return source_for_agent(source, policy)[0]

    done = 0
    while most is None or done < most:
        batch = BATCH if most is None else min(BATCH, most - done)
        indexed = store.index_for_agents(
            named,
            seen,
            sources=lambda source: source_for_agent(source, policy)[0],
            ids=ids,
            most=batch,
        )
        done += indexed
        if indexed < batch:
            break
    return done
