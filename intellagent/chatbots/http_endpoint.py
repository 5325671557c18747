"""A chatbot behind an HTTP endpoint of its own.

Each turn is one request, `POST <url>` with the JSON body
`{"session_id": "<dialog id>", "messages": [{"role": "assistant" | "user", "content": "..."}, ...]}`
(the whole public conversation, the greeting first and the user's new message last), and the answer
`{"reply": "<text>"}`, optionally with `"tool_calls": [{"name", "arguments", "result"}]` to have the
chatbot's own tool calls recorded in the transcript (marked as reported: nothing ran them). With
`chatbot.api_key_env` set, the key is sent as `Authorization: Bearer <key>`. A timeout, a connection
failure, an HTTP error status or an answer of another shape ends the dialog with status `error`.

When the run serves the dialog's world over MCP (see `mcp_world`), its address comes with every
request, as the body's `"mcp_url"` and the `X-IntellAgent-MCP` header; the calls the chatbot makes
there are recorded before the reported ones.
"""

from __future__ import annotations

import os

import httpx2

from intellagent.chatbots.protocol import (
    MCP_HEADER,
    ChatbotError,
    ChatbotReply,
    ChatbotSession,
    ChatMessage,
    reported_reply,
)
from intellagent.errors import UsageError

SHOWN_BODY = 200  # characters of an unexpected answer quoted in the error


class HTTPChatbot:
    """Adapts an endpoint that answers `{"session_id", "messages"}` with `{"reply"}`.

    Args:
        url: the endpoint.
        timeout: seconds to wait for one reply.
        api_key_env: environment variable holding a bearer key, or None.
    """

    reaches_world_over_mcp = True

    def __init__(self, *, url: str, timeout: float, api_key_env: str | None = None) -> None:
        self.url = url
        self.label = str(httpx2.URL(url).copy_with(userinfo=b""))  # never quote credentials in an error
        self.timeout = timeout
        self.headers = {}
        if api_key_env:
            key = os.environ.get(api_key_env)
            if not key:
                raise UsageError(f"chatbot.api_key_env: {api_key_env} is not set; export it or remove the key")
            self.headers["Authorization"] = f"Bearer {key}"

    def open(self, session: ChatbotSession) -> _HTTPConversation:
        """A conversation under the dialog's id."""
        return _HTTPConversation(self, session)


class _HTTPConversation:
    def __init__(self, chatbot: HTTPChatbot, session: ChatbotSession) -> None:
        self.chatbot = chatbot
        self.session = session
        self.headers = dict(chatbot.headers)
        if session.mcp_url:
            self.headers[MCP_HEADER] = session.mcp_url

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        chatbot = self.chatbot
        body: dict[str, object] = {"session_id": self.session.id, "messages": messages}
        if self.session.mcp_url:
            body["mcp_url"] = self.session.mcp_url
        try:
            async with httpx2.AsyncClient(timeout=chatbot.timeout) as client:
                response = await client.post(chatbot.url, json=body, headers=self.headers)
        except httpx2.TimeoutException:
            raise ChatbotError(f"{chatbot.label} gave no reply within {chatbot.timeout:g}s (chatbot.timeout)") from None
        except httpx2.HTTPError as error:
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
