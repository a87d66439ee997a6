"""The OCR pipe's messages through the wire's one codec (``noru.appwire``):
each reads back as it was sent, its binary after the line, and neither side
of the wire reads the other's messages."""

from __future__ import annotations

import io

import pytest

from noru import __version__, appwire, imaging
from noru.appwire import PROTOCOL, codec
from noru.appwire.ocr_pipe import Fatal, PipeReply, Ready, Recognise, Recognised, Unreadable
from noru.ocr.base import OcrLine

ROWS = imaging.Scanlines(bytes(range(7)) * 2, (2, 2), "RGB")
LINE = OcrLine("Total: 4,096", (10, 20, 300, 18), 0.9375, 12)

ANSWERS: list[PipeReply | appwire.Mismatch] = [
    Ready("tesseract", "5.5.4", __version__),
    Recognised("tesseract+glyphs", "5.5.4", ((LINE,), ())),
    Unreadable("the image file is damaged"),
    Fatal("the RapidOCR models are missing"),
    appwire.Mismatch(PROTOCOL, __version__),
]


@pytest.mark.parametrize("job", [Recognise("capture_2026-08-12_141502"), Recognise("c", (ROWS,))])
def test_every_job_reads_back_as_it_was_sent_its_rows_after_the_line(job: Recognise) -> None:
    data = codec.encode(job)
    line = data.split(b"\n", 1)[0] + b"\n"
    assert codec.blob_length(line) == len(data) - len(line) == sum(len(r.data) for r in job.pixels)
    stream = io.BytesIO(data)
    assert codec.read_job(stream) == job
    assert codec.read_job(stream) is None  # the end of input, at a message's end


@pytest.mark.parametrize("said", ANSWERS, ids=lambda a: type(a).__name__)
def test_every_answer_reads_back_as_it_was_sent(said: PipeReply | appwire.Mismatch) -> None:
    assert codec.read_answer(io.BytesIO(codec.encode(said))) == said


def test_the_pipes_answers_are_no_replies_of_the_socket_and_back() -> None:
    with pytest.raises(appwire.Malformed, match="not a reply here: recognised"):
        appwire.decode_reply(codec.encode(ANSWERS[1]))
    with pytest.raises(appwire.Malformed, match="not a request here: recognise"):
        appwire.decode_request(codec.encode(Recognise("c")))
    with pytest.raises(appwire.Malformed, match="not a reply here: pong"):
        codec.read_answer(io.BytesIO(codec.encode(appwire.Pong(__version__))))


def test_a_job_whose_rows_end_short_is_cut_not_read_as_another() -> None:
    data = codec.encode(Recognise("c", (ROWS,)))
    with pytest.raises(codec.Cut):
        codec.read_job(io.BytesIO(data[:-3]))
