"""The transcript as the chatbot, the simulated user and the critique read it."""

from __future__ import annotations

import json
from typing import Any

from intellagent.artifacts import Message, ToolCall
from intellagent.artifacts.outcomes import call_text
from intellagent.chatbots import ChatMessage


def public_messages(transcript: list[Message]) -> list[ChatMessage]:
    """What the chatbot sees: the messages only, the chatbot's as `assistant` (no thoughts, no tool calls, and
    nothing of a user's turn that only acted on its own side without a word to the chatbot)."""
    return [{"role": "user" if m.role == "user" else "assistant", "content": m.content} for m in transcript
            if m.role == "chatbot" or m.content]


def numbered(calls: list[ToolCall], *, after: int) -> list[ToolCall]:
    """A turn's tool calls, those without an id numbered on from the `after` calls the dialog made before."""
    return [call if call.id else call.model_copy(update={"id": f"call_{after + n}"})
            for n, call in enumerate(calls, start=1)]


def agent_line(content: str) -> str:
    """A chatbot message as the simulated user reads it."""
    return f"Agent: {content}"


def user_line(content: str) -> str:
    """The simulated user's own message as it reads it back."""
    return f"Customer (you): {content}"


def action_line(call: ToolCall) -> str:
    """The simulated user's call of one of its own tools, with what it showed, as the user reads it back."""
    return f"(You used {call_text(call.name, call.arguments)}: {call.result})"


def transcript_text(transcript: list[Message]) -> str:
    """Every message, tool call and tool result, in order, for the critique (the user's own calls too)."""
    lines = []
    for message in transcript:
        if message.role == "user":
            for call in message.tool_calls:
                lines.append(f"User uses {call.name}({_json(call.arguments)}) on their side")
                lines.append(f"  → {call.result}")
            if message.content:
                lines.append(f"User: {message.content}")
            continue
        for call in message.tool_calls:
            lines.append(f"Agent calls {call.name}({_json(call.arguments)})")
            lines.append(f"  → {call.result if call.result is not None else '(no result reported)'}")
        lines.append(f"Agent: {message.content}")
    return "\n".join(lines)


def known_rows(rows: dict[str, list[dict[str, Any]]]) -> str:
    """The rows the user may know, one compact JSON line each, grouped by table."""
    if not any(rows.values()):
        return "(nothing beyond your situation)"
    blocks = []
    for table, table_rows in rows.items():
        blocks.append(f"{table}:\n" + "\n".join(f"- {_json(row)}" for row in table_rows))
    return "\n".join(blocks)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
