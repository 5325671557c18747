"""A chatbot written as a Python callable: `reply(messages, session_id)` or `reply(messages, session)`.

The callable may be sync (run in a worker thread, so dialogs still run side by side) or async. It gets
the public conversation as `[{"role": "assistant" | "user", "content": text}, ...]`, the greeting
first and the user's message last, and returns a string, or a mapping with `content` and optional
`tool_calls` (`[{"name", "arguments", "result"}]`) that are recorded in the transcript as reported.

A callable that takes `session` gets the dialog's `ChatbotSession`: its `id`, its `database` file, and
`tools`, the domain's tools bound to that database as LangChain tools. Calls made through them run on
the dialog's world and are recorded with their results, before any calls the reply reports.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from intellagent.chatbots.protocol import ChatbotError, ChatbotReply, ChatbotSession, ChatMessage, reported_reply


class PythonChatbot:
    """Adapts a callable `(messages, session_id) -> str | dict`; its signature may leave `session_id` out, or
    take `session` (the dialog's `ChatbotSession`) as well or instead.

    Args:
        function: the chatbot.
        name: how error messages name it (its dotted path, say).
    """

    def __init__(self, function: Callable[..., Any], *, name: str) -> None:
        self.function = function
        self.name = name
        self.takes_session_id = _accepts(function, "session_id")
        self.takes_session = _accepts(function, "session")

    def open(self, session: ChatbotSession) -> _CallableConversation:
        """A conversation with the callable, under the dialog's id."""
        return _CallableConversation(self, session)


class _CallableConversation:
    def __init__(self, chatbot: PythonChatbot, session: ChatbotSession) -> None:
        self.chatbot = chatbot
        self.arguments: dict[str, object] = {}
        if chatbot.takes_session_id:
            self.arguments["session_id"] = session.id
        if chatbot.takes_session:
            self.arguments["session"] = session

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        function = self.chatbot.function
        conversation = [dict(message) for message in messages]  # the callable may keep or change its copy
        try:
            if inspect.iscoroutinefunction(function):
                value = await function(conversation, **self.arguments)
            else:
                value = await asyncio.to_thread(function, conversation, **self.arguments)
                if inspect.isawaitable(value):  # an object whose __call__ is async
                    value = await value
        except Exception as error:
            raise ChatbotError(f"{self.chatbot.name} raised {type(error).__name__}: {error}") from error
        return reported_reply(value, text_key="content", source=self.chatbot.name)


def parameters(function: Callable[..., Any]) -> list[inspect.Parameter]:
    """A callable's parameters, in order; none for one without a signature (some builtins), called plainly."""
    try:
        return list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []


def _accepts(function: Callable[..., Any], name: str) -> bool:
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in parameters(function))
