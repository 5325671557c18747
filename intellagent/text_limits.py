"""Bounds on the free text of answers, and the clean-up of text a small model wrote in a loop.

A small model at temperature 0 can fall into repeating itself until its token limit: the embedded model
once wrote the same three sentences for 1,536 tokens when asked for a task description, and an expected
behaviour that said "John will be informed that …" a dozen times. A `max_length` on the answer's field
ends such a loop early: llama.cpp turns it into the grammar the model decodes under, and other providers
are told by the schema. What the loop wrote is then cut where the text starts repeating itself, and an
answer that ran up to its bound loses its last sentence. A text well within its bound and without a
loop is unchanged.
"""

from __future__ import annotations

import re

# Characters, generous for what each field should hold.
TASK = 500
FLOW_NAME = 60
FLOW_DESCRIPTION = 300
POLICY = 600
SCENARIO = 700  # three to six sentences; the embedded model looped to older bounds (1,500, 1,000) in half of them
THOUGHT = 500
MESSAGE = 600
USER_MESSAGE = 320  # one or two short sentences; the embedded model's user looped its request up to the 600 above
REASON = 400
CHATBOT_REPLY = 600  # a few sentences; the embedded model's chatbot looped its reply up to the old bound of 1,500

# A sentence this long said twice is a loop; shorter ones ("The chatbot agrees.") recur legitimately,
# so for them only a repeated pair of consecutive sentences counts.
LONG_SENTENCE = 60

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def trimmed(text: str, limit: int) -> str:
    """`text` without surrounding space, cut where it starts repeating itself, and, if it ran up to
    `limit`, without its unfinished last sentence. What is kept is kept as written, line breaks included."""
    text = text.strip()
    ends = [match.start() for match in _SENTENCE_END.finditer(text)] + [len(text)]
    starts = [0] + [match.end() for match in _SENTENCE_END.finditer(text)]
    sentences = [text[start:end] for start, end in zip(starts, ends, strict=True)]
    keep = _loop_start(sentences)
    if keep == len(sentences) and len(text) + 10 >= limit and len(sentences) > 1:
        # It ran up to the bound, so its last sentence is unfinished even when it ends with a full stop
        # (the embedded model once closed "… when the airline has cancelled the." at 500 characters).
        keep -= 1
    return text[: ends[keep - 1]] if keep else text


def _loop_start(sentences: list[str]) -> int:
    """The index of the first sentence that repeats what was already said (len(sentences) if none)."""
    seen_long: set[str] = set()
    seen_pairs: set[tuple[str, str]] = set()
    for index, sentence in enumerate(sentences):
        if len(sentence) >= LONG_SENTENCE and sentence in seen_long:
            return index
        pair = (sentence, sentences[index + 1]) if index + 1 < len(sentences) else None
        if pair in seen_pairs:
            return index
        seen_long.add(sentence)
        if pair is not None:
            seen_pairs.add(pair)
    return len(sentences)
