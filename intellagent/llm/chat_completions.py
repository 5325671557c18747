"""The Chat Completions clients every OpenAI-compatible model is reached through, the scripted double's too."""

from __future__ import annotations

from typing import Any

from langchain_openai import AzureChatOpenAI, ChatOpenAI

_SENT_AS_IS = ("response_format", "messages", "tools")
"""The parts of a request the OpenAI library would walk to type them, although they are JSON already."""


class _BodyAsBuilt:
    """A Chat Completions client that sends the messages, the tools and a JSON schema in the request body as
    LangChain built them.

    Given a `response_format`, LangChain goes through the OpenAI library's `parse` path. That path walks
    the whole schema and every message to type them, about 8 ms of CPU a call, and when streamed it drops
    the token counts from the answer; any request has its messages and tools walked again before it is
    sent (another 2 ms). Sent as part of the body, the request is the same on the wire and goes as a plain
    one. The answer is validated here in any case (`LLM.answer`).
    """

    def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict[str, Any]:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)  # type: ignore[misc]
        body = {key: payload.pop(key) for key in _SENT_AS_IS if key in payload}
        payload["messages"] = []  # the library's required argument; the body's messages replace it on the wire
        payload["extra_body"] = {**payload.get("extra_body", {}), **body}
        return payload


class ChatCompletions(_BodyAsBuilt, ChatOpenAI):
    """OpenAI, an OpenAI-compatible server, the embedded model and the scripted double."""


class AzureChatCompletions(_BodyAsBuilt, AzureChatOpenAI):
    """Azure OpenAI."""
