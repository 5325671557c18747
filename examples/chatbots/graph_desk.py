"""The same help desk as a LangGraph graph, to try the `langgraph` adapter with.

`build(tools)` is a graph factory: IntellAgent calls it once per dialog with the domain's tools bound
to that dialog's database, and the desk's `ToolNode` runs them, so its lookups and its cancellation
happen in the scenario's world and show up in the transcript. In production the same function would
be called with the team's own tools. Point a config at it:

    chatbot:
      type: langgraph
      target: examples.chatbots.graph_desk:build
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from examples.chatbots.desk import ToolRequest, after_tool, next_step


def build(tools: list[BaseTool]) -> Any:
    """The desk's graph on these tools, compiled."""
    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile(name="graph_desk")


def agent(state: MessagesState) -> dict[str, list[AIMessage]]:
    """Ask for the tool the desk's rules call for, or reply; after a tool, reply on its result."""
    messages = state["messages"]
    conversation = _public(messages)
    last = messages[-1]
    if isinstance(last, ToolMessage):
        request = _request(messages, last.tool_call_id)
        return {"messages": [AIMessage(after_tool(request, last.text, conversation))]}
    step = next_step(conversation)
    if isinstance(step, str):
        return {"messages": [AIMessage(step)]}
    call = {"name": step.name, "args": step.arguments, "id": f"{step.name}-{len(messages)}"}
    return {"messages": [AIMessage("", tool_calls=[call])]}


def route(state: MessagesState) -> str:
    """Run the tool the agent asked for, or end the turn with its reply."""
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else END


def _public(messages: list[BaseMessage]) -> list[dict[str, str]]:
    """The conversation as the desk's rules read it: user and assistant texts, tool traffic left out."""
    return [
        {"role": "user" if isinstance(m, HumanMessage) else "assistant", "content": m.text}
        for m in messages
        if isinstance(m, HumanMessage) or (isinstance(m, AIMessage) and not m.tool_calls)
    ]


def _request(messages: list[BaseMessage], call_id: str) -> ToolRequest:
    for message in reversed(messages):
        for call in getattr(message, "tool_calls", None) or []:
            if call["id"] == call_id:
                return ToolRequest(call["name"], call["args"])
    raise ValueError(f"no tool call {call_id} in the conversation")
