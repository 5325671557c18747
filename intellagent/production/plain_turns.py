"""Our plain format: `{"id": ..., "turns": [{"user": "..."}, {"chatbot": "...", "calls": [{"tool": NAME, "arguments":
{...}, "result": ...}]}]}`, one conversation per record."""

from __future__ import annotations

from typing import Any

from intellagent.production.entries import Entry, NotAConversation, call, result_text
from intellagent.production.threads import Part, Place, record_name


def is_plain(record: Any) -> bool:
    """Whether a record is in the plain format."""
    return isinstance(record, dict) and "turns" in record


def plain_parts(record: Any, place: Place) -> list[Part]:
    """The one conversation a plain record holds.

    Raises:
        NotAConversation: it is not a plain record, or a turn is neither the user's nor the chatbot's.
    """
    if not is_plain(record):
        raise NotAConversation("holds no `turns` (the plain format)")
    turns = record["turns"]
    if not isinstance(turns, list):
        raise NotAConversation("`turns` is not a list")
    said: list[Entry] = []
    for number, turn in enumerate(turns):
        if not isinstance(turn, dict) or not ({"user", "chatbot"} & turn.keys()):
            raise NotAConversation("a turn is not {\"user\": ...} or {\"chatbot\": ..., \"calls\": [...]}")
        if "user" in turn:
            said.append(Entry("user", result_text(turn["user"])))
            continue
        calls = turn.get("calls", [])
        if not isinstance(calls, list):
            raise NotAConversation("`calls` is not a list")
        for index, made in enumerate(c for c in calls if isinstance(c, dict)):
            logged = call(f"call_{number}_{index}", made.get("tool"), made.get("arguments"))
            said.append(Entry("chatbot", calls=(logged,)))
            if made.get("result") is not None:
                said.append(Entry("tool", result_text(made["result"]), answers=logged.id))
        said.append(Entry("chatbot", result_text(turn["chatbot"])))
    return [Part(place=place, entries=tuple(said), thread=f"record {place.record}", name=record_name(record))]
