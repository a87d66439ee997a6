"""Agent clients as measured: what each passes on to its model, and how Noru
serves it so that everything arrives.

Contract 4 sends a resolved capture as ``content`` blocks (header, image
labels, images, on-screen text, note, the closing ``prov:`` line) and, beside
them, ``structuredContent``. Each agent client below was measured end to end,
with its model's API stood in on loopback (``tests/clients/``): what its
model received of every tool's answer. Where a client loses part of an
answer, its session is served so that nothing is lost:

- ``drops``: what its model does not get of a capture result while
  ``structuredContent`` is present (``"text"``, ``"image"``). Such a client
  gets the **content shape**: the same blocks, without ``structuredContent``
  (``contract.as_content``). Every other client gets the **contract shape**,
  contract 4 exactly.
- ``glues``: it joins a result's text blocks with nothing between them (the
  last line of one runs into the first of the next); each text block then
  ends with a newline.
- ``budget``: how much text (UTF-8 bytes, all text blocks together) of one
  result it passes whole; past it, it cuts the text itself (or keeps only a
  preview and a file path), usually losing the ``prov:`` line. Noru fits the
  answer within it and says what it left out and how to ask for the rest
  (``region``, a page ``cursor``). ``one_block``: it cuts only an answer of
  one text block (locator rows), leaving a capture's several blocks whole.
- ``adds``: arguments the client adds to every tool's schema and passes
  through in calls; the session drops them before checking the arguments.

``MEASURED`` is the one table, by the exact ``clientInfo.name`` each client
sends at ``initialize``, each row with the version measured and the
evidence. ``profile`` makes a session's ``Profile`` from the client's name
and the person's ``result_shape`` (``auto``: the table decides the shape;
``contract`` or ``content``: that shape for every client). A name not in the
table is served contract 4 exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["MEASURED", "Measured", "Profile", "Shape", "profile"]

Shape = Literal["contract", "content"]


@dataclass(frozen=True)
class Measured:
    """One client as the harness measured it, at ``version``."""

    name: str
    product: str
    version: str
    evidence: str
    drops: tuple[str, ...] = ()
    glues: bool = False
    budget: int | None = None
    one_block: bool = False
    adds: tuple[str, ...] = ()


@dataclass(frozen=True)
class Profile:
    """How one session's answers are served."""

    shape: Shape = "contract"
    glued: bool = False  # each text block ends with a newline
    budget: int | None = None  # bytes of text one result may carry
    captures_whole: bool = False  # the budget is for one-block answers only
    product: str | None = None  # the client's name, for what Noru tells its model
    ignored: frozenset[str] = frozenset()  # arguments dropped before checking
    gets_text: bool = True  # whether its model receives a capture's text blocks


MEASURED: dict[str, Measured] = {
    row.name: row
    for row in (
        Measured(
            name="claude-code",
            product="Claude Code",
            version="2.1.332",
            drops=("text",),
            # Past 50,000 characters its model gets a 2 KB preview and a file path.
            budget=49_000,
            evidence=(
                "with structuredContent its model got the image and the JSON of "
                "structuredContent, none of the text blocks (anthropics/claude-code "
                "issues 54737, 54450, 55677, 64316, 79944); without it, every block. A "
                "result of more than 50,000 characters reached the model as a 2 KB "
                "preview and a file path"
            ),
        ),
        Measured(
            name="codex-mcp-client",
            product="Codex",
            version="0.171.0",
            drops=("text", "image"),
            # With a model of its catalog; with another model it keeps ~12,000.
            budget=46_000,
            evidence=(
                "with structuredContent its model got only that JSON, no text and no "
                "image; without it, the text as input_text and the image as input_image. "
                "Past ~47,900 characters of text (~11,900 with a model not in its "
                "catalog) it cut the middle out and left out the later blocks"
            ),
        ),
        Measured(
            name="gemini-cli-mcp-client",
            product="Gemini CLI",
            version="0.61.0",
            # A one-block answer past 40,000 characters is cut to its first
            # 8,000 and last 32,000.
            budget=39_000,
            one_block=True,
            adds=("wait_for_previous",),
            evidence=(
                "every block reached its model (each text wrapped in <untrusted_context>, "
                "the image as inlineData); an answer of one text block past 40,000 "
                "characters it cut to its head and tail; it adds `wait_for_previous` to "
                "every tool's schema and passes it on in calls"
            ),
        ),
        Measured(
            name="opencode",
            product="opencode",
            version="1.18.33",
            # Past 2,000 lines or 51,200 bytes of text it keeps the head.
            budget=50_000,
            evidence=(
                "the text blocks reached its model joined in one tool message, the image "
                "in a user message after it; structuredContent is not passed on. Past "
                "51,200 bytes or 2,000 lines it kept only the head"
            ),
        ),
        Measured(
            name="copilot-cli",
            product="GitHub Copilot CLI",
            version="1.0.102",
            glues=True,
            # Past ~20 KB of text its model gets a 500-character preview.
            budget=19_000,
            evidence=(
                "the text blocks reached its model joined with nothing between them, "
                "then the JSON of structuredContent; the image only for a model it is "
                "told sees images. Past ~20 KB of text its model got a 500-character "
                "preview and a file path"
            ),
        ),
    )
}


def profile(client: str | None, setting: str = "auto") -> Profile:
    """How a session with ``client`` (its exact ``clientInfo.name``) is served
    under the person's ``result_shape`` ``setting``."""
    row = MEASURED.get(client) if client is not None else None
    if setting in ("contract", "content"):
        shape: Shape = "contract" if setting == "contract" else "content"
    else:
        shape = "content" if row is not None and row.drops else "contract"
    if row is None:
        return Profile(shape=shape)
    return Profile(
        shape=shape,
        glued=row.glues,
        budget=row.budget,
        captures_whole=row.one_block,
        product=row.product,
        ignored=frozenset(row.adds),
        gets_text=shape == "content" or "text" not in row.drops,
    )
