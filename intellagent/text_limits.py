"""Bounds on the free text of answers.

A small model at temperature 0 can fall into repeating itself until its token limit (the embedded
model once wrote the same three sentences for 1,536 tokens when asked for a task description). A
`max_length` on the answer's field ends that early: llama.cpp turns it into the grammar the model
decodes under, and other providers are told by the schema. An answer cut at the bound is trimmed back
to its last whole sentence.
"""

from __future__ import annotations

# Characters, generous for what each field should hold.
TASK = 500
FLOW_NAME = 60
FLOW_DESCRIPTION = 300
POLICY = 600
SCENARIO = 1500
THOUGHT = 500
MESSAGE = 600
REASON = 400
CHATBOT_REPLY = 1500


def trimmed(text: str, limit: int) -> str:
    """`text` without surrounding space; if it ran up to `limit`, only up to its last full stop."""
    text = text.strip()
    if len(text) + 10 < limit:  # well short of the bound: the model ended it itself
        return text
    end = text.rfind(". ")
    end = end if end > 0 else text.rfind(".")
    return text[: end + 1] if end > 0 else text
