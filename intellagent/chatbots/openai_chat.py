"""A deployed chatbot behind an OpenAI-compatible Chat Completions endpoint (its system prompt is its own).

It is sent the public conversation as assistant and user messages, the greeting first, and its answer's
text is the reply. Calls go through the run's LLM layer as the `chatbot` role: retried on transient
errors, counted, and cached, so a resumed or replayed run asks the endpoint nothing it already answered.
Such an endpoint does not report the tools it used internally; the calls it makes on the dialog's world
through the run's MCP server (whose address it gets in the `X-IntellAgent-MCP` header) are recorded.
The address is not part of the cached request, so a re-run or `--replay` still finds the endpoint's
recorded replies; the world calls it made to write them are not made again.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from intellagent.chatbots.protocol import MCP_HEADER, ChatbotReply, ChatbotSession, ChatMessage
from intellagent.llm import LLM
from intellagent.llm.dialog_models import counted

STEP = "simulate/chatbot"


class OpenAIChatbot:
    """Adapts a chat endpoint reached through the LLM layer.

    Args:
        llm: the endpoint as the run's `chatbot` role (see `selection.endpoint_llm`).
    """

    reaches_world_over_mcp = True

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def open(self, session: ChatbotSession) -> _EndpointConversation:
        """A conversation counted in the dialog's accounting."""
        return _EndpointConversation(counted(self.llm, session.usage), session)


class _EndpointConversation:
    def __init__(self, llm: LLM, session: ChatbotSession) -> None:
        self.llm = llm
        self.headers = {MCP_HEADER: session.mcp_url} if session.mcp_url else None

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        history: list[BaseMessage] = [
            HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"]) for m in messages
        ]
        answer = await self.llm.complete(history, step=STEP, headers=self.headers)
        return ChatbotReply(content=answer.text)
