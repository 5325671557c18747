"""A path's transcript as the chat messages trainers read, in TRL's conversational format and in OpenAI's.

A chatbot message of the transcript becomes, in order: each tool call it made as an assistant message holding
that call, followed by a `tool` message with the call's result; then its reply as an assistant message. One call
per assistant message, with no words beside it: some chat templates (Llama 3.1's) render a single call per
message and drop the words of a message that holds one. A call's arguments are an object, which chat templates
render as JSON once (TRL's format); OpenAI's fine-tuning reads them as JSON text, as its API has them.

The chatbot's greeting is left out of every conversation: it is the configured `chatbot.greeting`, the same on
every path and never generated, and templates such as Llama 3.1's read the first message after the system prompt
as the user's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from intellagent.artifacts import Message, RolloutTurn
from intellagent.artifacts.training import (
    ChatMessage,
    ChatToolCall,
    FunctionCall,
    OpenAiFunctionCall,
    OpenAiMessage,
    OpenAiToolCall,
)


def conversation(path: Sequence[RolloutTurn]) -> list[Message]:
    """The transcript of a path, from the user's first message on (the greeting left out)."""
    messages = [message for turn in path for message in turn.messages]
    greeted = bool(path) and path[0].parent is None and bool(messages) and messages[0].role == "chatbot"
    return messages[1:] if greeted else messages


def reply(turn: RolloutTurn) -> list[Message]:
    """The chatbot's part of a turn (the user's answer to it is not the chatbot's to learn)."""
    return [message for message in turn.messages if message.role == "chatbot"]


def chat(messages: Iterable[Message]) -> list[ChatMessage]:
    """A transcript as chat messages (see the module's docstring). A call the chatbot only reported, which nothing
    ran, is left out: its result is not the world's."""
    chats: list[ChatMessage] = []
    for message in messages:
        if message.role == "user":
            chats.append(ChatMessage(role="user", content=message.content))
            continue
        for call in message.tool_calls:
            if call.reported:
                continue
            chats.append(ChatMessage(role="assistant", tool_calls=[
                ChatToolCall(id=call.id, function=FunctionCall(name=call.name, arguments=call.arguments))]))
            chats.append(ChatMessage(role="tool", tool_call_id=call.id, content=call.result or ""))
        if message.content:
            chats.append(ChatMessage(role="assistant", content=message.content))
    return chats


def for_openai(messages: Iterable[ChatMessage]) -> list[OpenAiMessage]:
    """Chat messages as OpenAI's fine-tuning reads them: arguments as JSON text, each assistant message trained."""
    return [OpenAiMessage(
        role=message.role, content=message.content, tool_call_id=message.tool_call_id,
        tool_calls=[OpenAiToolCall(id=call.id, function=OpenAiFunctionCall(
            name=call.function.name, arguments=json.dumps(call.function.arguments, ensure_ascii=False)))
            for call in message.tool_calls] if message.tool_calls else None,
        weight=1 if message.trained else None,
    ) for message in messages]


def said(messages: Iterable[ChatMessage]) -> str:
    """What `messages` say and call, as one key: two lists with the same key are the same words and calls (the
    calls' ids, which only number them, left out)."""
    return json.dumps([[message.role, message.content,
                        [[call.function.name, call.function.arguments] for call in message.tool_calls or []]]
                       for message in messages], ensure_ascii=False, sort_keys=True)
