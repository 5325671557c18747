"""Reading production conversations: one conversation per line of a JSONL file, in any of three formats.

- **chat messages** (what an OpenAI-style chatbot logs): `{"id": ..., "messages": [...]}` or a bare list
  of messages; `system`, `user`, `assistant` (with `tool_calls`, whose `function.arguments` is a JSON
  string or object) and `tool` messages (answering a call by its `tool_call_id`).
- **LangSmith runs** (a run exported from a LangSmith project): `{"id": ..., "run_type": ..., "inputs":
  {"messages": [...]}, "outputs": {...}}`, the conversation the run was given followed by its answer
  (`outputs.messages`, `outputs.generations`, `outputs.output` or `outputs.choices`). Messages may be in
  the chat format above, in LangChain's (`type`: human, ai, tool, system), or LangChain-serialized
  (`{"lc": 1, "id": [..., "HumanMessage"], "kwargs": {...}}`).
- **plain** (ours): `{"id": ..., "turns": [{"user": "..."}, {"chatbot": "...", "calls": [{"tool": NAME,
  "arguments": {...}, "result": "..."}]}]}`.

Tool calls become the calls of the chatbot message that follows them (a chatbot message holds the calls
it made before replying), so that a transcript reads as a simulated dialog does. A line that is not one
of these is returned as `Unreadable`, with its number and why, and the file goes on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from intellagent.artifacts import Message, ToolCall
from intellagent.errors import UsageError


@dataclass(frozen=True)
class Conversation:
    """One conversation as read: where it is in the file, the name it has there, and its messages."""

    line: int
    name: str
    messages: list[Message]


@dataclass(frozen=True)
class Unreadable:
    """A line that holds no conversation, and why."""

    line: int
    reason: str


class NotAConversation(ValueError):
    """What is wrong with one line."""


_ROLES = {"user": "user", "human": "user", "assistant": "chatbot", "ai": "chatbot", "system": "system",
          "tool": "tool", "function": "tool"}


def read_transcripts(path: Path) -> Iterator[Conversation | Unreadable]:
    """Every line of a JSONL file of conversations, read; blank lines are skipped.

    Raises:
        UsageError: the file cannot be read at all.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"transcripts: file {path} not found; fix transcripts.path or --transcripts") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"transcripts: {path} is not UTF-8 text ({error.reason} at byte {error.start})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield conversation(json.loads(line), line=number)
        except json.JSONDecodeError as error:
            yield Unreadable(number, f"not JSON ({error.msg} at column {error.colno})")
        except NotAConversation as error:
            yield Unreadable(number, str(error))


def conversation(record: Any, *, line: int) -> Conversation:
    """The conversation a parsed line holds, whichever of the three formats it is in.

    Raises:
        NotAConversation: it is none of them, or holds no message of the user or the chatbot.
    """
    if isinstance(record, list):
        record = {"messages": record}
    if not isinstance(record, dict):
        raise NotAConversation("neither a conversation object nor a list of messages")
    name = str(record.get("id") or record.get("conversation_id") or record.get("name") or f"line {line}")
    if "turns" in record:
        messages = _plain(record["turns"])
    elif "messages" in record:
        messages = _chat(_listed(record["messages"], "messages"))
    elif isinstance(record.get("inputs"), dict):
        messages = _chat(_langsmith(record))
    else:
        raise NotAConversation("holds no `messages`, `turns` or LangSmith `inputs`")
    if not any(message.role == "user" for message in messages) or not any(m.role == "chatbot" for m in messages):
        raise NotAConversation("holds no message of the user and the chatbot both")
    return Conversation(line=line, name=name, messages=messages)


def _listed(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise NotAConversation(f"`{key}` is not a list")
    return value


def _plain(turns: Any) -> list[Message]:
    messages = []
    for turn in _listed(turns, "turns"):
        if not isinstance(turn, dict) or not ({"user", "chatbot"} & turn.keys()):
            raise NotAConversation("a turn is not {\"user\": ...} or {\"chatbot\": ..., \"calls\": [...]}")
        if "user" in turn:
            messages.append(Message(role="user", content=_text(turn["user"])))
            continue
        calls = [ToolCall(id=f"call_{len(messages)}_{i}", name=_named(call.get("tool")), arguments=_arguments(
            call.get("arguments")), result=_result(call.get("result"))) for i, call in enumerate(
            _listed(turn.get("calls", []), "calls")) if isinstance(call, dict)]
        messages.append(Message(role="chatbot", content=_text(turn["chatbot"]), tool_calls=calls))
    return messages


def _langsmith(run: dict[str, Any]) -> list[Any]:
    """The messages a LangSmith run was given, then those it answered with."""
    given = run["inputs"].get("messages")
    if given is None:
        raise NotAConversation("a LangSmith run without `inputs.messages`")
    given = _listed(given, "inputs.messages")
    if given and isinstance(given[0], list):  # an llm run's inputs: one list of messages per prompt
        given = given[0]
    outputs = run.get("outputs") or {}
    answered: list[Any] = []
    if isinstance(outputs.get("messages"), list):  # a chain's state: the whole conversation, or only what it added
        whole = outputs["messages"][:len(given)] == given
        answered = outputs["messages"][len(given):] if whole else outputs["messages"]
    elif isinstance(outputs.get("generations"), list) and outputs["generations"]:
        first = outputs["generations"][0]
        first = first[0] if isinstance(first, list) and first else first
        answered = [first.get("message") or {"role": "assistant", "content": first.get("text", "")}]
    elif isinstance(outputs.get("choices"), list) and outputs["choices"]:
        answered = [outputs["choices"][0].get("message", {})]
    elif outputs.get("output") is not None:
        output = outputs["output"]
        answered = [output if isinstance(output, dict) else {"role": "assistant", "content": str(output)}]
    return [*given, *answered]


def _chat(raw: list[Any]) -> list[Message]:
    """Chat messages as a transcript: tool calls and their results join the chatbot message after them."""
    messages: list[Message] = []
    pending: list[ToolCall] = []  # calls made since the chatbot last replied
    made: list[ToolCall] = []  # every call so far, which a tool message may answer
    for item in raw:
        role, content, calls, answers = _message(item)
        if role == "tool":
            call = next((c for c in made if answers and c.id == answers), None) or next(
                (c for c in made if c.result is None), None)
            if call is not None:
                call.result = content
        elif role == "chatbot":
            pending += calls
            made += calls
            if content or not calls:
                messages.append(Message(role="chatbot", content=content, tool_calls=pending))
                pending = []
        elif role == "user":
            if pending:  # calls with no reply before the user spoke again: the chatbot's turn ended silently
                messages.append(Message(role="chatbot", content="", tool_calls=pending))
                pending = []
            messages.append(Message(role="user", content=content))
    if pending:
        messages.append(Message(role="chatbot", content="", tool_calls=pending))
    return messages


def _message(item: Any) -> tuple[str, str, list[ToolCall], str | None]:
    """A message's role, text, tool calls and (a tool message) the id of the call it answers."""
    if not isinstance(item, dict):
        raise NotAConversation("a message is not an object")
    if item.get("lc") == 1 and isinstance(item.get("kwargs"), dict):  # LangChain-serialized
        kind = str(item.get("id", ["", "Message"])[-1]).removesuffix("MessageChunk").removesuffix("Message")
        item = {**item["kwargs"], "type": kind.lower()}
    role = _ROLES.get(str(item.get("role") or item.get("type") or "").lower())
    if role is None:
        raise NotAConversation(f"a message of unknown role {item.get('role') or item.get('type')!r}")
    calls = [_call(call) for call in item.get("tool_calls") or [] if isinstance(call, dict)]
    return role, _text(item.get("content")), calls, item.get("tool_call_id")


def _call(call: dict[str, Any]) -> ToolCall:
    function = call.get("function") if isinstance(call.get("function"), dict) else call  # OpenAI's, or LangChain's
    return ToolCall(id=str(call.get("id") or ""), name=_named(function.get("name")),
                    arguments=_arguments(function.get("arguments", function.get("args"))))


def _named(name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise NotAConversation("a tool call without a name")
    return name


def _arguments(value: Any) -> dict[str, Any]:
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


def _result(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content).strip()
    return json.dumps(content, ensure_ascii=False)
