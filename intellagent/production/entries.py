"""What a logged conversation holds, read from any format into one form: entries (a message, a tool call, a tool's
result), then a transcript.

Every format keeps its messages in one of a few shapes, and `entries` reads each of them:

- OpenAI chat messages: `role`, `content` (a string or a list of text parts), `tool_calls` (`function.name`,
  `function.arguments` as a JSON string or an object), a `tool` message answering a call by its `tool_call_id`,
  the older `function_call` and `function` role;
- LangChain's messages: `type` (human, ai, tool, system), `tool_calls` (`name`, `args`), or serialized
  (`{"lc": 1, "id": [..., "HumanMessage"], "kwargs": {...}}`);
- Anthropic's content blocks: `text`, `tool_use` (`id`, `name`, `input`) and `tool_result` (`tool_use_id`, its
  `content`, `is_error`), a user message carrying the results of the calls before it;
- OpenTelemetry's GenAI parts: `{"role": ..., "parts": [{"type": "text", "content"}, {"type": "tool_call", "id",
  "name", "arguments"}, {"type": "tool_call_response", "id", "response"}]}`;
- OpenAI Responses items: `message` (`input_text`, `output_text` parts), `function_call` (`call_id`, `name`,
  `arguments`) and `function_call_output` (`call_id`, `output`); reasoning items are not part of what was said.

`transcript` then makes the entries a transcript as a simulated dialog reads: a chatbot message holds the calls it
made before replying, each with its result. A tool result that answers no call it can find is counted, not lost.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from intellagent.artifacts import Message, ToolCall

Role = Literal["user", "chatbot", "system", "tool"]

_ROLES: dict[str, Role] = {"user": "user", "human": "user", "assistant": "chatbot", "ai": "chatbot", "model": "chatbot",
                           "system": "system", "developer": "system", "tool": "tool", "function": "tool"}
_TEXT_PARTS = {"text", "input_text", "output_text"}
_QUIET_PARTS = {"thinking", "redacted_thinking", "reasoning", "image", "image_url", "input_image", "file", "input_file",
                "blob", "uri", "refusal"}  # parts that say nothing a judge reads as words of the conversation


class NotAConversation(ValueError):
    """What is wrong with a record."""


@dataclass(frozen=True)
class LoggedCall:
    """A tool call as logged: its id, its tool, and its arguments as canonical JSON (compared across records)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Entry:
    """One entry of a logged conversation: a message of the user, the chatbot or the system (with the calls a
    chatbot's message made), or a tool's result.

    Attributes:
        answers: a tool result: the id of the call it answers ("" when the format logs none).
        tool: a tool result: the tool's name, when the format logs it.
    """

    role: Role
    text: str = ""
    calls: tuple[LoggedCall, ...] = ()
    answers: str | None = None
    tool: str | None = None


def entries(item: Any) -> list[Entry]:
    """The entries one logged message (or Responses item) holds, in the order they happened.

    Raises:
        NotAConversation: it is not a message of a known shape.
    """
    if not isinstance(item, dict):
        raise NotAConversation("a message is not an object")
    if item.get("lc") == 1 and isinstance(item.get("kwargs"), dict):  # LangChain-serialized
        kind = str((item.get("id") or ["Message"])[-1]).removesuffix("MessageChunk").removesuffix("Message")
        item = {**item["kwargs"], "type": kind.lower()}
    kind = item.get("type")
    if kind in ("function_call", "custom_tool_call", "mcp_call"):
        logged = call(item.get("call_id") or item.get("id"), item.get("name"), item.get("arguments", item.get("input")))
        said = [Entry("chatbot", calls=(logged,))]
        if kind == "mcp_call" and item.get("output") is not None:  # run by the provider: its result comes with it
            said.append(Entry("tool", result_text(item.get("output")), answers=logged.id))
        return said
    if kind in ("function_call_output", "custom_tool_call_output"):
        return [Entry("tool", result_text(item.get("output")), answers=str(item.get("call_id") or ""))]
    if kind in _QUIET_PARTS or (isinstance(kind, str) and kind.endswith("_call")):  # the provider's own tools
        return []
    role = _ROLES.get(str(item.get("role") or kind or "").lower())
    if role is None:
        raise NotAConversation(f"a message of unknown role {item.get('role') or kind!r}")
    parts = item["parts"] if isinstance(item.get("parts"), list) else item.get("content")
    if role == "tool" and not isinstance(item.get("parts"), list):
        if parts is None:  # a tool message whose content was not recorded says nothing of the result
            return []
        return [Entry("tool", result_text(parts, error=item.get("status") == "error"),
                      answers=str(item.get("tool_call_id") or ""), tool=item.get("name"))]
    said, calls, results = _parts(parts)
    calls += [_openai_call(c) for c in _listed(item.get("tool_calls")) + _listed(
        (item.get("additional_kwargs") or {}).get("tool_calls")) if isinstance(c, dict)]
    if isinstance(item.get("function_call"), dict):  # the older single function call
        calls.append(call("", item["function_call"].get("name"), item["function_call"].get("arguments")))
    if role == "tool" or (results and not said and not calls):
        return results
    return [*results, Entry(role, said, calls=tuple(_unique(calls)))]


def call(call_id: Any, name: Any, arguments: Any) -> LoggedCall:
    """A logged call, its arguments parsed (a JSON string or an object).

    Raises:
        NotAConversation: it has no tool name, or its arguments are not a JSON object.
    """
    if not isinstance(name, str) or not name:
        raise NotAConversation("a tool call without a name")
    return LoggedCall(id=str(call_id or ""), name=name, arguments=json.dumps(arguments_of(arguments), sort_keys=True,
                                                                              ensure_ascii=False))


def arguments_of(value: Any) -> dict[str, Any]:
    """A call's arguments as an object (a JSON string is parsed; none is no argument)."""
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError:
            raise NotAConversation("a tool call's arguments are not JSON") from None
    if not isinstance(value, dict):
        raise NotAConversation("a tool call's arguments are not an object")
    return value


def result_text(value: Any, *, error: bool = False) -> str:
    """A tool result as text: a string as it is, a list of text blocks joined, anything else as JSON; a result the
    format marks as an error starts with `Error:`, as a failed call's does in a simulated dialog."""
    if isinstance(value, list) and all(isinstance(v, dict) and v.get("type") in _TEXT_PARTS for v in value):
        value = "\n".join(str(v.get("text", "")) for v in value)
    text = "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if not error or text.startswith("Error") else f"Error: {text}"


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of parts (other parts say nothing)."""
    said, _, _ = _parts(content)
    return said


def _parts(content: Any) -> tuple[str, list[LoggedCall], list[Entry]]:
    """The text, calls and tool results of a message's content: a string, or a list of parts of any known shape."""
    if content is None:
        return "", [], []
    if isinstance(content, str):
        return content, [], []
    if not isinstance(content, list):
        return json.dumps(content, ensure_ascii=False), [], []
    texts: list[str] = []
    calls: list[LoggedCall] = []
    results: list[Entry] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in _TEXT_PARTS or (kind is None and "text" in part):
            texts.append(str(part.get("text", part.get("content", ""))))
        elif kind in ("tool_use", "tool_call", "function_call"):
            calls.append(call(part.get("id") or part.get("call_id"), part.get("name"),
                              part.get("input", part.get("arguments"))))
        elif kind in ("tool_result", "tool_call_response", "function_call_output"):
            answered = part.get("tool_use_id") or part.get("id") or part.get("call_id")
            value = next((part[key] for key in ("content", "response", "result", "output") if key in part), None)
            results.append(Entry("tool", result_text(value, error=bool(part.get("is_error"))),
                                 answers=str(answered or "")))
    return "\n".join(text for text in texts if text).strip(), calls, results


def _openai_call(item: dict[str, Any]) -> LoggedCall:
    function = item.get("function") if isinstance(item.get("function"), dict) else item  # OpenAI's, or LangChain's
    return call(item.get("id"), function.get("name"), function.get("arguments", function.get("args")))


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _unique(calls: list[LoggedCall]) -> Iterator[LoggedCall]:
    """The calls once each: LangChain logs a call both in `tool_calls` and in its OpenAI form."""
    seen: set[str] = set()
    for logged in calls:
        if logged.id and logged.id in seen:
            continue
        seen.add(logged.id)
        yield logged


@dataclass
class Transcript:
    """A conversation's transcript, and what of its log it could not place."""

    messages: list[Message]
    orphans: int = 0
    """Tool results that answer no call of the conversation."""


@dataclass
class _Calls:
    made: list[ToolCall] = field(default_factory=list)  # every call so far, which a result may answer

    def answer(self, result: Entry) -> bool:
        """Give `result` to the call it answers: the call of its id, else the first one still unanswered (of its
        tool, when the format names it); True too when it repeats what such a call holds already."""
        named = [c for c in self.made if result.answers and c.id == result.answers]
        alike = named if result.answers else [c for c in self.made if not result.tool or c.name == result.tool]
        if any(c.result == result.text for c in alike):
            return True
        open_calls = [c for c in (named or self.made) if c.result is None]
        match = next((c for c in open_calls if not result.tool or c.name == result.tool), None)
        if match is None:
            return False
        match.result = result.text
        return True


def transcript(said: Iterable[Entry], results: Iterable[Entry] = ()) -> Transcript:
    """Entries as a transcript: each call joins the chatbot message after it, with its result; the system's words
    are not a turn.

    Args:
        said: the conversation's entries, in order.
        results: tool results logged apart from the messages (a tool's own span or run), given to the calls still
            without one (one that repeats a result the messages hold is not counted twice).
    """
    messages: list[Message] = []
    pending: list[ToolCall] = []  # calls made since the chatbot last replied
    calls = _Calls()
    orphans = 0
    for entry in said:
        if entry.role == "tool":
            orphans += not calls.answer(entry)
        elif entry.role == "chatbot":
            made = [ToolCall(id=c.id, name=c.name, arguments=json.loads(c.arguments)) for c in entry.calls]
            pending += made
            calls.made += made
            if entry.text or not entry.calls:
                messages.append(Message(role="chatbot", content=entry.text, tool_calls=pending))
                pending = []
        elif entry.role == "user":
            if pending:  # calls with no reply before the user spoke again: the chatbot's turn ended silently
                messages.append(Message(role="chatbot", content="", tool_calls=pending))
                pending = []
            messages.append(Message(role="user", content=entry.text))
    if pending:
        messages.append(Message(role="chatbot", content="", tool_calls=pending))
    for result in results:
        orphans += not calls.answer(result)
    return Transcript(messages=messages, orphans=orphans)
