"""The Noru app: the person's long-running process, the only one that sees pixels.

Its rooms: ``core`` (``App``: captures, and the requests it answers),
``server`` (``run_app``: one instance, the live socket, a clean stop),
``writer`` (the one writer thread), ``ocr_worker`` (the OCR queue) and
``ocr_process`` (the OCR child it runs), ``pruner`` and ``indexer`` (threads
that keep the history within its settings and agents' search index up to
date, both a ``chore``), ``memory`` (what the app and the child hand back
when quiet), the shortcut (``hotkey``, ``portal_shortcut``,
``key_combination``).

This package imports none of them: the OCR child starts as ``python -m
noru.app.ocr_process``, which imports this package first, and the child
needs none of what the app itself loads (capture, access, the store's
writer, the settings).
"""
