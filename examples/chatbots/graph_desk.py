"""The same help desk as a LangGraph graph with a tool, to try the `langgraph` adapter with.

`graph` is a compiled `StateGraph` over `MessagesState`: an `agent` node decides, a `ToolNode` runs
its tool. The tool calls it makes and their results show up in the transcript. Point a config at it:

    chatbot:
      type: langgraph
      target: examples.chatbots.graph_desk:graph
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from examples.chatbots.desk import RESERVATION_ID, answer


@tool
def find_reservation(reservation_id: str) -> str:
    """Look a reservation up in the desk's own records.

    Args:
        reservation_id: six letters and digits, such as 'ABC123'.
    """
    return f"no record of {reservation_id} at this desk; hand it over to a human agent"


def agent(state: MessagesState) -> dict[str, list[AIMessage]]:
    """Look up a reservation id the user gives; otherwise answer like the rule-based desk."""
    last = state["messages"][-1]
    if isinstance(last, ToolMessage):
        return {"messages": [AIMessage(f"I checked: {last.content}. A human agent will contact you by email.")]}
    found = RESERVATION_ID.search(last.text)
    if found:
        call = {"name": "find_reservation", "args": {"reservation_id": found.group()}, "id": f"lookup-{found.group()}"}
        return {"messages": [AIMessage("", tool_calls=[call])]}
    conversation = [{"role": "user", "content": last.text}]
    return {"messages": [AIMessage(answer(conversation))]}


def route(state: MessagesState) -> str:
    """Run the tool the agent asked for, or end the turn with its reply."""
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else END


def build() -> StateGraph:
    """The desk's graph, before compiling."""
    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode([find_reservation]))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder


graph = build().compile(name="graph_desk")
