"""World rules on the store: `@validator(Order, related=(OrderLine, Payment))` runs on whole worlds, never
on a row as it is added, and judges the background, the chatbot's writes and the rows they touch."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from sqlmodel import SQLModel

from intellagent.checks import Trace
from intellagent.checks.builtin import writes_are_valid
from intellagent.environment import Environment, validator
from intellagent.errors import UsageError
from intellagent.llm import ScriptedLLM
from intellagent.runner import execute
from tests.store import StoreWorld, build_world, config, environment
from tests.store.schema import Order

RULE = "order_has_lines_and_a_payment"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> StoreWorld:
    return build_world(tmp_path_factory.mktemp("store"))


@pytest.fixture
def world(store: StoreWorld, tmp_path: Path) -> Path:
    """A copy of the store's background world, for a test to change."""
    path = tmp_path / "world.sqlite"
    path.write_bytes(store.background.read_bytes())
    return path


def orders_with_lines(world: Path, count: int, status: str = "pending") -> str:
    """An order of the world with `count` lines, made `status` (its other lines and shipments removed)."""
    with sqlite3.connect(world) as connection:
        (order,) = connection.execute("SELECT order_id FROM store_order_lines GROUP BY order_id HAVING count(*) >= ? "
                                    "ORDER BY order_id LIMIT 1", (count,)).fetchone()
        connection.execute("DELETE FROM store_order_lines WHERE order_id = ? AND line_id NOT IN (SELECT line_id FROM "
                           "store_order_lines WHERE order_id = ? ORDER BY line_id LIMIT ?)", (order, order, count))
        connection.execute("DELETE FROM store_shipments WHERE order_id = ?", (order,))
        connection.execute("UPDATE store_orders SET status = ? WHERE order_id = ?", (status, order))
    return order


def line_of(world: Path, order: str) -> int:
    with sqlite3.connect(world) as connection:
        query = "SELECT min(line_id) FROM store_order_lines WHERE order_id = ?"
        (line,) = connection.execute(query, (order,)).fetchone()
    return line


def test_the_store_declares_one_world_rule_and_row_rules_for_every_table(store: StoreWorld) -> None:
    env = store.environment
    assert [rule.name for rule in env.world_rules] == [RULE]
    assert all(env.row_validators(table) for table in env.tables)
    assert not any(rule.world_level for table in env.tables for rule in env.row_validators(table))


def test_a_world_rule_does_not_judge_a_row_as_it_is_added(store: StoreWorld, world: Path) -> None:
    env = store.environment
    order = Order(order_id="#W1000001", customer_id=store.world.rows("store_customers")[0]["customer_id"],
                  placed_at="2024-05-01T10:00:00", status="pending",
                  address={"street": "1 Main St", "city": "Troy", "state": "NY", "zip": "12180"})
    with env.session(world) as session:
        assert env.validate(order, session) == []  # no line yet: that is the world rule's business, later


def test_the_background_world_keeps_every_world_rule(store: StoreWorld) -> None:
    with store.environment.session(store.background) as session:
        assert list(store.environment.broken_rows(session)) == []


def test_a_whole_world_with_an_order_without_lines_breaks_the_rule(store: StoreWorld, world: Path) -> None:
    order = orders_with_lines(world, 1)
    with sqlite3.connect(world) as connection:
        connection.execute("DELETE FROM store_order_lines WHERE order_id = ?", (order,))

    with store.environment.session(world) as session:
        broken = list(store.environment.broken_rows(session))

    assert broken == [f"store_orders row ({order!r}) breaks {RULE}: order {order} has no line; an order holds at "
                      "least one"]


def test_a_chatbot_that_removes_an_orders_last_line_leaves_a_finding(store: StoreWorld, world: Path) -> None:
    env = store.environment
    order = orders_with_lines(world, 1)
    before = _dump(env, world)
    with env.session(world) as session:
        result = env.call_tool(session, "remove_item", {"order_id": order, "line_id": line_of(world, order)})

    (finding,) = writes_are_valid(Trace(messages=[], environment=env, before=before, database=world))

    assert result.startswith("line ") and finding.row == f"store_orders row ({order!r})"
    assert f"breaks {RULE}: order {order} has no line" in finding.message


def test_a_chatbot_that_removes_one_of_two_lines_leaves_no_finding(store: StoreWorld, world: Path) -> None:
    env = store.environment
    order = orders_with_lines(world, 2)
    before = _dump(env, world)
    with env.session(world) as session:
        env.call_tool(session, "remove_item", {"order_id": order, "line_id": line_of(world, order)})

    assert writes_are_valid(Trace(messages=[], environment=env, before=before, database=world)) == []


def test_a_background_that_breaks_a_world_rule_is_refused_in_one_line_before_any_call(tmp_path: Path) -> None:
    broken = tmp_path / "broken_background.py"
    broken.write_text(
        "from sqlmodel import delete, select\n"
        "from tests.store.background import generate as open_store\n"
        "from tests.store.schema import Order, Payment\n\n\n"
        "def generate(session, seed):\n"
        "    open_store(session, seed)\n"
        "    session.flush()\n"
        "    first = session.exec(select(Order).order_by(Order.order_id)).first()\n"
        "    session.exec(delete(Payment).where(Payment.order_id == first.order_id))\n"
    )
    script = ScriptedLLM()
    cfg = config(tmp_path, environment=environment(background=str(broken)))

    with pytest.raises(UsageError) as refused:
        asyncio.run(execute(cfg, output=tmp_path / "run", stages=("describe", "populate"), script=script,
                            progress=False))

    message = str(refused.value)
    assert message.startswith("environment.background: store_orders row ('#W") and "\n" not in message
    assert f"breaks {RULE}: order #W" in message and "has no payment" in message
    assert script.requests == []


def test_a_world_rule_needs_table_classes() -> None:
    class Loose(SQLModel):
        id: int

    with pytest.raises(UsageError, match="needs a SQLModel table class"):
        validator(Order, related=(Loose,))


def _dump(env: Environment, world: Path) -> dict:
    with env.session(world) as session:
        return env.dump(session)
