"""Describe's compiler proposes rules beside a reviewed rules file, never over it: each proposed rule cited, scoped
and given examples made from itself, and left out when it fails them; a careless model proposes nothing broken."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from intellagent.artifacts import (
    Assertion,
    BoundAssertion,
    Condition,
    ConfirmationAssertion,
    ForbiddenAssertion,
    OrderAssertion,
    Policy,
    PolicyCatalog,
    PreconditionAssertion,
    SameEntity,
)
from intellagent.config import Config, apply_overrides, load_config
from intellagent.describe.assertion_answers import assertions_schema
from intellagent.describe.assertion_compiler import typed
from intellagent.describe.vocabulary import Vocabulary
from intellagent.environment import Environment
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers, draw
from intellagent.rules.proposed_rules import propose
from intellagent.rules.review import reviewed
from intellagent.rules.rules_file import read_rules
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.describe.conftest import configure, run_describe, script_document
from tests.rules import RULES, section

ASSERTION: TypeAdapter[Assertion] = TypeAdapter(Assertion)
CANCEL = "A pending order can be cancelled as a whole; its payments are refunded to the methods that paid."
ASK = ("Before you cancel, remove, exchange or return anything, say exactly what will change, naming the order, "
       "and wait for the customer to answer yes.")
COMPILED = {"assertions": [
    {"kind": "confirmation", "policy": "P02", "tool": "cancel_order",
     "rationale": "say exactly what will change, naming the order, and wait for the customer to answer yes"},
    {"kind": "precondition", "policy": "P01", "tool": "cancel_order", "rationale": "A pending order can be cancelled",
     "any_of": [{"argument": "cancel_order.order_id", "key": "store_orders.order_id", "column": "store_orders.status",
                 "op": "eq", "value": "pending"}]}]}


def returns_config(tmp_path: Path, **environment: str | None) -> Config:
    return load_config({"name": "returns", "environment": section(**environment), "llm": "scripted", "samples": 1,
                        "describe": {"graph_weights": "flows", "assertions": "yes"}}, base_dir=tmp_path)


def catalog() -> PolicyCatalog:
    return PolicyCatalog(task_description="A store.", flows=[], policies=[
        Policy(id="P01", text=CANCEL, flows=[], category="company_policy", challenge=2),
        Policy(id="P02", text=ASK, flows=[], category="user_consent", challenge=2)])


def test_a_compile_writes_a_proposal_and_its_diff_beside_the_reviewed_file_and_changes_nothing(
        tmp_path: Path) -> None:
    reviewed_file = tmp_path / "rules.yml"
    shutil.copy(RULES, reviewed_file)
    before = reviewed_file.read_bytes()
    script = script_document(ScriptedLLM(), flows={"Orders": [
        {"text": CANCEL, "category": "company_policy", "challenge": 2},
        {"text": ASK, "category": "user_consent", "challenge": 2}]}, assertions=COMPILED)

    run_describe(returns_config(tmp_path, rules=str(reviewed_file)), tmp_path / "run", script)

    assert reviewed_file.read_bytes() == before
    proposed = read_rules(tmp_path / "rules.proposed.yml")
    assert [(rule.id, rule.kind, rule.cite.passage) for rule in proposed.rules] == [
        ("P01.1", "precondition", "L16"), ("P02.1", "confirmation", "L24")]
    assert (tmp_path / "rules.proposed.diff").read_text().startswith("--- rules.yml\n+++ rules.proposed.yml\n")
    catalog = RunFolder(tmp_path / "run").policies.require()
    assert catalog.assertions == []  # the run uses the reviewed file, not what it compiled
    assert [held.rule.id for held in catalog.rules] == [rule.id for rule in read_rules(reviewed_file).rules]


def test_with_no_rules_file_the_proposal_is_written_in_the_run_folder_and_the_run_uses_what_it_compiled(
        tmp_path: Path) -> None:
    script = script_document(ScriptedLLM(), flows={"Orders": [
        {"text": CANCEL, "category": "company_policy", "challenge": 2}]}, assertions={"assertions": [
            COMPILED["assertions"][1] | {"policy": "P01"}]})

    run_describe(returns_config(tmp_path, rules=None), tmp_path / "run", script)

    folder = RunFolder(tmp_path / "run")
    assert [rule.id for rule in read_rules(folder.proposed_rules.path).rules] == ["P01.1"]
    assert [assertion.id for assertion in folder.policies.require().assertions] == ["P01.1"]


def test_each_compiled_kind_is_proposed_with_examples_it_passes(returns: Environment, tmp_path: Path) -> None:
    common = {"policy": "P01", "rationale": "A pending order can be cancelled as a whole"}
    assertions = [
        OrderAssertion(id="P01.1", before="get_order", then="cancel_order",
                       same=SameEntity(before="order_id", then="order_id"), **common),
        PreconditionAssertion(id="P01.2", tool="cancel_order", any_of=[Condition(
            argument="order_id", table="store_orders", key="order_id", column="status", op="in",
            value=["pending"])], **common),
        PreconditionAssertion(id="P01.3", tool="cancel_order", any_of=[Condition(
            argument="order_id", table="store_orders", key="order_id", column="placed_at", op="within_days",
            value=30, since="2024-05-15T12:00:00")], **common),
        BoundAssertion(id="P01.4", tool="remove_item", measure="rows", argument="order_id",
                       table="store_order_lines", key="order_id", op="ge", value=1, **common),
        ForbiddenAssertion(id="P01.5", tool="remove_item", **common),
        ConfirmationAssertion(id="P01.6", tool="cancel_order", **common),
    ]

    proposal = propose(assertions, catalog(), returns, target=tmp_path / "rules.proposed.yml")

    assert proposal.left_out == []
    assert [rule.id for rule in proposal.rules.rules] == [a.id for a in assertions]
    again = reviewed(read_rules(proposal.proposed), returns, folder=tmp_path)
    assert again.refused == []


def test_a_compiled_rule_its_own_examples_cannot_tell_apart_is_left_out_with_why(returns: Environment,
                                                                                  tmp_path: Path) -> None:
    never = PreconditionAssertion(id="P01.1", policy="P01", rationale="A pending order can be cancelled",
                                  tool="cancel_order", any_of=[Condition(
                                      argument="order_id", table="store_orders", key="order_id", column="status",
                                      op="within_days", value=1, since="not a date")])

    proposal = propose([never], catalog(), returns, target=tmp_path / "rules.proposed.yml")

    assert proposal.rules.rules == []
    assert proposal.left_out[0].startswith("P01.1: ")


@pytest.mark.parametrize("seed", range(8))
def test_careless_assertions_past_every_check_of_the_compiler_are_proposed_only_where_they_pass_their_examples(
        seed: int, returns: Environment, tmp_path: Path) -> None:
    schema = assertions_schema(Vocabulary.of(returns), ["P01", "P02"]).model_json_schema()
    answer = draw(schema, random.Random(seed), definitions=schema.get("$defs", {}))
    assertions = []
    for fields in answer["assertions"]:
        try:
            assertions.append(ASSERTION.validate_python({**typed(fields), "id": f"{fields['policy']}.{len(assertions)}",
                                                         "policy": fields["policy"]}))
        except ValidationError:
            continue  # a value the language itself refuses never reaches a proposal

    proposal = propose(assertions, catalog(), returns, target=tmp_path / "rules.proposed.yml")

    assert len(proposal.rules.rules) + len(proposal.left_out) <= len(assertions)
    assert reviewed(read_rules(proposal.proposed), returns, folder=tmp_path).refused == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_careless_model_compiling_rules_never_crashes_nor_proposes_a_rule_that_fails_itself(
        seed: int, tmp_path: Path, returns: Environment) -> None:
    settings = apply_overrides(returns_config(tmp_path, rules=None), llm="scripted", samples=1, seed=seed)
    settings = configure(settings, assertion_batch=2)
    script = ScriptedLLM().on(reply=careless_answers(seed=seed))

    asyncio.run(execute(settings, output=tmp_path / "run", script=script, stages=("describe",), progress=False))

    folder = RunFolder(tmp_path / "run")
    if script.calls(schema="AssertionsAnswer"):
        proposed = read_rules(folder.proposed_rules.path)
        assert reviewed(proposed, returns, folder=tmp_path).refused == []
