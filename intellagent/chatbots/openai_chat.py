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
from intellagent.llm.dialog_models import counted, dialog_model

STEP = "simulate/chatbot"


class OpenAIChatbot:
    """Adapts a chat endpoint reached through the LLM layer.

    Args:
        llm: the endpoint as the run's `chatbot` role (see `selection.endpoint_llm`).
        seed: the run's seed, from which each dialog's own is drawn when the endpoint samples.
    """

    reaches_world_over_mcp = True

    def __init__(self, llm: LLM, *, seed: int = 0) -> None:
        self.llm = llm
        self.seed = seed

    def open(self, session: ChatbotSession) -> _EndpointConversation:
        """A conversation counted in the dialog's accounting."""
        llm = dialog_model(self.llm, seed=self.seed, dialog_id=session.id)
        return _EndpointConversation(self, counted(llm, session.usage), session)

    def sampling(self, temperature: float) -> OpenAIChatbot:
        """The same endpoint, sampled at `temperature` (each dialog with its own seed)."""
        return OpenAIChatbot(self.llm.with_options(temperature=temperature), seed=self.seed)


class _EndpointConversation:
    def __init__(self, chatbot: OpenAIChatbot, llm: LLM, session: ChatbotSession) -> None:
        self.chatbot = chatbot
        self.llm = llm
        self.headers = {MCP_HEADER: session.mcp_url} if session.mcp_url else None

    def fork(self, session: ChatbotSession) -> _EndpointConversation:
        """The endpoint is sent the whole conversation each time: a fork is a conversation opened on `session`."""
        return self.chatbot.open(session)

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        history: list[BaseMessage] = [
            HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"]) for m in messages
        ]
        answer = await self.llm.complete(history, step=STEP, headers=self.headers)
        return ChatbotReply(content=answer.text)
