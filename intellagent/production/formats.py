"""Reading production conversations from a file, in the formats teams already keep them in.

The file is JSONL (a record per line) or one JSON document (a record, a list of records, or an API page of
them under `data`). Each record is read in its format, named by `transcripts.format` or, by default (`auto`),
recognised record by record (a file may mix them):

| format | a record is |
| --- | --- |
| `otel` | an OTLP JSON export of OpenTelemetry GenAI spans (`otel_spans`) |
| `langfuse` | a Langfuse trace with its observations, a session of traces, or one observation (`langfuse_traces`) |
| `langsmith` | a LangSmith run (`langsmith_runs`) |
| `plain` | our own: `{"id", "turns": [{"user"}, {"chatbot", "calls"}]}` (`plain_turns`) |
| `chat_completions` | an OpenAI Chat Completions call: its request and its response (`chat_logs`) |
| `anthropic` | an Anthropic Messages call: its request and its response, or a conversation of them (`chat_logs`) |
| `responses` | an OpenAI Responses API call, or a conversation's items (`responses_items`) |
| `chat` | a conversation of chat messages: `{"id", "messages": [...]}` or a bare list (`chat_logs`) |

The parts of one conversation, wherever they are in the file, are put back together (`threads`), and each
conversation is numbered in the order it starts in the file. A record, or a part of one, that cannot be read is
returned as `Unreadable`, numbered in the same order, with its place and why: never a silent loss.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from intellagent.errors import UsageError
from intellagent.production.chat_logs import (
    anthropic_parts,
    chat_parts,
    completions_parts,
    is_anthropic_log,
    is_chat,
    is_completions_log,
)
from intellagent.production.entries import NotAConversation
from intellagent.production.langfuse_traces import is_langfuse, langfuse_parts
from intellagent.production.langsmith_runs import is_langsmith, langsmith_parts
from intellagent.production.otel_spans import is_otel, otel_parts
from intellagent.production.plain_turns import is_plain, plain_parts
from intellagent.production.responses_items import is_responses, responses_parts
from intellagent.production.threads import Broken, Conversation, Part, Place, Unreadable, conversation, threads

__all__ = ["FORMATS", "Conversation", "Unreadable", "read_transcripts"]


@dataclass(frozen=True)
class Format:
    """A format of records: how to recognise one, and what it holds."""

    name: str
    holds: Callable[[Any], bool]
    parts: Callable[[Any, Place], list[Part] | list[Part | Broken]]


FORMATS: tuple[Format, ...] = (
    Format("otel", is_otel, otel_parts),
    Format("langfuse", is_langfuse, langfuse_parts),
    Format("langsmith", is_langsmith, langsmith_parts),
    Format("plain", is_plain, plain_parts),
    Format("chat_completions", is_completions_log, completions_parts),
    Format("anthropic", is_anthropic_log, anthropic_parts),
    Format("responses", is_responses, responses_parts),
    Format("chat", is_chat, chat_parts),
)
"""Every format, in the order a record is recognised by (the first that holds it reads it)."""

_BY_NAME = {fmt.name: fmt for fmt in FORMATS}
_NONE = ("is in no format read here (an OTLP export, a Langfuse trace, a LangSmith run, plain `turns`, a Chat "
         "Completions or Anthropic Messages call, Responses API items, or chat `messages`)")


def read_transcripts(path: Path, fmt: str = "auto") -> list[Conversation | Unreadable]:
    """Every conversation of a transcripts file, and every record or part of one that holds none, in file order.

    Args:
        path: the file.
        fmt: the format of its records, or `auto` to recognise each.

    Raises:
        UsageError: the file cannot be read at all.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"transcripts: file {path} not found; fix transcripts.path or --transcripts") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"transcripts: {path} is not UTF-8 text ({error.reason} at byte {error.start})") from None
    parts: list[tuple[str, Part]] = []
    broken: list[Broken] = []
    for place, record in _records(text, broken):
        try:
            chosen = _BY_NAME[fmt] if fmt != "auto" else next(f for f in FORMATS if f.holds(record))
        except StopIteration:
            broken.append(Broken(place, _NONE))
            continue
        try:
            found = chosen.parts(record, place)
        except NotAConversation as error:
            broken.append(Broken(place, str(error)))
            continue
        broken += [part for part in found if isinstance(part, Broken)]
        parts += [(chosen.name, part) for part in found if isinstance(part, Part)]
    read = [_assembled(group) for group in threads(parts)] + [(item.place, item) for item in broken]
    read.sort(key=lambda pair: pair[0])
    return [_numbered(number, item) for number, (_, item) in enumerate(read, start=1)]


def _assembled(group: list[tuple[str, Part]]) -> tuple[Place, Conversation | Broken]:
    """A thread's conversation, or why it holds none; with the place it starts at."""
    place = min(part.place for _, part in group)
    found = conversation(group[0][0], [part for _, part in group])
    roles = {message.role for message in found.messages}
    if roles != {"user", "chatbot"}:
        return place, Broken(place, "holds no message of the user and the chatbot both")
    return place, found


def _numbered(number: int, item: Conversation | Broken) -> Conversation | Unreadable:
    if isinstance(item, Broken):
        return Unreadable(number=number, place=str(item.place), reason=item.reason)
    return replace(item, number=number)


def _records(text: str, broken: list[Broken]) -> list[tuple[Place, Any]]:
    """The file's records with their places: its lines, or the items of the one JSON document it holds; a line that
    is not JSON in a file that is no document is added to `broken`."""
    lines: list[tuple[Place, Any]] = []
    bad: list[Broken] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        place = Place((number,), f"line {number}")
        try:
            lines.append((place, json.loads(line)))
        except json.JSONDecodeError as error:
            bad.append(Broken(place, f"not JSON ({error.msg} at column {error.colno})"))
    if bad:
        try:
            document = json.loads(text)
        except json.JSONDecodeError:
            broken += bad
        else:
            return _unpacked(document, Place((1,), ""))
    return [record for place, value in lines for record in _unpacked(value, place)]


def _unpacked(value: Any, place: Place) -> list[tuple[Place, Any]]:
    """The records a JSON value holds: each item of a list (or of an API page's `data`) whose items are all records
    of a format that holds many (a run, a trace, an export, a call), else the value itself."""
    listed = value.get("data") if isinstance(value, dict) and isinstance(value.get("data"), list) else value
    if isinstance(listed, list) and listed and all(_is_record(item) for item in listed):
        return [(place.within("item", number), item) for number, item in enumerate(listed, start=1)]
    return [(place if place.text else Place(place.order, "the document"), value)]


def _is_record(item: Any) -> bool:
    """Whether a list's item is a record of its own rather than a message of one conversation."""
    return isinstance(item, dict) and any(fmt.holds(item) for fmt in FORMATS)
