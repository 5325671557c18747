"""How the checks and the simulated user's audit cite what a speaker said: a message cut into sentences, and
the sentence at fault quoted as evidence, on one line and clipped, whoever said it."""

from __future__ import annotations

import re
from collections.abc import Callable

SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
QUOTED = 160
"""Characters of a message quoted as evidence."""


def quote(text: str) -> str:
    """Words of a message as evidence: on one line, clipped to `QUOTED` characters."""
    text = " ".join(text.split())
    return text if len(text) <= QUOTED else text[: QUOTED - 1] + "…"


def first_sentence(text: str, holds: Callable[[str], object]) -> str | None:
    """The first sentence of `text` of which `holds` is true, quoted; None when there is none."""
    return next((quote(sentence) for sentence in SENTENCE_END.split(text) if holds(sentence)), None)


def sentence_at(text: str, position: int) -> str:
    """The sentence of `text` that holds `position` (a match's start, say), quoted."""
    start = 0
    for end in SENTENCE_END.finditer(text):
        if position < end.end():
            return quote(text[start:end.start()])
        start = end.end()
    return quote(text[start:])
