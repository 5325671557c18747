"""Masking what is personal in a production conversation, before any model, cache or file sees it.

By default the common personal data (`personal_data`: e-mail addresses, phone numbers, card numbers, IBANs,
street addresses) is masked in every text: the messages, the tool calls' arguments and the tool results (in a JSON
result, each string). A team may mark more: a field (`transcripts.redact.fields`) names tool arguments and keys of
tool results (JSON, at any depth) whose values are masked wherever they appear in the conversation, the chatbot's
and the user's words included, so that an id a tool returned is masked in the reply that repeats it too; a pattern
(`transcripts.redact.patterns`) is masked in every text.

Each distinct value gets its mask, numbered by kind in order of appearance within its conversation: `[email-1]`,
`[phone-2]`, `[card-1]`, `[iban-1]`, `[address-1]`, and `[redacted-N]` for what a field or a pattern marks. The same
value keeps the same mask however it is written (the same number with or without spaces), so the judge can still
follow it and a masked id the chatbot repeats from a tool result is still grounded in it; two values stay two. A
mask is never masked again: what a later finder matches inside a mask is left, and so is a text masked before.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from intellagent.artifacts import Message, ToolCall
from intellagent.artifacts.production_report import MASK
from intellagent.config import Redaction
from intellagent.production.personal_data import Found, finders

_MARKED = "redacted"


class Masks:
    """The masks of one conversation's personal values."""

    def __init__(self, redaction: Redaction) -> None:
        self.fields = set(redaction.fields)
        self.patterns = [re.compile(pattern) for pattern in redaction.patterns]
        self.finders = finders(redaction.personal, redaction.region)
        self.masks: dict[tuple[str, str], str] = {}  # (kind, the value's key) → its mask
        self.counts: Counter[str] = Counter()
        self._marked: re.Pattern[str] | None = None

    def learn(self, messages: list[Message]) -> None:
        """Take note of the values the marked fields hold in the conversation's calls and results."""
        for message in messages:
            for call in message.tool_calls:
                for value in [*_under(call.arguments, self.fields), *_under(_parsed(call.result), self.fields)]:
                    if value and not MASK.fullmatch(value):
                        self._mask(_MARKED, value)

    def text(self, text: str) -> str:
        """`text` with every marked value, every match of a pattern and the personal data found in it masked."""
        marked = self._finder()
        if marked is not None:
            text = self._masked(text, (Found(m.start(), m.end(), _MARKED, m.group(0)) for m in marked.finditer(text)))
        for pattern in self.patterns:
            text = self._masked(text, (Found(m.start(), m.end(), _MARKED, m.group(0)) for m in pattern.finditer(text)))
        for finder in self.finders:
            text = self._masked(text, finder(text))
        return text

    def value(self, value: Any, key: str = "") -> Any:
        """A JSON value with the marked keys' values masked and every string's text masked."""
        if key in self.fields and isinstance(value, str | int | float) and not isinstance(value, bool):
            return value if MASK.fullmatch(str(value)) else self._mask(_MARKED, str(value))
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(item, key) for item in value]
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, int) and not isinstance(value, bool) and self.finders:  # a card number kept as a number
            masked = self.text(str(value))
            return masked if MASK.fullmatch(masked) else value
        return value

    def messages(self, messages: list[Message]) -> list[Message]:
        """The conversation with everything masked."""
        return [message.model_copy(update={
            "content": self.text(message.content),
            "tool_calls": [self._call(call) for call in message.tool_calls],
        }) for message in messages]

    def _call(self, call: ToolCall) -> ToolCall:
        parsed = _parsed(call.result)
        result = call.result if call.result is None else (
            json.dumps(self.value(parsed), ensure_ascii=False) if parsed is not None else self.text(call.result))
        return call.model_copy(update={"arguments": self.value(call.arguments), "result": result})

    def _masked(self, text: str, found: Iterable[Found]) -> str:
        """`text` with each span found masked, except those that overlap a mask or a span before them."""
        taken = [(m.start(), m.end()) for m in MASK.finditer(text)]
        spans = []
        for span in sorted(found, key=lambda f: (f.start, -f.end)):
            if span.end <= span.start or any(span.start < end and start < span.end for start, end in taken):
                continue
            taken.append((span.start, span.end))
            spans.append(span)
        masks = [self._mask(span.kind, span.key) for span in spans]  # numbered in the order they appear
        for span, mask in reversed(list(zip(spans, masks, strict=True))):
            text = text[:span.start] + mask + text[span.end:]
        return text

    def _mask(self, kind: str, key: str) -> str:
        if (kind, key) not in self.masks:
            self.counts[kind] += 1
            self.masks[(kind, key)] = f"[{kind}-{self.counts[kind]}]"
            if kind == _MARKED:
                self._marked = None
        return self.masks[(kind, key)]

    def _finder(self) -> re.Pattern[str] | None:
        """A pattern of every value the marked fields hold, the longer first (a value before a part of it)."""
        values = sorted((key for kind, key in self.masks if kind == _MARKED), key=len, reverse=True)
        if self._marked is None and values:
            self._marked = re.compile("|".join(rf"(?<!\w){re.escape(value)}(?!\w)" for value in values))
        return self._marked


def masks_for(messages: list[Message], redaction: Redaction) -> Masks:
    """The masks of a conversation, having learnt the values its marked fields hold."""
    masks = Masks(redaction)
    masks.learn(messages)
    return masks


def redacted(messages: list[Message], redaction: Redaction) -> list[Message]:
    """The conversation with what `redaction` marks masked (unchanged when it marks nothing)."""
    if not redaction.masks_anything:
        return messages
    return masks_for(messages, redaction).messages(messages)


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
