"""Production conversations on the airline and on the store (ids of digits, JSON columns, rows whose references
must agree): the trace checks judge them, the world checks stand aside, and a failing one's tool results
become a valid world."""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import text

from intellagent.artifacts import Analysis, Dialog, Event, Flow, Message, Policy, PolicyCatalog, ToolCall, Violation
from intellagent.config import EnvironmentConfig, TranscriptsConfig
from intellagent.environment import Environment, load_environment, worlds
from intellagent.populate.background import BACKGROUND
from intellagent.production.regression import regression_event, regression_scenario, shown_rows
from intellagent.production.transcripts import production_dialogs
from intellagent.run_folder import RunFolder
from tests.airline.conftest import REPO
from tests.store import build_world

AIRLINE_CHAT = {"id": "air-1", "messages": [
    {"role": "user", "content": "Cancel reservation ZFA04Y, I am mia_li_3668."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function", "function": {
        "name": "cancel_reservation", "arguments": '{"reservation_id": "ZFA04Y"}'}}]},
    {"role": "tool", "tool_call_id": "a", "content": '{"reservation_id": "ZFA04Y", "status": "cancelled"}'},
    {"role": "assistant", "content": "Reservation ZFA04Y has been cancelled; $1234.56 goes back as credit QX81ZT."},
]}


def catalog(ids: list[str]) -> PolicyCatalog:
    return PolicyCatalog(task_description="A desk.", flows=[Flow(id="F1", name="Everything")], policies=[
        Policy(id=pid, text=f"Rule {pid}.", flows=["F1"], category="user_consent", challenge=2) for pid in ids])


def test_airline_trace_checks_judge_a_transcript_and_its_world_checks_stand_aside(tmp_path: Path) -> None:
    airline = load_environment(EnvironmentConfig(
        policy=REPO / "policies/airline.md", schema="intellagent.db_schemas.airline.schema",
        tools="intellagent.db_schemas.airline.tools", checks="intellagent.db_schemas.airline.checks"))
    path = tmp_path / "air.jsonl"
    path.write_text(json.dumps(AIRLINE_CHAT) + "\n")

    (dialog,) = production_dialogs(TranscriptsConfig(path=path), airline, catalog(["P01", "P02"]))

    found = {(f.check, f.turn) for f in dialog.findings}
    assert ("confirmed_before_write", 1) in found  # cancelled before any yes
    assert ("grounded_facts", 1) in found  # the amount and the credit's id come from no tool result
    assert airline.checks and {check.name for check in airline.checks} <= set(dialog.inapplicable)
    assert "writes_are_valid" in dialog.inapplicable
    assert dialog.policies == ["P01", "P02"] and dialog.production == "air-1 (chat, line 1)"


def store_order(tmp_path: Path) -> tuple[Environment, dict]:
    """The store, and one order of its background world as its get_order tool shows it."""
    store = build_world(tmp_path)
    environment = store.environment
    with environment.session(store.background) as session:
        (order_id,) = session.exec(text("select order_id from store_orders limit 1")).first()
        return environment, json.loads(environment.call_tool(session, "get_order", {"order_id": order_id}))


def regression_of(environment: Environment, shown: dict, tmp_path: Path) -> tuple[Dialog, Event]:
    """A failing conversation whose one tool call showed `shown`, and its regression event in a fresh set."""
    dialog = Dialog(id="P0002", status="incomplete", production="store (line 2)", transcript=[
        Message(role="user", content="What about my order?"),
        Message(role="chatbot", content="Here it is.", tool_calls=[
            ToolCall(id="c", name="get_order", arguments={}, result=json.dumps(shown))])])
    analysis = Analysis(id="P0002", status="fail", tested=["P01"], source="x",
                        violations=[Violation(policy="P01", turn=1, reason='"Here it is."')])
    target = RunFolder(tmp_path / "regression")
    target.path(BACKGROUND).parent.mkdir(parents=True)
    environment.create_database(target.path(BACKGROUND), seed=7)
    scenario = regression_scenario(dialog, analysis, catalog(["P01"]))
    return dialog, regression_event(environment, scenario, dialog, target)


def renamed(shown: dict, order_id: str, *, payments: bool) -> dict:
    """An order as get_order shows it, under a new id with its lines (and payments, or none): new rows."""
    return {**shown, "order_id": order_id, "status": "pending", "shipments": [],
            "lines": [{**line, "order_id": order_id, "line_id": line["line_id"] + 90000} for line in shown["lines"]],
            "payments": [{**payment, "order_id": order_id, "payment_id": f"99999999{n:02d}", "status": "paid"}
                         for n, payment in enumerate(shown["payments"])] if payments else []}


def test_a_store_transcripts_tool_results_become_the_rows_of_its_regression_world(tmp_path: Path) -> None:
    environment, shown = store_order(tmp_path)
    shown = renamed(shown, "#W0000001", payments=True)

    dialog, event = regression_of(environment, shown, tmp_path)

    rows = shown_rows(environment, dialog)
    assert {row.__tablename__ for row in rows} == {"store_orders", "store_order_lines", "store_payments"}
    assert event.dropped == []
    assert [r["order_id"] for r in event.user_rows["store_orders"]] == ["#W0000001"]
    assert {r["line_id"] for r in event.user_rows["store_order_lines"]} == {line["line_id"] for line in shown["lines"]}
    assert isinstance(event.user_rows["store_order_lines"][0]["options"], dict)
    whole = tmp_path / "world.sqlite"
    worlds.materialize(tmp_path / "regression" / (event.database or ""), whole)
    with environment.session(whole) as session:
        assert list(environment.broken_rows(session)) == []


def test_a_row_whose_reference_names_no_row_is_dropped_and_the_world_stays_valid(tmp_path: Path) -> None:
    environment, shown = store_order(tmp_path)
    orphan = {**shown["lines"][0], "line_id": 99999, "order_id": "#W0000002", "variant_id": "0000000000"}

    _, event = regression_of(environment, orphan, tmp_path)

    assert event.user_rows == {}
    assert len(event.dropped) == 1 and event.dropped[0].startswith("store_order_lines")


def test_rows_that_together_break_a_world_rule_are_dropped_with_the_rule(tmp_path: Path) -> None:
    environment, shown = store_order(tmp_path)

    _, event = regression_of(environment, renamed(shown, "#W0000003", payments=False), tmp_path)

    assert "store_orders" not in event.user_rows  # an order shown without its payment
    assert any(d.startswith("store_orders") and "order_has_lines_and_a_payment" in d for d in event.dropped)


def test_the_documented_example_file_reads_whole_and_its_rule_breaker_is_caught(tmp_path: Path) -> None:
    airline = load_environment(EnvironmentConfig(
        policy=REPO / "policies/airline.md", schema="intellagent.db_schemas.airline.schema",
        tools="intellagent.db_schemas.airline.tools"))
    example = TranscriptsConfig(path=REPO / "examples/production/airline_conversations.jsonl")

    dialogs = production_dialogs(example, airline, catalog(["P01"]))

    assert [d.status for d in dialogs] == ["incomplete"] * 4
    assert {d.production: [f.check for f in d.findings if f.check == "confirmed_before_write"] for d in dialogs} == {
        "chat-0412 (chat, line 1)": [], "chat-0413 (chat, line 2)": ["confirmed_before_write"],
        "plain-0414 (plain, line 3)": [], "6f1c2a9e-run (langsmith, line 4)": []}


def test_a_store_call_log_keeps_its_digit_ids_and_json_columns_while_the_customers_data_is_masked(
        tmp_path: Path) -> None:
    environment, shown = store_order(tmp_path)
    shown = renamed(shown, "#W0000004", payments=True)
    asked = f"Where is my order {shown['order_id']}? I'm ana@example.com, card 4111 1111 1111 1111."
    history = [{"role": "user", "content": asked},
               {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                   "name": "get_order", "arguments": json.dumps({"order_id": shown["order_id"]})}}]},
               {"role": "tool", "tool_call_id": "c1", "content": json.dumps(shown)}]
    answer = f"Order {shown['order_id']} of customer {shown['customer_id']} is {shown['status']}."
    log = {"request": {"messages": history}, "response": {"choices": [{"message": {"role": "assistant",
                                                                                  "content": answer}}]}}
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps(log) + "\n")

    (dialog,) = production_dialogs(TranscriptsConfig(path=path), environment, catalog(["P01"]))

    user, reply = dialog.transcript
    assert user.content == f"Where is my order {shown['order_id']}? I'm [email-1], card [card-1]."
    assert reply.content == answer  # the customer's id is ten digits: an id, not a phone number
    assert json.loads(reply.tool_calls[0].result or "") == shown  # digit ids, options and address as they were
    regression = RunFolder(tmp_path / "regression")
    regression.path(BACKGROUND).parent.mkdir(parents=True)
    environment.create_database(regression.path(BACKGROUND), seed=7)
    failing = Analysis(id=dialog.id, status="fail", tested=["P01"], source="x",
                       violations=[Violation(policy="P01", turn=1, reason="x")])
    event = regression_event(environment, regression_scenario(dialog, failing, catalog(["P01"])), dialog, regression)
    assert event.dropped == [] and [r["order_id"] for r in event.user_rows["store_orders"]] == ["#W0000004"]
