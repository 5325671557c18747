"""OpenAI Responses API items: a conversation as the Responses API keeps it.

A record is one call, `{"request": {"input": ..., "previous_response_id": ...}, "response": {"id": ..., "output":
[...]}}` (or a response object that carries its `input` beside its `output`), or a conversation's items, `{"items":
[...]}` / `{"data": [...]}` (as the Conversations API lists them). Items are `message`s (`input_text`,
`output_text` parts, or a plain `content` string), `function_call`s and their `function_call_output`s; an input
given as a string is the user's message. A call that continues another by `previous_response_id` joins that
call's conversation; one that names a `conversation` joins it; any other continues the conversation its input
begins with.
"""

from __future__ import annotations

from typing import Any

from intellagent.production.chat_logs import body
from intellagent.production.entries import Entry, NotAConversation, entries
from intellagent.production.threads import Part, Place, record_name

_ITEM_KINDS = {"message", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
               "reasoning", "mcp_call"}


def is_responses(record: Any) -> bool:
    """Whether a record is a Responses API call or a conversation's items."""
    if not isinstance(record, dict):
        return False
    if _items(record) is not None:
        return True
    answered = body(record.get("response")) or record
    return answered.get("object") == "response" or (
        isinstance(answered.get("output"), list) and all(isinstance(item, dict) and "type" in item
                                                         for item in answered["output"]))


def responses_parts(record: Any, place: Place) -> list[Part]:
    """The entries of a Responses API call (its input, then its output) or of a conversation's items.

    Raises:
        NotAConversation: it is neither, or holds an item it cannot read.
    """
    if not is_responses(record):
        raise NotAConversation("holds no Responses API `output` items, nor a conversation's `items`")
    listed = _items(record)
    if listed is not None:
        return [Part(place=place, entries=tuple(_read(listed)), thread=f"record {place.record}",
                     name=record_name(record))]
    request = body(record.get("request")) or record
    response = body(record.get("response")) or record
    given = request.get("input")
    said = [Entry("user", given)] if isinstance(given, str) else _read(given or [])
    said += _read(response.get("output") or [])
    conversation = request.get("conversation")
    conversation = conversation.get("id") if isinstance(conversation, dict) else conversation
    return [Part(place=place, entries=tuple(said), thread=f"conversation {conversation}" if conversation else None,
                 name=str(conversation or response.get("id") or record_name(record)), key=response.get("id"),
                 follows=request.get("previous_response_id") or response.get("previous_response_id"))]


def _items(record: dict[str, Any]) -> list[Any] | None:
    """A conversation's items, when the record is a list of them."""
    for key in ("items", "data"):
        listed = record.get(key)
        if isinstance(listed, list) and listed and all(
                isinstance(item, dict) and (item.get("type") in _ITEM_KINDS or "role" in item) for item in listed):
            return listed
    return None


def _read(items: Any) -> list[Entry]:
    if not isinstance(items, list):
        raise NotAConversation("Responses API `input` or `output` is not a list of items")
    return [entry for item in items for entry in entries(item)]
