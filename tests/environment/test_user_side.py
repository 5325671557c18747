"""The user's side of a world: its tables are marked, its tools are the user's own, and neither side's tools
may write the other's tables."""

from dataclasses import replace
from pathlib import Path

import pytest

from intellagent.artifacts import Message, ToolCall
from intellagent.checks import Trace
from intellagent.environment import Environment, load_environment
from intellagent.errors import UsageError
from tests.environment.conftest import CARD, INSTALL, WALLET, ConfigFactory


def app_settings(wallet: Environment, world: Path) -> dict:
    with wallet.session(world) as session:
        return dict(session.get_one(wallet.table("apps"), INSTALL).settings)


def card_blocked(wallet: Environment, world: Path) -> bool:
    with wallet.session(world) as session:
        return session.get_one(wallet.table("cards"), CARD).blocked


def test_a_table_marked_as_the_users_is_the_user_side(wallet: Environment) -> None:
    assert [wallet.side(table) for table in wallet.tables] == ["company", "user"]
    assert wallet.user_tables == [wallet.table("apps")]


def test_the_user_tools_are_loaded_apart_from_the_chatbots_and_marked_as_the_users(wallet: Environment) -> None:
    assert [tool.name for tool in wallet.tools] == ["get_card", "unblock_card"]
    assert [(tool.name, tool.side) for tool in wallet.user_tools] == [
        ("open_card_settings", "user"), ("switch_online_payments", "user")]
    assert [schema["function"]["name"] for schema in wallet.tool_schemas()] == ["get_card", "unblock_card"]


def test_the_user_calls_its_own_tools_on_its_side(wallet: Environment, wallet_world: Path) -> None:
    with wallet.session(wallet_world) as session:
        assert wallet.call_tool(session, "open_card_settings", {"install_id": INSTALL},
                                by="user") == "contactless: on, online_payments: off"
        assert wallet.call_tool(session, "switch_online_payments", {"install_id": INSTALL, "on": True},
                                by="user") == "online payments: on"
    assert app_settings(wallet, wallet_world)["online_payments"] is True


def test_the_chatbot_cannot_call_a_user_tool(wallet: Environment, wallet_world: Path) -> None:
    with wallet.session(wallet_world) as session:
        reply = wallet.call_tool(session, "switch_online_payments", {"install_id": INSTALL, "on": True})
    assert reply == "Error: unknown tool 'switch_online_payments'; the tools are get_card, unblock_card"
    assert app_settings(wallet, wallet_world)["online_payments"] is False


def test_the_user_cannot_call_a_chatbot_tool(wallet: Environment, wallet_world: Path) -> None:
    with wallet.session(wallet_world) as session:
        reply = wallet.call_tool(session, "unblock_card", {"card_number": CARD}, by="user")
    assert reply.startswith("Error: unknown tool 'unblock_card'")
    assert card_blocked(wallet, wallet_world)


def test_a_chatbot_tool_that_writes_the_users_side_is_refused_and_rolled_back(
    wallet: Environment, wallet_config: ConfigFactory, wallet_world: Path
) -> None:
    crossing = load_environment(wallet_config(tools=str(WALLET / "faulty_tools.py"), user_tools=None))
    with crossing.session(wallet_world) as session:
        reply = crossing.call_tool(session, "force_online_payments", {"install_id": INSTALL})
    assert reply.startswith("Error: force_online_payments wrote apps, a table of the user's side")
    assert app_settings(wallet, wallet_world)["online_payments"] is False


def test_a_user_tool_that_writes_the_companys_side_is_refused_and_rolled_back(
    wallet: Environment, wallet_config: ConfigFactory, wallet_world: Path
) -> None:
    crossing = load_environment(wallet_config(user_tools=str(WALLET / "faulty_tools.py")))
    with crossing.session(wallet_world) as session:
        reply = crossing.call_tool(session, "unblock_from_app", {"card_number": CARD}, by="user")
    assert reply.startswith("Error: unblock_from_app wrote cards, a table of the company's side")
    assert card_blocked(wallet, wallet_world)


def test_solo_gives_the_chatbot_the_users_tools_and_each_still_writes_only_its_side(
    wallet: Environment, wallet_world: Path
) -> None:
    solo = wallet.solo
    assert solo is wallet.solo  # one solo world per domain: what a chatbot makes per world is made once
    assert [tool.name for tool in solo.tools] == ["get_card", "unblock_card", "open_card_settings",
                                                  "switch_online_payments"]
    assert solo.user_tools == []
    with solo.session(wallet_world) as session:
        assert solo.call_tool(session, "switch_online_payments", {"install_id": INSTALL, "on": True}).endswith("on")
        assert solo.call_tool(session, "unblock_card", {"card_number": CARD}) == "unblocked"
    assert app_settings(wallet, wallet_world)["online_payments"] is True
    assert not card_blocked(wallet, wallet_world)


def test_user_tools_need_a_table_of_the_users_side(library_config: ConfigFactory) -> None:
    with pytest.raises(UsageError, match=r"^environment.user_tools: the schema marks no table as the user's"):
        load_environment(library_config(user_tools=str(WALLET / "user_tools.py")))


def test_a_user_tool_may_not_share_a_chatbot_tools_name(wallet_config: ConfigFactory) -> None:
    with pytest.raises(UsageError, match="get_card is also one of the chatbot's tools; rename one of them"):
        load_environment(wallet_config(user_tools=str(WALLET / "tools.py")))


def test_a_table_marked_with_an_unknown_side_is_refused(wallet: Environment, wallet_config: ConfigFactory,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(wallet.table("apps").__table__.info, "side", "customer")
    with pytest.raises(UsageError, match="table apps is marked as side 'customer'"):
        load_environment(wallet_config())


def test_a_domain_without_user_tools_has_none(library: Environment) -> None:
    assert library.user_tools == [] and library.user_tables == []
    assert replace(library).solo.tools == library.tools


def test_a_trace_keeps_the_chatbots_calls_apart_from_the_users(wallet: Environment) -> None:
    messages = [Message(role="chatbot", content="Looking.", tool_calls=[
                    ToolCall(id="call_1", name="get_card", arguments={"card_number": CARD}, result="{}")]),
                Message(role="user", content="Switched on.", tool_calls=[
                    ToolCall(id="call_2", name="switch_online_payments", arguments={"install_id": INSTALL, "on": True},
                             result="online payments: on")])]
    trace = Trace(messages=messages, environment=wallet)
    assert [(call.turn, call.name) for call in trace.calls] == [(0, "get_card")]
    assert [(call.turn, call.name) for call in trace.user_calls] == [(1, "switch_online_payments")]
