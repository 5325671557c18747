"""Masking what a team marks as personal in its conversations, before any model or file sees them.

A field (`transcripts.redact.fields`) names tool arguments and keys of tool results (JSON, at any depth):
their values are masked wherever they appear in the conversation, the chatbot's and the user's words
included, so that an email a tool returned is masked in the reply that repeats it too. A pattern
(`transcripts.redact.patterns`) is masked in every text. Each distinct value becomes `[redacted-N]`,
numbered in order of appearance within its conversation: the same value keeps the same mask, so a
masked id the chatbot repeats from a tool result is still grounded in it, and two ids stay two.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from intellagent.artifacts import Message, ToolCall
from intellagent.config import Redaction

_MASK = re.compile(r"\[redacted-\d+\]")
"""A value's mask, as `Masks` writes it."""


class Masks:
    """The masks of one conversation's personal values."""

    def __init__(self, redaction: Redaction) -> None:
        self.fields = set(redaction.fields)
        self.patterns = [re.compile(pattern) for pattern in redaction.patterns]
        self.masks: dict[str, str] = {}
        self._finder: re.Pattern[str] | None = None

    def learn(self, messages: list[Message]) -> None:
        """Take note of the values the marked fields hold in the conversation's calls and results."""
        for message in messages:
            for call in message.tool_calls:
                for value in [*_under(call.arguments, self.fields), *_under(_parsed(call.result), self.fields)]:
                    self._mask(value)
        self._finder = None

    def text(self, text: str) -> str:
        """`text` with every marked value and every match of a pattern masked; a mask already in it is left whole."""
        for pattern in self.patterns:
            text = _between_masks(pattern, text, lambda match: self._mask(match.group(0)))
        finder = self._values()
        return _between_masks(finder, text, lambda match: self.masks[match.group(0)]) if finder is not None else text

    def value(self, value: Any, key: str = "") -> Any:
        """A JSON value with the marked keys' values masked and every string's text masked."""
        if key in self.fields and isinstance(value, str | int | float) and not isinstance(value, bool):
            return self._mask(str(value))
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(item, key) for item in value]
        return self.text(value) if isinstance(value, str) else value

    def _mask(self, value: str) -> str:
        if value not in self.masks:
            self.masks[value] = f"[redacted-{len(self.masks) + 1}]"
            self._finder = None
        return self.masks[value]

    def _values(self) -> re.Pattern[str] | None:
        if self._finder is None and self.masks:
            ordered = sorted(self.masks, key=len, reverse=True)  # a longer value before a part of it
            self._finder = re.compile("|".join(rf"(?<!\w){re.escape(value)}(?!\w)" for value in ordered))
        return self._finder


def _between_masks(pattern: re.Pattern[str], text: str, mask: Callable[[re.Match[str]], str]) -> str:
    """`text` with each match of `pattern` replaced by its `mask`, but not within the masks already in it: a pattern of
    digits, or a marked value of 3, would otherwise mask a mask's number again (`[redacted-[redacted-2]]`)."""
    pieces, masks = _MASK.split(text), _MASK.findall(text)
    return "".join(pattern.sub(mask, piece) + (masks[index] if index < len(masks) else "")
                   for index, piece in enumerate(pieces))


def redacted(messages: list[Message], redaction: Redaction) -> list[Message]:
    """The conversation with what `redaction` marks masked (unchanged when it marks nothing)."""
    if not redaction.fields and not redaction.patterns:
        return messages
    masks = Masks(redaction)
    masks.learn(messages)
    return [message.model_copy(update={
        "content": masks.text(message.content),
        "tool_calls": [_call(call, masks) for call in message.tool_calls],
    }) for message in messages]


def _call(call: ToolCall, masks: Masks) -> ToolCall:
    parsed = _parsed(call.result)
    result = call.result if call.result is None else (
        json.dumps(masks.value(parsed), ensure_ascii=False) if parsed is not None else masks.text(call.result))
    return call.model_copy(update={"arguments": masks.value(call.arguments), "result": result})


def _parsed(result: str | None) -> Any:
    """A tool result as JSON, when it is JSON (an object or a list)."""
    if not result or result.lstrip()[:1] not in ("{", "["):
        return None
    try:
        return json.loads(result)
    except json.JSONDecodeError:
        return None


def _under(value: Any, fields: set[str], key: str = "") -> Iterator[str]:
    """The values of the marked keys, at any depth."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _under(v, fields, k)
    elif isinstance(value, list):
        for item in value:
            yield from _under(item, fields, key)
    elif key in fields and value is not None and not isinstance(value, bool):
        yield str(value)
