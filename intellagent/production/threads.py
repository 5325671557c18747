"""Conversations put back together from the parts a log keeps of them.

A tracing tool keeps a conversation in pieces: an OpenTelemetry trace in spans, a LangSmith trace in runs, a
Langfuse session in traces of observations, a provider's log in one request and its response per call. Each
reader turns its records into `Part`s; here the parts of one conversation are found and merged:

- **by thread**: parts that name their conversation (a trace id, a session id) go together, in the order they
  happened (their time, then their place in the file);
- **by chain**: a part that continues another by its id (a Responses API call's `previous_response_id`) joins
  that part's conversation;
- **by prefix**: a part that names none continues the latest conversation of its format whose entries so far
  begin its own (a call's request repeats the history before it), or starts a new one.

Merging keeps each entry once: a part whose entries the conversation already holds in a row adds nothing (a
nested run shows part of its parent's conversation), one that begins with the conversation's end adds what comes
after (the next call's request repeats the history), any other adds all its entries. A part that only sums the
conversation up (a chain's input and output) is read only when nothing else shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from intellagent.artifacts import Message
from intellagent.production.entries import Entry, transcript


@dataclass(frozen=True, order=True)
class Place:
    """Where a record is in the transcripts file (a line of JSONL, an item of a JSON document) and, for a record
    that holds many parts (spans, runs, observations), which one: in the file's order, and in words."""

    order: tuple[int, ...]
    text: str = field(compare=False)

    def within(self, kind: str, number: int) -> Place:
        """The place of the `number`th `kind` inside this one (`line 3, span 2`)."""
        return Place((*self.order, number), f"{self.text}, {kind} {number}" if self.text else f"{kind} {number}")

    @property
    def record(self) -> int:
        """The number of the record it is in."""
        return self.order[0]

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Part:
    """A piece of a conversation from one record.

    Attributes:
        place: where it is in the file.
        entries: what it shows of the conversation, in order.
        thread: the conversation it belongs to, as the format names it (None: found by prefix, or by chain).
        name: the conversation's name in the file.
        at: when it happened, as text that sorts in time order ("": its place in the file is its order).
        key: its own id, which a later part may continue (`follows`).
        follows: the id of the part it continues.
        results: tool results the record logs apart from the messages (a tool's own span or run).
        summary: it shows only the conversation's first words and its last (a chain's input and output, a trace's):
            its thread is read from it only when no other part of the thread shows the conversation.
    """

    place: Place
    entries: tuple[Entry, ...]
    thread: str | None = None
    name: str = ""
    at: str = ""
    key: str | None = None
    follows: str | None = None
    results: tuple[Entry, ...] = ()
    summary: bool = False


@dataclass(frozen=True)
class Broken:
    """A record, or a part of one (a span, a run), that cannot be read: where, and why."""

    place: Place
    reason: str


@dataclass(frozen=True)
class Conversation:
    """One conversation as read: its number in the file's order, where it starts, its name, the format it was
    read from, and its transcript with the tool results that answered no call it shows."""

    number: int
    place: str
    name: str
    format: str
    messages: list[Message]
    orphans: int = 0

    @property
    def calls(self) -> int:
        """Its tool calls."""
        return sum(len(message.tool_calls) for message in self.messages)

    @property
    def results(self) -> int:
        """Its tool calls with their result."""
        return sum(call.result is not None for message in self.messages for call in message.tool_calls)


@dataclass(frozen=True)
class Unreadable:
    """A record (or a part of one) that holds no conversation: its number in the file's order, where, and why."""

    number: int
    place: str
    reason: str


def record_name(record: Any) -> str:
    """The name a record gives its conversation (its id), or ""."""
    if not isinstance(record, dict):
        return ""
    return str(next((record[key] for key in ("id", "conversation_id", "name") if record.get(key)), ""))


def threads(parts: Sequence[tuple[str, Part]]) -> list[list[tuple[str, Part]]]:
    """The parts (each with its format) grouped by conversation, each group in the order its parts happened, the
    groups in the order they start in the file."""
    groups: dict[tuple[str, str], list[tuple[str, Part]]] = {}
    by_key = {(fmt, part.key): part for fmt, part in parts if part.key}
    followed = {(fmt, part.follows) for fmt, part in parts if part.follows}
    # Per format and first entry, each open thread's entries so far: a part is compared only with the threads that
    # begin as it does, so that a log of many conversations is threaded in one pass.
    prefixed: dict[tuple[str, Entry], list[tuple[list[Entry], tuple[str, str]]]] = {}
    depth: dict[int, int] = {}  # a chained part's place in its chain, which orders it
    for number, (fmt, part) in enumerate(parts):
        thread = part.thread
        if thread is None and (part.follows or (fmt, part.key) in followed):
            root, depth[id(part)] = _chain_root(fmt, part, by_key)
            thread = f"chain {root}"
        if thread is None:
            said = _spoken(part.entries)
            opened = prefixed.setdefault((fmt, said[0]), []) if said else []
            found = next((key for whole, key in reversed(opened) if said[:len(whole)] == whole), None)
            group = found or (fmt, f"#{number}")
            opened[:] = [entry for entry in opened if entry[1] != group] + [(said, group)]
        else:
            group = (fmt, thread)
        groups.setdefault(group, []).append((fmt, part))
    ordered = [sorted(group, key=lambda item: (item[1].at, depth.get(id(item[1]), 0), item[1].place))
               for group in groups.values()]
    return sorted(ordered, key=lambda group: min(part.place for _, part in group))


def _chain_root(fmt: str, part: Part, by_key: dict[tuple[str, str], Part]) -> tuple[str | None, int]:
    """The id of the first part in the file of the chain `part` is in, and how many parts come before `part`."""
    seen: set[str] = set()
    current = part
    while current.follows and current.follows not in seen and (fmt, current.follows) in by_key:
        seen.add(current.follows)
        current = by_key[(fmt, current.follows)]
    return current.key or current.follows, len(seen)


def _spoken(entries: Sequence[Entry]) -> list[Entry]:
    """The entries of a conversation: the system's words are no turn of it, and parts repeat them each time."""
    return [entry for entry in entries if entry.role != "system"]


def merged(parts: Sequence[Part]) -> list[Entry]:
    """The entries of a conversation's parts, in order, each once (its summaries only when nothing else shows it)."""
    detailed = [part for part in parts if part.entries and not part.summary]
    whole: list[Entry] = []
    for part in detailed or parts:
        said = _spoken(part.entries)
        if not said or _holds(whole, said):
            continue
        whole += said[_overlap(whole, said):]
    return whole


def _holds(whole: list[Entry], said: list[Entry]) -> bool:
    """Whether `said` is in `whole`, in a row."""
    size = len(said)
    return any(whole[start:start + size] == said for start in range(len(whole) - size + 1))


def _overlap(whole: list[Entry], said: list[Entry]) -> int:
    """How many entries `said` begins with that `whole` ends with."""
    return next((size for size in range(min(len(whole), len(said)), 0, -1) if whole[-size:] == said[:size]), 0)


def conversation(fmt: str, parts: Sequence[Part]) -> Conversation:
    """The conversation of a thread's parts (in order), not yet numbered."""
    read = transcript(merged(parts), [result for part in parts for result in part.results])
    first = min(parts, key=lambda part: part.place)
    name = next((part.name for part in parts if part.name), "")
    where = str(first.place) if len(parts) == 1 else f"{first.place} and {len(parts) - 1} more parts"
    return Conversation(number=0, place=where, name=name or where, format=fmt, messages=read.messages,
                        orphans=read.orphans)
