"""OpenTelemetry GenAI spans, as an OTLP JSON export holds them (`{"resourceSpans": [{"scopeSpans": [{"spans":
[...]}]}]}`, one export per line as a collector's file exporter writes them, or one document).

The spans of one trace are one conversation, put together in the order they started; the traces that carry one
`gen_ai.conversation.id` (or `session.id`) on any of their spans are one conversation too. A model call's span
shows the messages it was given and those it answered with, in whichever way the instrumentation recorded them:

- the attributes `gen_ai.input.messages` and `gen_ai.output.messages` (messages of `parts`: `text`, `tool_call`,
  `tool_call_response`), on the span or on its `gen_ai.client.inference.operation.details` event;
- the earlier events `gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message` (with its
  `tool_calls`), `gen_ai.tool.message` (its `id` the call's) and `gen_ai.choice` (its `message`), their fields as
  the event's attributes or as JSON in `gen_ai.event.content`;
- indexed attributes, `gen_ai.prompt.N.*` and `gen_ai.completion.N.*`, or OpenInference's
  `llm.input_messages.N.message.*` and `llm.output_messages.N.message.*`.

A tool's span (`gen_ai.operation.name: execute_tool`, or OpenInference's `TOOL` kind) gives its result
(`gen_ai.tool.call.result`) to the call of its `gen_ai.tool.call.id`. A model call's span that recorded no message
(instrumentations leave the content out unless asked) is reported, as is one whose messages are not JSON; spans of
anything else are not part of a conversation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from intellagent.production.entries import Entry, NotAConversation, entries, result_text
from intellagent.production.threads import Broken, Part, Place

_MODEL_CALLS = {"chat", "text_completion", "generate_content"}
_EVENT_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}
_DETAILS = "gen_ai.client.inference.operation.details"
_CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id")
NO_CONTENT = ("a model call's span without its messages: its instrumentation left the content out (OpenTelemetry's "
              "GenAI instrumentations record it when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is true)")


def is_otel(record: Any) -> bool:
    """Whether a record is an OTLP export of spans."""
    return isinstance(record, dict) and isinstance(record.get("resourceSpans"), list)


def otel_parts(record: Any, place: Place) -> list[Part | Broken]:
    """What each span of an export shows of its trace's conversation; a model call's span that cannot be read is
    reported with its place.

    Raises:
        NotAConversation: it is not an OTLP export.
    """
    if not is_otel(record):
        raise NotAConversation("holds no OTLP `resourceSpans`")
    spans = list(_spans(record))
    conversations = {}  # trace id → the conversation id one of its spans carries
    for span, attributes in spans:
        key = next((str(attributes[k]) for k in _CONVERSATION_KEYS if attributes.get(k)), None)
        if key:
            conversations.setdefault(str(span.get("traceId", "")), key)
    found: list[Part | Broken] = []
    for number, (span, attributes) in enumerate(spans, start=1):
        where = place.within("span", number)
        trace = str(span.get("traceId", ""))
        conversation = conversations.get(trace)
        thread = f"conversation {conversation}" if conversation else f"trace {trace}"
        at = f"{int(span.get('startTimeUnixNano') or 0):020d}"
        try:
            part = _part(span, attributes)
        except NotAConversation as error:
            found.append(Broken(where, str(error)))
            continue
        if part is not None:
            said, results = part
            found.append(Part(place=where, entries=tuple(said), thread=thread, name=conversation or trace, at=at,
                              results=tuple(results)))
    return found


def _spans(record: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Every span of an export, with its attributes decoded."""
    for resource in record["resourceSpans"]:
        scopes = resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or [] if isinstance(
            resource, dict) else []
        for scope in scopes:
            for span in (scope.get("spans") or []) if isinstance(scope, dict) else []:
                if isinstance(span, dict):
                    yield span, attributes_of(span.get("attributes"))


def attributes_of(attributes: Any) -> dict[str, Any]:
    """OTLP attributes (`[{"key": ..., "value": {"stringValue": ...}}]`) as a dict of plain values."""
    if not isinstance(attributes, list):
        return {}
    return {str(a.get("key")): _value(a.get("value")) for a in attributes if isinstance(a, dict)}


def _value(value: Any) -> Any:
    """An OTLP AnyValue as a plain value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_value(item) for item in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return attributes_of((value["kvlistValue"] or {}).get("values"))
    return None


def _part(span: dict[str, Any], attributes: dict[str, Any]) -> tuple[list[Entry], list[Entry]] | None:
    """A span's entries and tool results; None for a span that is no part of a conversation.

    Raises:
        NotAConversation: a model call's span whose messages cannot be read, or that recorded none.
    """
    operation = attributes.get("gen_ai.operation.name")
    if operation == "execute_tool" or attributes.get("openinference.span.kind") == "TOOL":
        return [], _tool_result(attributes)
    events = [(str(e.get("name", "")), attributes_of(e.get("attributes"))) for e in span.get("events") or []
              if isinstance(e, dict)]
    details = next((found for name, found in events if name == _DETAILS), {})
    given = _messages(attributes, details, "gen_ai.input.messages")
    answered = _messages(attributes, details, "gen_ai.output.messages")
    said = [entry for message in [*given, *answered] for entry in entries(message)]
    said = said or [entry for message in _event_messages(events) for entry in entries(message)]
    said = said or [entry for message in _indexed(attributes) for entry in entries(message)]
    if said:
        return said, []
    if operation in _MODEL_CALLS:
        raise NotAConversation(NO_CONTENT)
    return None


def _messages(attributes: dict[str, Any], details: dict[str, Any], key: str) -> list[Any]:
    """A messages attribute of the span (or of its details event): structured, or serialized as JSON."""
    value = attributes.get(key, details.get(key))
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise NotAConversation(f"`{key}` is not JSON") from None
    if not isinstance(value, list):
        raise NotAConversation(f"`{key}` is not a list of messages")
    return value


def _event_messages(events: list[tuple[str, dict[str, Any]]]) -> Iterator[dict[str, Any]]:
    """The messages the earlier per-message events recorded."""
    for name, fields in events:
        if name not in _EVENT_ROLES and name != "gen_ai.choice":
            continue
        content = fields.get("gen_ai.event.content")
        if isinstance(content, str):
            try:
                fields = {**fields, **json.loads(content)}
            except json.JSONDecodeError:
                raise NotAConversation(f"the `gen_ai.event.content` of a `{name}` event is not JSON") from None
        if name == "gen_ai.choice":
            message = fields.get("message")
            message = json.loads(message) if isinstance(message, str) else message
            yield {"role": "assistant", **(message if isinstance(message, dict) else {})}
            continue
        message = {"role": fields.get("role") or _EVENT_ROLES[name], "content": fields.get("content")}
        if isinstance(fields.get("tool_calls"), str | list):
            calls = fields["tool_calls"]
            message["tool_calls"] = json.loads(calls) if isinstance(calls, str) else calls
        if name == "gen_ai.tool.message":
            message["tool_call_id"] = fields.get("id")
        yield message


def _indexed(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages indexed attributes record: `gen_ai.prompt.N.*` then `gen_ai.completion.N.*`, or OpenInference's
    `llm.input_messages.N.message.*` then `llm.output_messages.N.message.*`."""
    found = []
    for prefix in ("gen_ai.prompt.", "gen_ai.completion.", "llm.input_messages.", "llm.output_messages."):
        tree = _unflattened({key[len(prefix):]: value for key, value in attributes.items() if key.startswith(prefix)})
        for index in sorted((k for k in tree if k.isdigit()), key=int):
            message = tree[index]
            message = message.get("message", message) if isinstance(message, dict) else {}
            found.append(_openai_form(message))
    return found


def _unflattened(flat: dict[str, Any]) -> dict[str, Any]:
    """Dotted keys as nested objects (`0.role` → {"0": {"role": ...}})."""
    tree: dict[str, Any] = {}
    for key, value in flat.items():
        node = tree
        *path, last = key.split(".")
        for step in path:
            node = node.setdefault(step, {}) if isinstance(node.get(step, {}), dict) else {}
        node[last] = value
    return tree


def _openai_form(message: dict[str, Any]) -> dict[str, Any]:
    """An indexed message as a chat message: its numbered tool calls as a list (OpenInference's `tool_call` wrapper
    unwrapped)."""
    calls = message.get("tool_calls")
    if isinstance(calls, dict):
        listed = [calls[k] for k in sorted((k for k in calls if k.isdigit()), key=int)]
        message = {**message, "tool_calls": [call.get("tool_call", call) if isinstance(call, dict) else call
                                             for call in listed]}
    return message


def _tool_result(attributes: dict[str, Any]) -> list[Entry]:
    """What a tool's span returned, for the call of its id (nothing when the span did not record it)."""
    result = attributes.get("gen_ai.tool.call.result", attributes.get("output.value"))
    if result is None:
        return []
    call_id = attributes.get("gen_ai.tool.call.id") or attributes.get("tool_call.id") or ""
    return [Entry("tool", result_text(result), answers=str(call_id),
                  tool=attributes.get("gen_ai.tool.name") or attributes.get("tool.name"))]
