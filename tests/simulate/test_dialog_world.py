"""Python and LangGraph chatbots act on the dialog's own database through the tools they are handed."""

from __future__ import annotations

import json
import time

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from scripted_dialogs import dialogs, event, say, shop_config, simulate, stop, verdict

from intellagent.chatbots import ChatbotReply, DialogWorld
from intellagent.environment import Environment, load_environment
from intellagent.environment import tool as domain_tool
from tests.conftest import world_file


def play(tmp_path, run_folder, script, chatbot, *, user_says=("Cancel A1 please.", "yes")):
    script.on(role="user", schema="UserTurn", replies=[*(say(text) for text in user_says), stop("success", "ok")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    config = shop_config(tmp_path)
    folder = run_folder(config, [event()])
    simulate(config, folder, script, chatbot=chatbot)
    return folder, dialogs(folder)[0]


def status(folder, database: str, order_id: str) -> str:
    environment = load_environment(shop_config(folder).environment)
    with environment.session(world_file(folder, database)) as session:
        return session.get(environment.table("orders"), order_id).status


def test_a_python_chatbot_finds_the_planned_row_and_writes_to_the_dialogs_database_only(tmp_path, run_folder, script):
    seen = []

    def bot(messages, session):
        tools = {t.name: t for t in session.tools}
        if messages[-1]["content"] == "yes":
            return {"content": tools["cancel_order"].invoke({"order_id": "A1"}),
                    "tool_calls": [{"name": "notify", "arguments": {"to": "ana"}, "result": "sent"}]}
        seen.append((session.id, session.database.name, tools["get_order"].invoke({"order_id": "A1"})))
        return "Shall I cancel A1?"

    folder, dialog = play(tmp_path, run_folder, script, bot)
    placed = {"order_id": "A1", "customer": "ana", "status": "placed"}
    assert [(i, name, json.loads(found)) for i, name, found in seen] == [("S001", "S001.sqlite", placed)]
    assert [(m.role, [(c.name, c.result, c.reported) for c in m.tool_calls]) for m in dialog.transcript[1:]] == [
        ("user", []),
        ("chatbot", [("get_order", seen[0][2], False)]),
        ("user", []),
        ("chatbot", [("cancel_order", "order A1 cancelled", False), ("notify", "sent", True)]),
    ]
    assert status(folder, "dialogs/S001.delta.json", "A1") == "cancelled"
    assert status(folder, "events/S001.sqlite", "A1") == "placed"
    assert dialog.findings == []  # the cancellation came right after the user's yes


def test_a_call_that_does_not_fit_its_tool_is_answered_and_recorded(tmp_path, run_folder, script):
    def bot(messages, session):
        (get_order,) = [t for t in session.tools if t.name == "get_order"]
        return get_order.invoke({"order": "A1"})

    _, dialog = play(tmp_path, run_folder, script, bot, user_says=("Where is A1?",))
    (call,) = dialog.transcript[2].tool_calls
    assert call.arguments == {"order": "A1"} and call.result.startswith("Error: get_order got unexpected arguments")
    assert dialog.transcript[2].content == call.result


def desk_graph(tools):
    """A LangGraph factory: on the user's first message it looks A1 up, on "yes" it cancels it."""

    def agent(state: MessagesState):
        last = state["messages"][-1]
        if isinstance(last, ToolMessage):
            return {"messages": [AIMessage(f"Result: {last.text}")]}
        name = "cancel_order" if last.text == "yes" else "get_order"
        call = {"name": name, "args": {"order_id": "A1"}, "id": f"{name}-1"}
        return {"messages": [AIMessage("", tool_calls=[call])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", lambda s: "tools" if s["messages"][-1].tool_calls else END, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile()


def test_a_langgraph_factory_runs_its_tool_node_on_the_dialogs_world(tmp_path, run_folder, script):
    folder, dialog = play(tmp_path, run_folder, script, desk_graph)
    looked_up, cancelled = dialog.transcript[2], dialog.transcript[4]
    assert [(c.id, c.name, c.arguments, c.reported) for c in looked_up.tool_calls] == [
        ("get_order-1", "get_order", {"order_id": "A1"}, False)
    ]
    assert looked_up.content == f"Result: {looked_up.tool_calls[0].result}"
    assert '"status": "placed"' in looked_up.content
    assert [(c.name, c.result) for c in cancelled.tool_calls] == [("cancel_order", "order A1 cancelled")]
    assert status(folder, "dialogs/S001.delta.json", "A1") == "cancelled"
    assert status(folder, "events/S001.sqlite", "A1") == "placed"


def test_calls_of_a_graphs_own_tools_are_marked_reported(tmp_path, run_folder, script):
    @tool
    def get_order(order_id: str) -> str:
        """Look an order up in the team's own records.

        Args:
            order_id: the order.
        """
        return "in our own records"

    _, dialog = play(tmp_path, run_folder, script, lambda tools: desk_graph([get_order]), user_says=("A1?",))
    (call,) = dialog.transcript[2].tool_calls
    assert (call.name, call.result, call.reported) == ("get_order", "in our own records", True)


def test_a_factory_that_fails_is_a_dialog_error(tmp_path, run_folder, script):
    def broken(tools):
        raise RuntimeError("no model configured")

    _, dialog = play(tmp_path, run_folder, script, broken)
    assert dialog.status == "error"
    assert "raised RuntimeError building the graph: no model configured" in dialog.reason


def test_a_tool_that_does_not_finish_in_time_is_answered_with_an_error(tmp_path):
    @domain_tool(writes=False)
    def wait(seconds: float) -> str:
        """Wait.

        Args:
            seconds: how long.
        """
        time.sleep(seconds)
        return "waited"

    environment = Environment(name="slow", policy="", tables=[], tools=[wait])
    database = tmp_path / "world.sqlite"
    environment.create_database(database, seed=0)
    world = DialogWorld(environment, database, timeout=0.2)
    started = time.monotonic()
    late = "Error: wait did not finish within 0.2 s; nothing it returns later is seen"
    assert world.call("wait", {"seconds": 5}) == late
    assert time.monotonic() - started < 2
    assert world.call("wait", {"seconds": 0}) == "waited"
    assert [call.result for call in world.taken()] == [late, "waited"]
    assert world.taken() == []


def test_calls_of_any_adapter_through_the_sessions_tools_are_recorded(tmp_path, run_folder, script):
    class OwnAdapter:  # a chatbot passed as an object with open(session), not one of the built-in kinds
        def open(self, session):
            self.tools = {t.name: t for t in session.tools}
            return self

        async def reply(self, messages):
            found = await self.tools["get_order"].ainvoke({"order_id": "B2"})
            return ChatbotReply(content=f"Found: {found}")

    _, dialog = play(tmp_path, run_folder, script, OwnAdapter(), user_says=("Where is B2?",))
    (call,) = dialog.transcript[2].tool_calls
    assert (call.id, call.name, call.arguments, call.reported) == ("call_1", "get_order", {"order_id": "B2"}, False)
    assert dialog.transcript[2].content == f"Found: {call.result}" and '"shipped"' in call.result


def test_the_tool_time_limit_is_the_domains_setting(tmp_path, run_folder, script):
    limits = []

    def bot(messages, session):
        limits.append(session.world.timeout)
        return "Done."

    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "ok")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    config = shop_config(tmp_path, environment={"tool_timeout": 0.5})
    folder = run_folder(config, [event()])
    simulate(config, folder, script, chatbot=bot)
    assert limits == [0.5]
