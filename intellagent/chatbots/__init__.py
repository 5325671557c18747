"""The chatbot under test, whatever it is built with: one adapter per kind, behind one protocol.

`chatbot.type` in the config picks the adapter: `llm_agent` (an LLM with the policy and the domain's
tools, the default), `python` (a callable), `langgraph` (a compiled graph), `http` (an endpoint of
its own) or `openai` (an OpenAI-compatible chat endpoint). The Python API may pass the chatbot as an
object instead (`execute(..., chatbot=...)`): a callable, a compiled graph or graph factory, or a `Chatbot`.

Whatever its kind, the chatbot acts on the dialog's own database through a `DialogWorld` (`world`):
as LangChain tools for Python and LangGraph chatbots, over MCP (`mcp_world`) for endpoints.
"""

from intellagent.chatbots.protocol import (
    Chatbot,
    ChatbotConversation,
    ChatbotError,
    ChatbotReply,
    ChatbotSession,
    ChatMessage,
    ForkingConversation,
    SamplingChatbot,
)
from intellagent.chatbots.selection import adapt, check_sampling, select_chatbot, uses_native_tools
from intellagent.chatbots.world import DialogWorld

__all__ = [
    "ChatMessage",
    "Chatbot",
    "ChatbotConversation",
    "ChatbotError",
    "ChatbotReply",
    "ChatbotSession",
    "DialogWorld",
    "ForkingConversation",
    "SamplingChatbot",
    "adapt",
    "check_sampling",
    "select_chatbot",
    "uses_native_tools",
]
