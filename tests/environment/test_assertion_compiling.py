"""Compiling policies into assertions: names the domain lacks cannot be answered, types that do not fit are
refused with the reason, and a careless model's answers compile into none, each refused with its reason."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from intellagent.artifacts import Flow, Policy, PolicyCatalog
from intellagent.config import Config
from intellagent.describe.assertion_answers import assertions_schema
from intellagent.describe.assertion_compiler import compiled
from intellagent.describe.vocabulary import Vocabulary
from intellagent.environment import Environment, load_environment
from intellagent.llm.careless import draw

RULE = "A reservation holds five passengers at most, and a basic economy reservation cannot be changed."


def catalog(text: str = RULE) -> PolicyCatalog:
    return PolicyCatalog(task_description="A desk.", flows=[Flow(id="F1", name="Everything")],
                         policies=[Policy(id="P01", text=text, flows=["F1"], category="company_policy", challenge=2)])


def precondition(column: str, op: str, value: object) -> dict:
    return {"kind": "precondition", "policy": "P01", "tool": "update_reservation_flights", "rationale": RULE,
            "any_of": [{"argument": "update_reservation_flights.reservation_id", "key": "reservations.reservation_id",
                        "column": column, "op": op, "value": value}]}


@pytest.fixture
def airline(scripted_config: Config) -> Environment:
    """The airline's tables and tools: the names its assertions may use."""
    return load_environment(scripted_config.environment)


@pytest.fixture
def vocabulary(airline: Environment) -> Vocabulary:
    return Vocabulary.of(airline)


def test_an_assertion_naming_a_tool_the_domain_lacks_cannot_be_answered(vocabulary) -> None:
    schema = assertions_schema(vocabulary, ["P01"])
    with pytest.raises(ValidationError, match="forbidden"):
        schema.model_validate({"assertions": [{"kind": "forbidden", "policy": "P01", "tool": "issue_refund",
                                               "rationale": RULE}]})


def test_an_assertion_naming_a_column_the_domain_lacks_cannot_be_answered(vocabulary) -> None:
    schema = assertions_schema(vocabulary, ["P01"])
    with pytest.raises(ValidationError, match="precondition"):
        schema.model_validate({"assertions": [precondition("reservations.colour", "eq", "red")]})


def test_an_assertion_of_a_policy_outside_the_batch_cannot_be_answered(vocabulary) -> None:
    schema = assertions_schema(vocabulary, ["P01"])
    with pytest.raises(ValidationError):
        schema.model_validate({"assertions": [{"kind": "confirmation", "policy": "P02",
                                               "tool": "update_reservation_flights", "rationale": RULE}]})


def test_a_size_comparison_on_a_text_column_is_refused_with_the_reason(vocabulary) -> None:
    answer = assertions_schema(vocabulary, ["P01"]).model_validate(
        {"assertions": [precondition("reservations.cabin", "lt", 5)]})
    kept, notes = compiled(answer, catalog(), vocabulary)
    assert kept == []
    assert notes == ["assertions: a precondition assertion of P01 was refused: lt compares numbers, and "
                     "reservations.cabin is text"]


def test_a_column_of_another_table_than_the_keys_is_refused_with_the_reason(vocabulary) -> None:
    answer = assertions_schema(vocabulary, ["P01"]).model_validate(
        {"assertions": [precondition("users.membership", "eq", "gold")]})
    kept, notes = compiled(answer, catalog(), vocabulary)
    assert kept == []
    assert notes == ["assertions: a precondition assertion of P01 was refused: users.membership is not a column of "
                     "reservations"]


def test_an_argument_of_another_tool_than_the_calls_is_refused_though_the_call_has_one_of_its_name(vocabulary) -> None:
    answer = assertions_schema(vocabulary, ["P01"]).model_validate({"assertions": [
        {"kind": "order", "policy": "P01", "before": "get_reservation_details", "then": "cancel_reservation",
         "before_argument": "update_reservation_flights.reservation_id",
         "then_argument": "cancel_reservation.reservation_id", "rationale": RULE}]})
    kept, notes = compiled(answer, catalog(), vocabulary)
    assert kept == []
    assert notes == ["assertions: a order assertion of P01 was refused: update_reservation_flights.reservation_id "
                     "is not an argument of get_reservation_details"]


def test_a_value_the_policy_never_states_is_refused(vocabulary) -> None:
    answer = assertions_schema(vocabulary, ["P01"]).model_validate(
        {"assertions": [precondition("reservations.cabin", "ne", "premium")]})
    kept, notes = compiled(answer, catalog(), vocabulary)
    assert kept == [] and "the policy does not state 'premium'" in notes[0]


def test_a_confirmation_before_a_tool_that_changes_nothing_is_refused(vocabulary) -> None:
    rule = "Before looking a reservation up with its details, get the user's explicit yes."
    answer = assertions_schema(vocabulary, ["P01"]).model_validate({"assertions": [
        {"kind": "confirmation", "policy": "P01", "tool": "get_reservation_details", "rationale": rule}]})
    kept, notes = compiled(answer, catalog(rule), vocabulary)
    assert kept == [] and "get_reservation_details changes nothing" in notes[0]


def test_the_same_assertion_answered_twice_is_kept_once(vocabulary) -> None:
    stated = precondition("reservations.cabin", "ne", "basic_economy")
    answer = assertions_schema(vocabulary, ["P01"]).model_validate({"assertions": [stated, stated]})
    kept, _ = compiled(answer, catalog(), vocabulary)
    assert [a.id for a in kept] == ["P01.1"]


@pytest.mark.parametrize("domain", ["airline", "parcels", "library"])
def test_careless_answers_compile_into_no_assertion_each_refused_with_its_reason(domain, request) -> None:
    vocabulary = Vocabulary.of(request.getfixturevalue(domain))
    schema = assertions_schema(vocabulary, ["P01"])
    json_schema = schema.model_json_schema()
    proposed = 0
    for seed in range(60):
        answer = schema.model_validate(draw(json_schema, random.Random(seed), definitions=json_schema["$defs"]))

        kept, notes = compiled(answer, catalog(), vocabulary)

        assert kept == []  # the policy's words bear none out: no check faults every dialog for a careless answer
        assert len(notes) == len(answer.assertions)
        assert all(" assertion of P01 was refused: " in note for note in notes)
        proposed += len(answer.assertions)
    assert proposed > 0
