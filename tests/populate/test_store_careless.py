"""The store populated by the careless double: fifty scenarios, and every event a coherent world.

The double answers every plan, values and repair request with JSON valid against its schema and
arbitrary in content: ids that name no row, lists and objects where JSON columns are, products planned
without variants, orders without lines. The framework owns keys, references and children, so whatever
it says, each event holds together: a line's variant is its product's, a payment's method is its
order's customer's, an order has its lines and payment, under every rule of the row and of the world.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from intellagent.artifacts import Event
from intellagent.environment import Environment, load_environment
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from tests.conftest import world_file
from tests.populate.test_careless_model import assert_outcomes_verified_or_explained, populate
from tests.store import config, environment

SCENARIOS = 50
MAX_CALLS_PER_EVENT = 8  # plan, constraints, values and at most two repairs; the outcome and at most two repairs

AGREEING = {
    "a line's variant is one of its product": """
        SELECT line.line_id FROM store_order_lines line JOIN store_variants variant USING (variant_id)
        WHERE variant.product_id != line.product_id""",
    "a payment's method is its order's customer's": """
        SELECT payment.payment_id FROM store_payments payment
        JOIN store_orders orders USING (order_id) JOIN store_payment_methods method USING (method_id)
        WHERE method.customer_id != orders.customer_id""",
    "an order has a line and a payment": """
        SELECT order_id FROM store_orders WHERE order_id NOT IN (SELECT order_id FROM store_order_lines)
        OR order_id NOT IN (SELECT order_id FROM store_payments)""",
    "a customer has a payment method": """
        SELECT customer_id FROM store_customers
        WHERE customer_id NOT IN (SELECT customer_id FROM store_payment_methods)""",
}
"""How the store's rows hold together, as queries for the rows that do not."""

INHERITED = """
    SELECT line.line_id FROM store_order_lines line JOIN store_variants variant USING (variant_id)
    WHERE line.options != variant.options OR line.price != variant.price"""
"""The lines that do not repeat their variant's options and price."""


class Run:
    """A careless run of the store: its environment, folder, events and the requests it sent."""

    def __init__(self, folder: Path, *, validators: bool, count: int) -> None:
        self.folder = folder / "run"
        modules = environment() if validators else environment(validators=None)
        cfg = config(folder, environment=modules)
        self.script = ScriptedLLM().on(reply=careless_answers(seed=11))
        self.events: list[Event] = populate(cfg, self.folder, self.script, count)
        self.environment: Environment = load_environment(cfg.environment)

    def worlds(self) -> list[tuple[str, Path]]:
        return [(event.id, world_file(self.folder, event.database or "")) for event in self.events]

    def new_rows(self, table: str) -> int:
        """The rows of `table` the events added to the background, all together."""
        background = self.folder / "events" / "_background.sqlite"
        with sqlite3.connect(background) as connection:
            base = set(connection.execute(f"SELECT * FROM {table}"))
        total = 0
        for _, world in self.worlds():
            with sqlite3.connect(world) as connection:
                total += len(set(connection.execute(f"SELECT * FROM {table}")) - base)
        return total


@pytest.fixture(scope="module")
def careless(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return Run(tmp_path_factory.mktemp("careless-store"), validators=True, count=SCENARIOS)


@pytest.fixture(scope="module")
def careless_without_rules(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The store with no validator at all: what agrees does so by construction, not because a rule rejected
    the rest."""
    return Run(tmp_path_factory.mktemp("careless-store-no-rules"), validators=False, count=20)


def test_no_event_is_lost(careless: Run) -> None:
    assert [event.status for event in careless.events] == ["ok"] * SCENARIOS
    assert len(careless.script.requests) <= MAX_CALLS_PER_EVENT * SCENARIOS


def test_every_event_is_a_valid_world_under_every_rule_of_the_row_and_of_the_world(careless: Run) -> None:
    env = careless.environment
    assert env.world_rules  # the store's rule over an order and its lines and payments is among them
    for event_id, world in careless.worlds():
        with env.session(world) as session:
            assert list(env.broken_rows(session)) == [], event_id
        with sqlite3.connect(world) as connection:
            assert connection.execute("PRAGMA foreign_key_check").fetchall() == [], event_id


@pytest.mark.parametrize("holds", sorted(AGREEING))
def test_references_agree_in_every_row_of_every_event(careless: Run, holds: str) -> None:
    for event_id, world in careless.worlds():
        with sqlite3.connect(world) as connection:
            assert connection.execute(AGREEING[holds]).fetchall() == [], event_id


def test_each_event_has_a_verified_outcome_or_the_reason_it_has_none(careless: Run) -> None:
    assert_outcomes_verified_or_explained(careless.events, careless.folder, careless.environment)


def test_every_line_repeats_its_variants_options_and_price(careless: Run) -> None:
    for event_id, world in careless.worlds():
        with sqlite3.connect(world) as connection:
            assert connection.execute(INHERITED).fetchall() == [], event_id


def test_no_line_payment_or_order_is_given_up(careless: Run) -> None:
    left_out = [note for event in careless.events for note in event.dropped if "row left out" in note
                and note.startswith(("store_order_lines", "store_payments", "store_orders"))]

    assert left_out == []
    assert careless.new_rows("store_order_lines") >= 10 and careless.new_rows("store_payments") >= 10


@pytest.mark.parametrize("holds", sorted(AGREEING))
def test_with_no_rule_to_reject_them_filled_references_agree_all_the_same(careless_without_rules: Run,
                                                                          holds: str) -> None:
    assert [event.status for event in careless_without_rules.events] == ["ok"] * 20
    for event_id, world in careless_without_rules.worlds():
        with sqlite3.connect(world) as connection:
            assert connection.execute(AGREEING[holds]).fetchall() == [], event_id
