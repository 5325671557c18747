"""Every event gets an expected outcome, verified by running it in the event's world: on the airline and on the
store (JSON columns, ids of digits only, a rule over an order and its related rows).

The scripted double plans a scenario's rows, then proposes the outcome from the rows the prompt shows it:
calls that run, calls that fail (and are sent back once, or dropped), writes that break a rule of the domain,
a forbidden call also expected, outputs no row holds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import Scenario
from intellagent.config import Config, load_config
from intellagent.environment import load_environment
from intellagent.llm import Request, ScriptedLLM
from intellagent.outcomes.answer import proposal_schema
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.conftest import ROOT, world_file
from tests.store import environment as store_environment

AIRLINE = {"policy": str(ROOT / "policies" / "airline.md"), "schema": "intellagent.db_schemas.airline.schema",
           "tools": "intellagent.db_schemas.airline.tools", "validators": "intellagent.db_schemas.airline.validators",
           "background": "intellagent.db_schemas.airline.background", "checks": "intellagent.db_schemas.airline.checks"}

SCENARIO = Scenario(id="S001", policies=["P01", "P02"], target_challenge=5, challenge=5,
                    description="A customer wants the details of their booking changed.",
                    expected_behaviour="The chatbot looks the booking up and makes the change.")

Answer = Callable[[dict[str, list[dict[str, Any]]]], dict[str, Any]]


def airline_plan(cabin: str, insurance: str = "no", booked: str = "2024-05-14T10:00:00") -> dict[str, Any]:
    """A gold member and one reservation of theirs; the framework completes the rest."""
    return {"entities": [{"symbol": "U1", "description": "a gold member"},
                         {"symbol": "R1", "description": "U1's reservation"}],
            "rows": [{"table": "users", "values": {"user_id": "U1", "membership": "gold"}},
                     {"table": "reservations", "values": {"reservation_id": "R1", "user_id": "U1", "cabin": cabin,
                                                          "insurance": insurance, "created_at": booked}}]}


def store_plan() -> dict[str, Any]:
    """A customer and a pending order of theirs; the framework gives the order its line and payment."""
    return {"entities": [{"symbol": "C1", "description": "a customer"},
                         {"symbol": "O1", "description": "C1's pending order"}],
            "rows": [{"table": "store_customers", "values": {"customer_id": "C1"}},
                     {"table": "store_orders", "values": {"order_id": "O1", "customer_id": "C1",
                                                          "status": "pending"}}]}


def shown_rows(request: Request) -> dict[str, list[dict[str, Any]]]:
    """The rows the outcome's prompt shows, by table (the event's own first, then those they refer to)."""
    prompt = next(m["content"] for m in request.messages if "# The rows of this scenario" in str(m["content"]))
    section = prompt.split("# The rows of this scenario", 1)[1].split("\n# ", 1)[0]
    rows: dict[str, list[dict[str, Any]]] = {}
    table = ""
    for line in section.splitlines()[1:]:
        if line.endswith(":") and not line.startswith("- "):
            table = line[:-1]
        elif line.startswith("- {"):
            rows.setdefault(table, []).append(json.loads(line[2:]))
    return rows


def call(tool: str, policies: tuple[str, ...] = (), **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments, "policies": list(policies)}


def proposal(*calls: dict[str, Any], forbidden: list[dict[str, Any]] | None = None,
             outputs: list[str] | None = None) -> dict[str, Any]:
    return {"calls": list(calls), "forbidden": forbidden or [], "outputs": outputs or []}


class Populated:
    """One scenario populated on the scripted double, on a domain."""

    def __init__(self, tmp_path: Path, environment: dict[str, str], plan: dict[str, Any], propose: Answer,
                 mend: list[Answer] | None = None, scenario: Scenario = SCENARIO,
                 populate: dict[str, Any] | None = None, script: ScriptedLLM | None = None) -> None:
        self.config: Config = load_config({"name": "outcomes", "environment": environment, "llm": "scripted",
                                           "seed": 7, "workers": 1, "populate": {"lean": "yes", **(populate or {})}},
                                          base_dir=tmp_path)
        self.folder = tmp_path / "run"
        self.script = script or ScriptedLLM()
        self.script.on(schema="SymbolicPlan", reply=plan)
        self.script.on(schema="ExpectedOutcomeProposal", reply=lambda request: propose(shown_rows(request)))
        self.script.on(schema="MendedCall", replies=[lambda request, answer=answer: answer(shown_rows(request))
                                                     for answer in mend or [lambda rows: {"call": None}]])
        asyncio.run(execute(self.config, output=self.folder, stages=(), progress=False))
        RunFolder(self.folder).scenarios.append(scenario)
        asyncio.run(execute(self.config, output=self.folder, stages=("populate",), script=self.script,
                            progress=False))
        (self.event,) = RunFolder(self.folder).events.load()
        self.environment = load_environment(self.config.environment)

    def broken(self, stored: str) -> list[str]:
        """Every rule the stored world breaks."""
        with self.environment.session(world_file(self.folder, stored)) as session:
            return list(self.environment.broken_rows(session))

    def rows(self, stored: str, table: str) -> list[dict[str, Any]]:
        with self.environment.session(world_file(self.folder, stored)) as session:
            return self.environment.dump(session)[table]


def user_and_reservation(rows: dict[str, list[dict[str, Any]]]) -> tuple[str, str]:
    return rows["users"][0]["user_id"], rows["reservations"][0]["reservation_id"]


def new_names(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    _, reservation = user_and_reservation(rows)
    return {"reservation_id": reservation, "passengers": [{"first_name": "Ana", "last_name": "Silva",
                                                           "dob": "1990-01-01"}]}


# ── the airline ─────────────────────────────────────────────────────────────────────────────


def renaming(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A look-up that fails (no such user), then a write that runs."""
    return proposal(call("get_user_details", user_id="nobody_0000"),
                    call("update_reservation_passengers", ("P01",), **new_names(rows)))


def the_right_look_up(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    user, _ = user_and_reservation(rows)
    return {"call": call("get_user_details", user_id=user)}


def test_a_call_that_fails_is_sent_back_once_and_its_mended_call_verified(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), renaming, mend=[the_right_look_up])

    expected = run.event.expected
    assert expected is not None and run.event.expected_error is None
    user, reservation = run.event.user_rows["users"][0]["user_id"], run.event.user_rows["reservations"][0][
        "reservation_id"]
    assert [(c.tool, c.arguments.get("user_id") or c.arguments["reservation_id"]) for c in expected.calls] == [
        ("get_user_details", user), ("update_reservation_passengers", reservation)]
    assert [c.writes for c in expected.calls] == [False, True] and expected.calls[1].policies == ["P01"]
    assert not expected.calls[0].result.startswith("Error") and expected.repairs == 1 and expected.dropped == []
    (mend,) = run.script.calls(schema="MendedCall")
    assert "Call 1 failed: it returned Error: user not found" in mend.text


def test_the_expected_world_is_stored_over_the_events_and_keeps_every_rule(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), renaming, mend=[the_right_look_up])

    expected = run.event.expected
    assert expected is not None and expected.world == "events/S001.expected.delta.json"
    assert json.loads((run.folder / expected.world).read_text())["base"] == "S001.delta.json"
    reservation = run.event.user_rows["reservations"][0]["reservation_id"]
    assert expected.touched and all(record.startswith("reservation_passengers ") for record in expected.touched)
    passengers = [row for row in run.rows(expected.world, "reservation_passengers")
                  if row["reservation_id"] == reservation]
    assert [(row["first_name"], row["last_name"]) for row in passengers] == [("Ana", "Silva")]
    assert run.broken(expected.world) == [] and run.broken(run.event.database or "") == []
    assert expected.digest not in (None, run.event.digest)


def test_a_call_that_fails_again_after_its_repair_is_dropped_with_its_reason(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), renaming,
                    mend=[lambda rows: {"call": call("get_user_details", user_id="still_nobody_1")}])

    expected = run.event.expected
    assert expected is not None
    assert [c.tool for c in expected.calls] == ["update_reservation_passengers"]
    assert expected.repairs == 1 and len(run.script.calls(schema="MendedCall")) == 1
    (dropped,) = expected.dropped
    assert dropped.startswith('get_user_details(user_id="still_nobody_1")') and "user not found" in dropped


def test_a_write_a_domain_check_finds_at_fault_is_never_kept(tmp_path: Path) -> None:
    old_economy = airline_plan("economy", booked="2024-05-01T10:00:00")
    run = Populated(tmp_path, AIRLINE, old_economy,
                    lambda rows: proposal(call("cancel_reservation", ("P01",),
                                               reservation_id=user_and_reservation(rows)[1])))

    assert run.event.expected is None
    assert run.event.expected_error is not None and "cancellation_eligibility" in run.event.expected_error
    (mend,) = run.script.calls(schema="MendedCall")
    assert "it breaks a rule (cancellation_eligibility)" in mend.text
    assert not (run.folder / "events/S001.expected.delta.json").exists() and run.event.status == "ok"


def making_and_forbidding(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    _, reservation = user_and_reservation(rows)
    cancel = call("cancel_reservation", ("P01",), reservation_id=reservation)
    return proposal(call("get_reservation_details", reservation_id=reservation), cancel, forbidden=[
        {"tool": "cancel_reservation", "arguments": None, "policy": "P02", "reason": "nothing may be cancelled"}])


def test_a_proposal_that_makes_and_forbids_one_write_is_sent_back_with_the_contradiction_named(tmp_path: Path
                                                                                               ) -> None:
    answers = iter([making_and_forbidding, lambda rows: proposal(forbidden=[
        {"tool": "cancel_reservation", "arguments": None, "policy": "P02", "reason": "nothing may be cancelled"}])])
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), lambda rows: next(answers)(rows))

    _, second = run.script.calls(schema="ExpectedOutcomeProposal")
    assert "never both" in second.text and "calls[1] (cancel_reservation)" in second.text
    expected = run.event.expected
    assert expected is not None and expected.calls == [] and expected.kind == "refusal"
    assert [(f.tool, f.policies) for f in expected.forbidden] == [("cancel_reservation", ["P02"])]


def test_a_proposal_that_keeps_making_and_forbidding_one_write_is_no_outcome_never_a_refusal(tmp_path: Path
                                                                                             ) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("economy"), making_and_forbidding)

    assert run.event.expected is None and run.event.expected_error is not None
    assert "never both" in run.event.expected_error
    assert not (run.folder / "events/S001.expected.delta.json").exists()


def test_a_refusal_is_an_outcome_of_no_call_with_its_forbidden_write(tmp_path: Path) -> None:
    refusal = lambda rows: proposal(forbidden=[  # noqa: E731
        {"tool": "cancel_reservation", "arguments": {"reservation_id": user_and_reservation(rows)[1]},
         "policy": "P01", "reason": "it was booked too long ago"}])
    run = Populated(tmp_path, AIRLINE, airline_plan("economy"), refusal)

    expected = run.event.expected
    assert expected is not None and expected.calls == [] and expected.world is None
    assert expected.forbidden[0].arguments == {"reservation_id": user_and_reservation(run.event.user_rows)[1]}


def test_an_output_no_result_row_or_rule_holds_is_dropped(tmp_path: Path) -> None:
    def telling(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        _, reservation = user_and_reservation(rows)
        return proposal(call("get_reservation_details", reservation_id=reservation),
                        outputs=[rows["reservations"][0]["cabin"].upper(), "a made-up fact"])

    run = Populated(tmp_path, AIRLINE, airline_plan("business"), telling)

    expected = run.event.expected
    assert expected is not None and expected.outputs == ["BUSINESS"]
    assert expected.dropped == ['output "a made-up fact": no call\'s result, row of the event, the scenario or the '
                                "policy holds it"]


def test_an_output_of_a_whole_sentence_is_dropped_though_the_policy_holds_it(tmp_path: Path) -> None:
    rule = "Share only what the user told you or what your tools return"

    def quoting(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        _, reservation = user_and_reservation(rows)
        return proposal(call("get_reservation_details", reservation_id=reservation),
                        outputs=[rows["reservations"][0]["cabin"], rule])

    run = Populated(tmp_path, AIRLINE, airline_plan("business"), quoting)

    expected = run.event.expected
    assert expected is not None and expected.outputs == ["business"]
    assert expected.dropped == [f'output "{rule}": a sentence, which no reply is held to word for word']


def test_an_answer_that_never_fits_leaves_the_event_without_an_outcome(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, airline_plan("business"),
                    lambda rows: proposal(call("get_user_details", ("P09",), user_id="x")))

    assert run.event.status == "ok" and run.event.expected is None
    assert run.event.expected_error is not None and "the proposal failed" in run.event.expected_error
    assert "calls.0.policies.0: Input should be 'P01', 'P02'" in run.event.expected_error


def test_an_event_costs_one_proposal_and_two_repairs_at_most(tmp_path: Path) -> None:
    failing = lambda rows: proposal(*(call("get_user_details", user_id=f"nobody_{n}") for n in range(4)))  # noqa: E731
    run = Populated(tmp_path, AIRLINE, airline_plan("business"), failing,
                    mend=[lambda rows: {"call": call("get_user_details", user_id="nobody_again")}] * 4)

    assert len(run.script.calls(schema="ExpectedOutcomeProposal")) == 1
    assert len(run.script.calls(schema="MendedCall")) == 2
    assert run.event.expected is None and run.event.expected_error is not None
    assert run.event.expected_error.startswith("nothing to grade is left: get_user_details(")


def test_the_answer_admits_the_tools_that_act_on_the_world_and_the_events_policies_only() -> None:
    env = load_environment(load_config({"name": "x", "environment": AIRLINE}).environment)
    schema = proposal_schema(env, ("P01", "P02")).model_json_schema()

    tools = {variant["properties"]["tool"]["const"] for name, variant in schema["$defs"].items()
             if name.endswith("Call") and name != "ForbiddenCall"}
    assert tools == {tool.name for tool in env.tools if tool.session_parameter is not None}
    assert {"think", "calculate", "transfer_to_human_agents"}.isdisjoint(tools)
    assert set(schema["$defs"]["ForbiddenCall"]["properties"]["tool"]["enum"]) == {
        tool.name for tool in env.tools if tool.writes}
    assert schema["$defs"]["SampledPolicy"] == {"enum": ["P01", "P02"], "type": "string"}
    book = schema["$defs"]["BookReservationCall"]["properties"]["arguments"]["$ref"].rsplit("/", 1)[1]
    assert set(schema["$defs"][book]["properties"]) == set(env.tool("book_reservation").parameters["properties"])


# ── the store ───────────────────────────────────────────────────────────────────────────────


def order_and_line(rows: dict[str, list[dict[str, Any]]]) -> tuple[str, int]:
    return rows["store_orders"][0]["order_id"], rows["store_order_lines"][0]["line_id"]


def emptying(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A look-up, then the removal of the order's only line, which leaves an order with none."""
    order, line = order_and_line(rows)
    return proposal(call("get_order", order_id=order), call("remove_item", ("P01",), order_id=order, line_id=line))


def cancelling(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"call": call("cancel_order", ("P01",), order_id=order_and_line(rows)[0])}


def test_on_the_store_a_write_that_breaks_a_rule_over_related_rows_is_sent_back_and_mended(tmp_path: Path) -> None:
    run = Populated(tmp_path, store_environment(), store_plan(), emptying, mend=[cancelling])

    expected = run.event.expected
    assert expected is not None
    order, _ = order_and_line(run.event.user_rows)
    assert [(c.tool, c.arguments) for c in expected.calls] == [("get_order", {"order_id": order}),
                                                               ("cancel_order", {"order_id": order})]
    (mend,) = run.script.calls(schema="MendedCall")
    assert "order_has_lines_and_a_payment" in mend.text and f"order {order} has no line" in mend.text
    assert f"store_orders {order}" in expected.touched
    assert any(record.startswith("store_payments ") for record in expected.touched)
    orders = {row["order_id"]: row["status"] for row in run.rows(expected.world or "", "store_orders")}
    assert orders[order] == "cancelled" and run.broken(expected.world or "") == []


def test_on_the_store_digit_ids_and_integer_arguments_run_as_the_model_gave_them(tmp_path: Path) -> None:
    def looking_up(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        customer = rows["store_customers"][0]["customer_id"]
        return proposal(call("get_customer", customer_id=customer), call("get_order", order_id=order_and_line(rows)[0]))

    run = Populated(tmp_path, store_environment(), store_plan(), looking_up)

    expected = run.event.expected
    assert expected is not None and [c.tool for c in expected.calls] == ["get_customer", "get_order"]
    customer = expected.calls[0].arguments["customer_id"]
    assert customer.isdigit() and len(customer) == 10 and customer in (expected.calls[0].result or "")


@pytest.mark.parametrize("domain", ["airline", "store"])
def test_the_prompt_shows_the_events_rows_the_rows_they_refer_to_and_the_world_tools(tmp_path: Path,
                                                                                    domain: str) -> None:
    environment, plan = (AIRLINE, airline_plan("business")) if domain == "airline" else (store_environment(),
                                                                                         store_plan())
    run = Populated(tmp_path, environment, plan, lambda rows: proposal(forbidden=[
        {"tool": next(t.name for t in run_tools(environment) if t.writes), "arguments": None, "policy": "P01",
         "reason": "no change is allowed"}]))

    (request,) = run.script.calls(schema="ExpectedOutcomeProposal")
    rows = shown_rows(request)
    assert set(run.event.user_rows) <= set(rows)
    referred = set(rows) - set(run.event.user_rows)
    assert referred  # a reservation's flight dates, an order line's product and variant
    assert f"# The scenario\n{run.event.scenario}" in request.last
    assert "- P01:" in request.last and "- P02:" in request.last
    env = run.environment
    assert all(f"- {tool.name}(" in request.last for tool in env.tools if tool.session_parameter is not None)
    assert all(f"- {tool.name}(" not in request.last for tool in env.tools if tool.session_parameter is None)


def test_an_empty_proposal_is_sent_back_and_never_an_outcome(tmp_path: Path) -> None:
    run = Populated(tmp_path, store_environment(), store_plan(), lambda rows: proposal())

    assert len(run.script.calls(schema="ExpectedOutcomeProposal")) == 3  # the answer and the two re-asks
    assert run.event.expected is None and run.event.expected_error is not None
    assert "the proposal is empty" in run.event.expected_error


def run_tools(environment: dict[str, str]) -> list[Any]:
    return load_environment(load_config({"name": "x", "environment": environment}).environment).every_tool
