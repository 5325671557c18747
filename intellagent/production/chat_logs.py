"""Conversations kept as messages, and the providers' logs of one call each.

- **chat**: a conversation per record, `{"id": ..., "messages": [...]}` or a bare list of messages, in any shape
  `entries` reads (OpenAI's chat messages, LangChain's, Anthropic's content blocks; Anthropic's top-level `system`
  is not a turn);
- **chat_completions**: an OpenAI Chat Completions log, one call per record: `{"request": {"messages": [...]},
  "response": {"choices": [{"message": {...}}]}}` (either side may wrap its body in `body`);
- **anthropic**: an Anthropic Messages log, one call per record: `{"request": {"system": ..., "messages": [...]},
  "response": {"role": "assistant", "content": [...]}}`, `tool_use` and `tool_result` blocks read as calls and
  their results; a record in the chat form is read as chat.

A call's request repeats the conversation before it, so the calls of one conversation are put together by
prefix (`threads`): each record continues the conversation its request begins with.
"""

from __future__ import annotations

from typing import Any

from intellagent.production.entries import Entry, NotAConversation, entries
from intellagent.production.threads import Part, Place, record_name


def is_chat(record: Any) -> bool:
    """Whether a record is a conversation of messages."""
    return isinstance(record, list) or (isinstance(record, dict) and isinstance(record.get("messages"), list))


def chat_parts(record: Any, place: Place) -> list[Part]:
    """The one conversation a record of messages holds.

    Raises:
        NotAConversation: it holds no list of messages, or one it cannot read.
    """
    if isinstance(record, list):
        record = {"messages": record}
    if not isinstance(record, dict) or "messages" not in record:
        raise NotAConversation("holds no `messages`")
    return [Part(place=place, entries=tuple(said(record["messages"])), thread=f"record {place.record}",
                 name=record_name(record))]


def said(messages: Any, *, key: str = "messages") -> list[Entry]:
    """The entries of a list of messages.

    Raises:
        NotAConversation: it is not a list, or holds a message it cannot read.
    """
    if not isinstance(messages, list):
        raise NotAConversation(f"`{key}` is not a list")
    return [entry for message in messages for entry in entries(message)]


def body(side: Any) -> dict[str, Any]:
    """One side of a logged call (its request or its response), its `body` unwrapped; {} when it is not an object."""
    if not isinstance(side, dict):
        return {}
    return side["body"] if isinstance(side.get("body"), dict) else side


def is_completions_log(record: Any) -> bool:
    """Whether a record is a Chat Completions call: a request and a response with choices."""
    return isinstance(record, dict) and "choices" in body(record.get("response"))


def completions_parts(record: Any, place: Place) -> list[Part]:
    """The messages of a Chat Completions call: its request's, then its first choice's.

    Raises:
        NotAConversation: it is not such a call.
    """
    if not is_completions_log(record):
        raise NotAConversation("holds no `request` and `response` with `choices` (a Chat Completions log)")
    request, response = body(record.get("request")), body(record.get("response"))
    choices = response["choices"]
    if not isinstance(choices, list):
        raise NotAConversation("`response.choices` is not a list")
    answer = [entry for choice in choices[:1] for entry in entries(_dict(choice).get("message", {}))]
    return [_logged(record, place, [*said(request.get("messages", []), key="request.messages"), *answer],
                    response.get("id"))]


def is_anthropic_log(record: Any) -> bool:
    """Whether a record is an Anthropic Messages call: a request and a response of content blocks."""
    answered = body(record.get("response")) if isinstance(record, dict) else {}
    return isinstance(answered.get("content"), list) and answered.get("role", "assistant") == "assistant"


def anthropic_parts(record: Any, place: Place) -> list[Part]:
    """The messages of an Anthropic Messages call (its request's, then its answer), or of a conversation of them.

    Raises:
        NotAConversation: it is neither.
    """
    if is_chat(record):
        return chat_parts(record, place)
    if not is_anthropic_log(record):
        raise NotAConversation("holds no `request` and `response` with `content` blocks (an Anthropic Messages log)")
    request, response = body(record.get("request")), body(record.get("response"))
    answer = entries({"role": "assistant", "content": response["content"]})
    return [_logged(record, place, [*said(request.get("messages", []), key="request.messages"), *answer],
                    response.get("id"))]


def _logged(record: dict[str, Any], place: Place, found: list[Entry], response_id: Any) -> Part:
    """A logged call's part: it continues the conversation its request begins with."""
    return Part(place=place, entries=tuple(found), name=record_name(record) or str(response_id or ""))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
