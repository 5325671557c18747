"""Assertions compiled from the carrier's rules, on a domain with ids of digits only and JSON columns: a
membership precondition and a bound on a number fire where broken and only there; a JSON column is never
compared."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.artifacts import Assertion, Finding, Flow, Policy, PolicyCatalog
from intellagent.checks import run_checks
from intellagent.checks.assertions import compiled_checks
from intellagent.describe.assertion_answers import assertions_schema
from intellagent.describe.assertions import compiled
from intellagent.describe.vocabulary import Vocabulary
from intellagent.environment import Environment
from tests.airline.test_airline_checks import Turn, play_turns
from tests.telecom.conftest import CARD, DANA, DATA_USED_UP, OPEN, OVERDUE, PENDING, World

RULES = {
    "P01": "A bill can be paid once it is issued: open or overdue bills only.",
    "P02": "A line may get at most 5 GB of extra data in a billing month, counting what it already bought.",
}
PAYABLE = {"kind": "precondition", "policy": "P01", "tool": "pay_bill", "rationale": RULES["P01"],
           "any_of": [{"argument": "pay_bill.bill_id", "key": "bills.bill_id", "column": "bills.status", "op": "in",
                       "value": ["open", "overdue"]}]}
AT_MOST_FIVE = {"kind": "bound", "policy": "P02", "tool": "refuel_data", "measure": "value",
                "argument": "refuel_data.gb_amount", "op": "le", "value": 5, "rationale": RULES["P02"]}


def catalog() -> PolicyCatalog:
    return PolicyCatalog(task_description="A carrier's agent.", flows=[Flow(id="F1", name="Billing and data")],
                         policies=[Policy(id=pid, text=text, flows=["F1"], category="company_policy", challenge=2)
                                   for pid, text in RULES.items()])


def compile_answer(telecom: Environment, *proposed: dict) -> tuple[list[Assertion], list[str]]:
    vocabulary = Vocabulary.of(telecom)
    return compiled(assertions_schema(vocabulary, list(RULES)).model_validate({"assertions": list(proposed)}),
                    catalog(), vocabulary)


@pytest.fixture(scope="module")
def assertions(telecom: Environment) -> list[Assertion]:
    kept, notes = compile_answer(telecom, PAYABLE, AT_MOST_FIVE)
    assert notes == []
    return kept


def confirmed(action: tuple[str, dict]) -> list[Turn]:
    return [("chatbot", "Hello!", []), ("user", "My number is 5035550100.", []),
            ("chatbot", "I will do exactly that. Shall I?",
             [("find_customer_by_phone", {"phone_number": DATA_USED_UP})]),
            ("user", "Yes, please go ahead.", []), ("chatbot", "Done.", [action])]


def compiled_findings(world: World, assertions: list[Assertion], tmp_path: Path, turns: list[Turn]
                      ) -> dict[str, list[Finding]]:
    messages, database = play_turns(world.telecom, world.path, tmp_path / "dialog", turns)
    _, findings, _ = run_checks(world.telecom, messages, before=world.path, database=database,
                             compiled=compiled_checks(assertions))
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.check.startswith("compiled "):
            found.setdefault(finding.check, []).append(finding)
    return found


def test_paying_a_pending_bill_breaks_the_membership_precondition(world, assertions, tmp_path) -> None:
    pay = ("pay_bill", {"customer_id": DANA, "bill_id": PENDING, "card_last_four": CARD})
    (finding,) = compiled_findings(world, assertions, tmp_path, confirmed(pay))["compiled P01.1"]
    assert finding.turn == 4 and finding.row == f"bills row (bill_id='{PENDING}')"
    assert "status is 'pending'" in finding.message


@pytest.mark.parametrize("bill", [OPEN, OVERDUE])
def test_paying_an_issued_bill_keeps_it(world, assertions, tmp_path, bill) -> None:
    pay = ("pay_bill", {"customer_id": DANA, "bill_id": bill, "card_last_four": CARD})
    assert compiled_findings(world, assertions, tmp_path, confirmed(pay)) == {}


def test_a_bound_on_a_number_fires_above_the_limit_and_not_at_it(world, assertions, tmp_path) -> None:
    def refuel(amount: float) -> tuple[str, dict]:
        return "refuel_data", {"customer_id": DANA, "phone_number": DATA_USED_UP, "gb_amount": amount}
    (finding,) = compiled_findings(world, assertions, tmp_path / "six", confirmed(refuel(6)))["compiled P02.1"]
    assert "gb_amount is 6" in finding.message and finding.turn == 4
    assert compiled_findings(world, assertions, tmp_path / "five", confirmed(refuel(5))) == {}


def test_a_condition_on_a_json_column_is_refused(telecom) -> None:
    on_charges = {**PAYABLE, "any_of": [{**PAYABLE["any_of"][0], "column": "bills.charges", "op": "eq",
                                         "value": "open"}]}
    kept, (note,) = compile_answer(telecom, on_charges)
    assert kept == [] and "bills.charges holds JSON, which is not compared" in note


def test_a_tool_the_rule_speaks_of_only_by_what_it_does_is_accepted(telecom) -> None:
    kept, notes = compile_answer(telecom, AT_MOST_FIVE)  # "extra data": what refuel_data's description says it adds
    assert [a.id for a in kept] == ["P02.1"] and notes == []


def test_a_tool_the_rule_neither_names_nor_describes_is_refused(telecom) -> None:
    kept, (note,) = compile_answer(telecom, {"kind": "forbidden", "policy": "P02", "tool": "enable_roaming",
                                             "rationale": RULES["P02"]})
    assert kept == [] and "the policy does not speak of enable_roaming" in note  # its description: "line", "data"
