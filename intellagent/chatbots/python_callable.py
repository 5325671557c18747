"""A chatbot written as a Python callable: `reply(messages, session_id)` returns the next reply.

The callable may be sync (run in a worker thread, so dialogs still run side by side) or async. It gets
the public conversation as `[{"role": "assistant" | "user", "content": text}, ...]`, the greeting
first and the user's message last, and returns a string, or a mapping with `content` and optional
`tool_calls` (`[{"name", "arguments", "result"}]`) that are recorded in the transcript as reported.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from intellagent.chatbots.protocol import ChatbotError, ChatbotReply, ChatbotSession, ChatMessage, reported_reply


class PythonChatbot:
    """Adapts a callable `(messages, session_id) -> str | dict` (`session_id` may be left out of its signature).

    Args:
        function: the chatbot.
        name: how error messages name it (its dotted path, say).
    """

    def __init__(self, function: Callable[..., Any], *, name: str) -> None:
        self.function = function
        self.name = name
        self.takes_session_id = _accepts(function, "session_id")

    def open(self, session: ChatbotSession) -> _CallableConversation:
        """A conversation with the callable, under the dialog's id."""
        return _CallableConversation(self, session.id)


class _CallableConversation:
    def __init__(self, chatbot: PythonChatbot, session_id: str) -> None:
        self.chatbot = chatbot
        self.session_id = session_id

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        function = self.chatbot.function
        arguments = {"session_id": self.session_id} if self.chatbot.takes_session_id else {}
        conversation = [dict(message) for message in messages]  # the callable may keep or change its copy
        try:
            if inspect.iscoroutinefunction(function):
                value = await function(conversation, **arguments)
            else:
                value = await asyncio.to_thread(function, conversation, **arguments)
                if inspect.isawaitable(value):  # an object whose __call__ is async
                    value = await value
        except Exception as error:
            raise ChatbotError(f"{self.chatbot.name} raised {type(error).__name__}: {error}") from error
        return reported_reply(value, text_key="content", source=self.chatbot.name)


def _accepts(function: Callable[..., Any], name: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # some builtins have no signature: call them plainly
        return False
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in parameters)
