"""A chatbot behind an HTTP endpoint of its own.

Each turn is one request, `POST <url>` with the JSON body
`{"session_id": "<dialog id>", "messages": [{"role": "assistant" | "user", "content": "..."}, ...]}`
(the whole public conversation, the greeting first and the user's new message last), and the answer
`{"reply": "<text>"}`, optionally with `"tool_calls": [{"name", "arguments", "result"}]` to have the
chatbot's own tool calls recorded in the transcript. With `chatbot.api_key_env` set, the key is sent
as `Authorization: Bearer <key>`. A timeout, a connection failure, an HTTP error status or an answer
of another shape ends the dialog with status `error`.
"""

from __future__ import annotations

import os

import httpx

from intellagent.chatbots.protocol import ChatbotError, ChatbotReply, ChatbotSession, ChatMessage, reported_reply
from intellagent.errors import UsageError

SHOWN_BODY = 200  # characters of an unexpected answer quoted in the error


class HTTPChatbot:
    """Adapts an endpoint that answers `{"session_id", "messages"}` with `{"reply"}`.

    Args:
        url: the endpoint.
        timeout: seconds to wait for one reply.
        api_key_env: environment variable holding a bearer key, or None.
    """

    def __init__(self, *, url: str, timeout: float, api_key_env: str | None = None) -> None:
        self.url = url
        self.label = str(httpx.URL(url).copy_with(userinfo=b""))  # never quote credentials in an error
        self.timeout = timeout
        self.headers = {}
        if api_key_env:
            key = os.environ.get(api_key_env)
            if not key:
                raise UsageError(f"chatbot.api_key_env: {api_key_env} is not set; export it or remove the key")
            self.headers["Authorization"] = f"Bearer {key}"

    def open(self, session: ChatbotSession) -> _HTTPConversation:
        """A conversation under the dialog's id."""
        return _HTTPConversation(self, session.id)


class _HTTPConversation:
    def __init__(self, chatbot: HTTPChatbot, session_id: str) -> None:
        self.chatbot = chatbot
        self.session_id = session_id

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        chatbot = self.chatbot
        body = {"session_id": self.session_id, "messages": messages}
        try:
            async with httpx.AsyncClient(timeout=chatbot.timeout) as client:
                response = await client.post(chatbot.url, json=body, headers=chatbot.headers)
        except httpx.TimeoutException:
            raise ChatbotError(f"{chatbot.label} gave no reply within {chatbot.timeout:g}s (chatbot.timeout)") from None
        except httpx.HTTPError as error:
            raise ChatbotError(f"{chatbot.label} could not be reached: {type(error).__name__}: {error}") from None
        if response.is_error:
            raise ChatbotError(f"{chatbot.label} answered HTTP {response.status_code}: {response.text[:SHOWN_BODY]}")
        try:
            answer = response.json()
        except ValueError:
            raise ChatbotError(
                f"{chatbot.label} answered something that is not JSON: {response.text[:SHOWN_BODY]}"
            ) from None
        return reported_reply(answer, text_key="reply", source=chatbot.label)
