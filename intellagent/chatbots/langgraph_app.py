"""A chatbot built as a compiled LangGraph graph whose state has `messages` (e.g. `MessagesState`).

Each turn the graph is invoked with the whole conversation as LangChain messages: its own earlier
messages, tool calls and tool results included, plus the user's new message. The tool calls it makes
(AI messages with `tool_calls`) and their results (`ToolMessage`s) are recorded in the transcript; its
last AI message is the reply. The dialog's id is passed as `thread_id`, for graphs with a checkpointer.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from intellagent.artifacts import ToolCall
from intellagent.chatbots.protocol import ChatbotError, ChatbotReply, ChatbotSession, ChatMessage


class LangGraphChatbot:
    """Adapts a compiled graph with a `messages` state.

    Args:
        graph: the compiled graph (anything with `ainvoke({"messages": [...]}, config)`).
        name: how error messages name it.
    """

    def __init__(self, graph: Any, *, name: str) -> None:
        self.graph = graph
        self.name = name

    def open(self, session: ChatbotSession) -> _GraphConversation:
        """A conversation on its own thread (the dialog's id)."""
        return _GraphConversation(self, session.id)


class _GraphConversation:
    def __init__(self, chatbot: LangGraphChatbot, session_id: str) -> None:
        self.chatbot = chatbot
        self.config = {"configurable": {"thread_id": session_id}}
        self.state: list[BaseMessage] | None = None  # the graph's messages after its last turn

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        if self.state is None:
            sent = [_message(message) for message in messages]
        else:
            sent = [*self.state, HumanMessage(messages[-1]["content"])]
        try:
            output = await self.chatbot.graph.ainvoke({"messages": sent}, self.config)
        except Exception as error:
            raise ChatbotError(f"{self.chatbot.name} raised {type(error).__name__}: {error}") from error
        state = output.get("messages") if isinstance(output, dict) else None
        if not isinstance(state, list) or len(state) <= len(sent):
            raise ChatbotError(f"{self.chatbot.name} returned no new message in its `messages` state")
        self.state = state
        return _turn(state[len(sent) :], self.chatbot.name)


def _message(message: ChatMessage) -> BaseMessage:
    return HumanMessage(message["content"]) if message["role"] == "user" else AIMessage(message["content"])


def _turn(new: list[BaseMessage], name: str) -> ChatbotReply:
    """The reply (the last AI message) and the tool calls before it, each with its result."""
    calls: list[ToolCall] = []
    by_id: dict[str, ToolCall] = {}
    for message in new:
        if isinstance(message, AIMessage):
            for request in message.tool_calls:
                call = ToolCall(id=request["id"] or "", name=request["name"], arguments=request["args"])
                calls.append(call)
                by_id[call.id] = call
        elif isinstance(message, ToolMessage) and message.tool_call_id in by_id:
            by_id[message.tool_call_id].result = message.text
    last = new[-1]
    if not isinstance(last, AIMessage) or last.tool_calls:
        raise ChatbotError(f"{name} ended its turn without a reply (its last message is {type(last).__name__})")
    return ChatbotReply(content=last.text, tool_calls=calls)
