"""A chatbot given as a Python object replaces the config's: a callable (sync or async), a graph, an adapter."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph

import intellagent
from examples.qa_gate.chatbot import careful, hasty
from intellagent.artifacts import Dialog
from intellagent.chatbots import ChatbotReply, ChatbotSession
from intellagent.llm import ScriptedLLM
from tests.pipeline.scripted_pipeline import config

# What each build says in the two dialogs (S001: a neighbour's order, S002: a cancellation), in order.
OTHERWISE = "I can help with your own bookings and orders only. What would you like to do?"
CAREFUL_LINES = [OTHERWISE, "I can cancel it for you. Do you confirm that I should?", "Done: it is cancelled."]
HASTY_LINES = [OTHERWISE, "Done: it is cancelled."]


def outcomes(report: intellagent.Report) -> dict[str, str]:
    """Each dialog's verdict, by the rule it tested."""
    return {dialog.policies[0]: dialog.status for dialog in report.dialogs}


def chatbot_lines(folder: Path) -> list[str]:
    dialogs = [Dialog.model_validate_json(line) for line in (folder / "dialogs.jsonl").read_text().splitlines()]
    return [m.content for d in dialogs for m in d.transcript[1:] if m.role == "chatbot"]


def test_a_sync_callable_is_the_chatbot_under_test(frozen: Path, tmp_path: Path, script: ScriptedLLM) -> None:
    report = intellagent.evaluate(config(), chatbot=careful, scenarios_from=frozen, output=tmp_path / "run",
                                  script=script)

    assert outcomes(report) == {"P01": "pass", "P02": "pass"}
    assert chatbot_lines(tmp_path / "run") == CAREFUL_LINES
    assert not script.calls(role="chatbot")  # the config's llm_agent never spoke


def test_an_async_callable_is_the_chatbot_under_test(frozen: Path, tmp_path: Path, script: ScriptedLLM) -> None:
    async def build(messages: list[dict[str, str]]) -> str:
        return hasty(messages)

    report = intellagent.evaluate(config(), chatbot=build, scenarios_from=frozen, output=tmp_path / "run",
                                  script=script)

    assert outcomes(report) == {"P01": "fail", "P02": "pass"}
    assert chatbot_lines(tmp_path / "run") == HASTY_LINES
    assert not script.calls(role="chatbot")


def test_a_compiled_langgraph_graph_is_the_chatbot_under_test(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    def agent(state: MessagesState) -> dict[str, list[AIMessage]]:
        conversation = [{"role": m.type, "content": m.text} for m in state["messages"]]
        return {"messages": [AIMessage(careful(conversation))]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    report = intellagent.evaluate(config(), chatbot=builder.compile(), scenarios_from=frozen,
                                  output=tmp_path / "run", script=script)

    assert outcomes(report) == {"P01": "pass", "P02": "pass"}
    assert chatbot_lines(tmp_path / "run") == CAREFUL_LINES
    assert not script.calls(role="chatbot")


class Desk:
    """A team's own adapter: opened once per dialog, with the dialog's id and its own database."""

    def __init__(self) -> None:
        self.sessions: list[ChatbotSession] = []
        self.found: list[bool] = []

    def open(self, session: ChatbotSession) -> Desk:
        self.sessions.append(session)
        self.found.append(session.database is not None and session.database.is_file())
        return self

    async def reply(self, messages: list[dict[str, str]]) -> ChatbotReply:
        return ChatbotReply(content=careful(messages))


def test_an_adapter_object_is_the_chatbot_under_test(frozen: Path, tmp_path: Path, script: ScriptedLLM) -> None:
    desk = Desk()
    report = intellagent.evaluate(config(), chatbot=desk, scenarios_from=frozen, output=tmp_path / "run",
                                  script=script)

    assert outcomes(report) == {"P01": "pass", "P02": "pass"}
    assert sorted(session.id for session in desk.sessions) == ["S001", "S002"]
    assert desk.found == [True, True]  # each dialog's complete database, there while the dialog lasts
    assert not script.calls(role="chatbot")
