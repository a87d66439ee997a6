"""Agent clients as measured: what each passes on to its model, and the shape it is served.

Contract 4 sends a resolved capture as ``content`` blocks (header, image
labels, images, on-screen text, note, the closing ``prov:`` line) and, beside
them, ``structuredContent``. Some agent clients, measured end to end with the
model's API stood in on loopback (``tests/clients/``), pass their model only
part of that answer when ``structuredContent`` is present. For a session with
such a client Noru serves the **content shape**: the same blocks, without
``structuredContent`` (``contract.as_content``). Every other client gets
contract 4 exactly (the **contract shape**).

- ``MEASURED`` is the one table: a client by the exact ``clientInfo.name`` it
  sends at ``initialize``, what its model loses under contract 4, the version
  measured, and the evidence. A name not in it is served contract 4.
- ``shape_for`` picks a session's shape from the client's name and the
  person's ``result_shape`` setting (``auto``: by the table; ``contract`` or
  ``content``: that shape for every client).
- ``model_gets_text`` says whether the model behind a session receives the
  text blocks of a capture, so that ``initialize``'s instructions never tell
  it about a line it does not get.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["MEASURED", "Measured", "Shape", "model_gets_text", "shape_for"]

Shape = Literal["contract", "content"]


@dataclass(frozen=True)
class Measured:
    """One client as the harness measured it.

    ``drops`` is what its model does not receive of a contract-4 capture
    result (``"text"``: every text block; ``"image"``: the image blocks);
    ``version`` the client release it was measured on; ``evidence`` where it
    was seen, for the person who wonders why their client is served otherwise.
    """

    name: str
    product: str
    version: str
    drops: tuple[str, ...]
    evidence: str

    @property
    def shape(self) -> Shape:
        return "content" if self.drops else "contract"


MEASURED: dict[str, Measured] = {
    row.name: row
    for row in (
        Measured(
            name="claude-code",
            product="Claude Code (@anthropic-ai/claude-code)",
            version="2.1.332",
            drops=("text",),
            evidence=(
                "with structuredContent the model got the image and the JSON of "
                "structuredContent, none of the text blocks; without it, every block "
                "(tests/clients, test_claude_code; anthropics/claude-code issues "
                "54737, 54450, 55677, 64316, 79944)"
            ),
        ),
        Measured(
            name="codex-mcp-client",
            product="OpenAI Codex CLI (@openai/codex)",
            version="0.171.0",
            drops=("text", "image"),
            evidence=(
                "with structuredContent the model got only its JSON, no text and no "
                "image; without it, the text as input_text and the image as "
                "input_image (tests/clients, test_codex)"
            ),
        ),
    )
}


def shape_for(client: str | None, setting: str = "auto") -> Shape:
    """The shape a session with ``client`` (its exact ``clientInfo.name``) is
    served under the person's ``result_shape`` ``setting``."""
    if setting == "contract":
        return "contract"
    if setting == "content":
        return "content"
    row = MEASURED.get(client) if client is not None else None
    return row.shape if row is not None else "contract"


def model_gets_text(client: str | None, shape: Shape) -> bool:
    """Whether ``client``'s model receives a capture's text blocks when served ``shape``."""
    if shape == "content":
        return True
    row = MEASURED.get(client) if client is not None else None
    return row is None or "text" not in row.drops
