"""A chatbot built as a compiled LangGraph graph whose state has `messages` (e.g. `MessagesState`).

The target is the compiled graph, or a factory `build(tools)` that returns one: the factory is called
once per dialog with the domain's tools bound to the dialog's database (LangChain tools), so the team's
agent runs unchanged with the scenario's world in place of its production tools.

Each turn the graph is invoked with the whole conversation as LangChain messages: its own earlier
messages, tool calls and tool results included, plus the user's new message. The tool calls it makes
(AI messages with `tool_calls`) and their results (`ToolMessage`s) are recorded in the transcript; those
of its own tools, which did not run on the dialog's world, are marked `reported`. Its last AI message
is the reply. The dialog's id is passed as `thread_id`, for graphs with a checkpointer.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from intellagent.artifacts import ToolCall
from intellagent.chatbots.protocol import ChatbotError, ChatbotReply, ChatbotSession, ChatMessage


class LangGraphChatbot:
    """Adapts a compiled graph with a `messages` state, or a factory of one.

    Args:
        graph: the compiled graph (anything with `ainvoke({"messages": [...]}, config)`), or a callable
            `build(tools)` returning one, called per dialog with the dialog's tools.
        name: how error messages name it.
    """

    def __init__(self, graph: Any, *, name: str) -> None:
        self.graph = graph
        self.name = name

    def open(self, session: ChatbotSession) -> _GraphConversation:
        """A conversation on its own thread (the dialog's id), with a graph built for it if it comes from a factory.

        Raises:
            ChatbotError: the factory raised, or returned something that is not a compiled graph.
        """
        graph = self.graph
        if not hasattr(graph, "ainvoke"):
            try:
                graph = graph(session.tools)
            except Exception as error:
                raise ChatbotError(f"{self.name} raised {type(error).__name__} building the graph: {error}") from error
            if not hasattr(graph, "ainvoke"):
                raise ChatbotError(f"{self.name} returned a {type(graph).__name__}, not a compiled graph")
        return _GraphConversation(self, graph, session)


class _GraphConversation:
    def __init__(self, chatbot: LangGraphChatbot, graph: Any, session: ChatbotSession) -> None:
        self.chatbot = chatbot
        self.graph = graph
        self.world = session.world
        self.config = {"configurable": {"thread_id": session.id}}
        self.state: list[BaseMessage] | None = None  # the graph's messages after its last turn

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        if self.state is None:
            sent = [_message(message) for message in messages]
        else:
            sent = [*self.state, HumanMessage(messages[-1]["content"])]
        try:
            output = await self.graph.ainvoke({"messages": sent}, self.config)
        except Exception as error:
            raise ChatbotError(f"{self.chatbot.name} raised {type(error).__name__}: {error}") from error
        state = output.get("messages") if isinstance(output, dict) else None
        if not isinstance(state, list) or len(state) <= len(sent):
            raise ChatbotError(f"{self.chatbot.name} returned no new message in its `messages` state")
        self.state = state
        made = self.world.taken() if self.world else []
        return _turn(state[len(sent) :], self.chatbot.name, made)


def _message(message: ChatMessage) -> BaseMessage:
    return HumanMessage(message["content"]) if message["role"] == "user" else AIMessage(message["content"])


def _turn(new: list[BaseMessage], name: str, made: list[ToolCall]) -> ChatbotReply:
    """The reply (the last AI message) and the tool calls before it, each with its result.

    Args:
        new: the messages the graph added this turn.
        name: names the graph in errors.
        made: the calls that ran on the dialog's world this turn, in order; each is matched to the
            graph's request for it, and any left over (run from a node's own code) go last.
    """
    pending = list(made)
    calls: list[ToolCall] = []
    by_id: dict[str, ToolCall] = {}  # calls of the graph's own tools, whose results its messages carry
    for message in new:
        if isinstance(message, AIMessage):
            for request in message.tool_calls:
                ran = next((call for call in pending if call.name == request["name"]), None)
                if ran is not None:
                    pending.remove(ran)
                    calls.append(ran.model_copy(update={"id": request["id"] or ""}))
                    continue
                call = ToolCall(id=request["id"] or "", name=request["name"], arguments=request["args"], reported=True)
                calls.append(call)
                by_id[call.id] = call
        elif isinstance(message, ToolMessage) and message.tool_call_id in by_id:
            by_id[message.tool_call_id].result = message.text
    last = new[-1]
    if not isinstance(last, AIMessage) or last.tool_calls:
        raise ChatbotError(f"{name} ended its turn without a reply (its last message is {type(last).__name__})")
    return ChatbotReply(content=last.text, tool_calls=[*calls, *pending])
