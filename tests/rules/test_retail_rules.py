"""τ-bench's four retail rules written in the rules language over the store with returns (a JSON column, ids of
digits): each holds on the dialog that keeps it and catches the one that breaks it, on the store's own world."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.artifacts import Message, Rule, ToolCall
from intellagent.checks import run_checks
from intellagent.checks.compiled_checks import rules_checks
from intellagent.environment import Environment
from intellagent.rules.review import reviewed
from intellagent.rules.rules_file import read_rules
from tests.rules import FOLDER, RULES
from tests.store import build_world

ORDER = "#W1000001"


@pytest.fixture(scope="module")
def rules(returns: Environment) -> dict[str, Rule]:
    found = reviewed(read_rules(RULES), returns, folder=FOLDER)
    assert found.refused == []
    return {rule.id: rule for rule in found.held}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The store's world, and one delivered order of it: its id, customer, a line, its variant, its paying method."""
    world = build_world(tmp_path_factory.mktemp("store"))
    rows = world.world
    order = next(row for row in rows.rows("store_orders") if row["status"] == "delivered")
    line = next(row for row in rows.rows("store_order_lines") if row["order_id"] == order["order_id"])
    paid = next(row for row in rows.rows("store_payments") if row["order_id"] == order["order_id"])
    return world.background, {"order": order["order_id"], "customer": order["customer_id"],
                              "line": line["line_id"], "variant": line["variant_id"], "method": paid["method_id"]}


def found(returns: Environment, rule: Rule, world: Path, messages: list[Message]) -> list[str]:
    """The messages of what one rule finds in a dialog on the store's world."""
    checked = run_checks(returns, messages, before=world, database=None, compiled=rules_checks([rule]))
    return [finding.message for finding in checked.findings if finding.check == rule.check]


def said(role: str, text: str, *calls: tuple[str, dict[str, object], str]) -> Message:
    return Message(role=role, content=text,  # type: ignore[arg-type]
                   tool_calls=[ToolCall(id=f"c{n}", name=name, arguments=args, result=result)
                               for n, (name, args, result) in enumerate(calls)])


def test_the_four_rules_pass_their_own_examples(rules: dict[str, Rule]) -> None:
    assert sorted(rules) == ["authenticate-before-disclosing", "exchange-for-a-different-item",
                             "refund-to-original-method", "yes-before-cancelling"]


def test_a_refund_to_the_method_that_paid_keeps_the_rule_and_one_to_another_breaks_it(
        returns: Environment, rules: dict[str, Rule], store: tuple[Path, dict[str, str]]) -> None:
    world, ids = store
    rule = rules["refund-to-original-method"]

    def refund(method: str) -> list[Message]:
        return [said("chatbot", "Hello."), said("chatbot", "", ("return_item", {"order_id": ids["order"],
                                                                               "line_id": ids["line"],
                                                                               "method_id": method}, "done"))]

    assert found(returns, rule, world, refund(ids["method"])) == []
    assert found(returns, rule, world, refund("gift_card_0000000"))[0].startswith("return_item was called, allowed "
                                                                                 "only when method_id in")


def test_an_exchange_for_another_variant_keeps_the_rule_and_for_the_same_breaks_it(
        returns: Environment, rules: dict[str, Rule], store: tuple[Path, dict[str, str]]) -> None:
    world, ids = store
    rule = rules["exchange-for-a-different-item"]

    def exchange(variant: str) -> list[Message]:
        return [said("chatbot", "", ("exchange_item", {"order_id": ids["order"], "line_id": ids["line"],
                                                       "variant_id": variant}, "done"))]

    assert found(returns, rule, world, exchange("9999999999")) == []
    assert len(found(returns, rule, world, exchange(ids["variant"]))) == 1


def test_an_order_told_to_its_identified_customer_keeps_the_rule_and_to_a_stranger_breaks_it(
        returns: Environment, rules: dict[str, Rule], store: tuple[Path, dict[str, str]]) -> None:
    world, ids = store
    rule = rules["authenticate-before-disclosing"]
    asked = said("user", f"Where is my order {ids['order']}?")
    looked_up = ("get_order", {"order_id": ids["order"]}, '{"status": "delivered"}')

    def told(customer: str) -> list[Message]:
        identified = ("find_customer", {"email": "a@example.com"}, f'{{"customer_id": "{customer}"}}')
        return [said("chatbot", "Hello."), asked, said("chatbot", "Your order was delivered.", identified, looked_up)]

    assert found(returns, rule, world, told(ids["customer"])) == []
    assert found(returns, rule, world, told("0000000000")) == [
        f"stated the status of store_orders row '{ids['order']}' before an earlier find_customer with "
        "result.customer_id = customer_id"]


def test_a_cancellation_after_a_yes_to_it_keeps_the_rule_and_after_a_yes_to_anything_else_breaks_it(
        returns: Environment, rules: dict[str, Rule], store: tuple[Path, dict[str, str]]) -> None:
    world, ids = store
    rule = rules["yes-before-cancelling"]
    cancel = said("chatbot", "", ("cancel_order", {"order_id": ids["order"]}, "cancelled"))

    named = [said("chatbot", "Hello."), said("chatbot", f"Shall I cancel order {ids['order']}?"),
             said("user", "Yes please."), cancel]
    other = [said("chatbot", "Hello."), said("chatbot", "Did you find everything you needed?"), said("user", "Yes."),
             cancel]

    assert found(returns, rule, world, named) == []
    assert found(returns, rule, world, other) == [
        "cancel_order was called, but the turn the user answered did not name the action (cancel)"]
