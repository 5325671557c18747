"""References that agree, children a new parent always has, parents a plan forgot, and inherited columns, on the
store with no model."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from intellagent.environment import Environment, RowRejected, validator
from intellagent.llm import ScriptedLLM
from intellagent.populate import AssembledRow, Assignment, BackgroundWorld, Plan, assemble, insert_rows, plan_model
from intellagent.populate.people import faker_provider
from intellagent.populate.symbols import Symbol
from tests.populate.conftest import ORDER_SCENARIO, start_run
from tests.store import StoreWorld, build_world, config
from tests.store.schema import Order, OrderLine

SEEDS = range(12)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> StoreWorld:
    return build_world(tmp_path_factory.mktemp("store"))


def plan_of(store: StoreWorld, rows: list[dict[str, Any]], world: BackgroundWorld | None = None) -> Plan:
    answer = plan_model(store.tables).model_validate(
        {"entities": [], "rows": rows, "scenario": "", "expected_behaviour": ""})
    return Plan.from_answer(answer, store.tables, world or store.world)


def rows_of(store: StoreWorld, plan: Plan, seed: int, world: BackgroundWorld | None = None) -> list[AssembledRow]:
    return assemble(plan, Assignment(), tables=store.tables, world=world or store.world, seed=f"7:S{seed}").rows


def one(rows: list[AssembledRow], table: str) -> dict[str, Any]:
    (row,) = [row.values for row in rows if row.table == table]
    return row


def existing(store: StoreWorld, table: str, **match: Any) -> dict[str, Any]:
    return store.world.matching(table, match)[0]


def test_an_open_variant_is_one_of_the_lines_product(store: StoreWorld) -> None:
    product = store.world.rows("store_products")[3]["product_id"]
    plan = plan_of(store, [{"table": "store_order_lines", "values": {"product_id": product}}])

    for seed in SEEDS:
        line = one(rows_of(store, plan, seed), "store_order_lines")
        assert existing(store, "store_variants", variant_id=line["variant_id"])["product_id"] == product


def test_a_line_that_names_only_a_variant_gets_the_variants_product(store: StoreWorld) -> None:
    variant = store.world.rows("store_variants")[5]
    plan = plan_of(store, [{"table": "store_order_lines", "values": {"variant_id": variant["variant_id"]}}])

    for seed in SEEDS:
        assert one(rows_of(store, plan, seed), "store_order_lines")["product_id"] == variant["product_id"]


def test_an_open_payment_method_is_one_of_the_orders_customer(store: StoreWorld) -> None:
    order = store.world.rows("store_orders")[7]
    plan = plan_of(store, [{"table": "store_payments", "values": {"order_id": order["order_id"]}}])

    for seed in SEEDS:
        method = one(rows_of(store, plan, seed), "store_payments")["method_id"]
        assert existing(store, "store_payment_methods", method_id=method)["customer_id"] == order["customer_id"]


def test_a_new_customers_new_order_is_paid_with_the_new_customers_own_method(store: StoreWorld) -> None:
    plan = plan_of(store, [{"table": "store_customers", "values": {"customer_id": "C1"}},
                           {"table": "store_orders", "values": {"order_id": "O1", "customer_id": "C1"}}])

    rows = rows_of(store, plan, 1)

    customer, method, payment = (one(rows, table) for table in ("store_customers", "store_payment_methods",
                                                                "store_payments"))
    assert method["customer_id"] == customer["customer_id"] and payment["method_id"] == method["method_id"]


def test_a_fixed_variant_of_another_product_is_replaced_by_one_of_the_lines_product_with_a_note(
        store: StoreWorld) -> None:
    product = store.world.rows("store_products")[0]["product_id"]
    other = next(v for v in store.world.rows("store_variants") if v["product_id"] != product)
    plan = plan_of(store, [{"table": "store_order_lines",
                            "values": {"product_id": product, "variant_id": other["variant_id"]}}])

    assembly = assemble(plan, Assignment(), tables=store.tables, world=store.world, seed="7:S1")

    line = one(assembly.rows, "store_order_lines")
    assert existing(store, "store_variants", variant_id=line["variant_id"])["product_id"] == product
    assert [note for note in assembly.dropped if other["variant_id"] in note] == [
        f"store_order_lines: variant_id={other['variant_id']!r} is not the store_variants row the row's other "
        "references name; another was chosen"]


def test_references_need_not_agree_where_the_background_shows_they_do_not(store: StoreWorld) -> None:
    # A store whose payments are made with anyone's method: nothing there says a method is the order's customer's.
    rows = {table.name: [dict(row) for row in store.world.rows(table.name)] for table in store.tables}
    methods = rows["store_payment_methods"]
    for position, payment in enumerate(rows["store_payments"]):
        payment["method_id"] = methods[position % len(methods)]["method_id"]
    anyones = BackgroundWorld(store.tables, rows)
    order = rows["store_orders"][7]
    plan = plan_of(store, [{"table": "store_payments", "values": {"order_id": order["order_id"]}}], anyones)

    owners = {anyones.matching("store_payment_methods", {"method_id": one(rows_of(store, plan, seed, anyones),
                                                                              "store_payments")["method_id"]})[0][
        "customer_id"] for seed in SEEDS}

    assert owners != {order["customer_id"]}


@pytest.mark.parametrize(("parent", "children"), [
    ("store_orders", ["store_order_lines", "store_payments"]),
    ("store_customers", ["store_payment_methods"]),
    ("store_products", ["store_variants"]),  # and no order line: a line is its order's, not its product's
])
def test_a_new_parent_gets_a_child_of_each_kind_every_existing_one_has(store: StoreWorld, parent: str,
                                                                       children: list[str]) -> None:
    key = store.tables[parent].key[0]
    plan = plan_of(store, [{"table": parent, "values": {key: "N1"}}])

    added = [row for row in plan.rows if row.table != parent]

    assert sorted(row.table for row in added) == children
    assert all(str(row.cells[key]) == "Symbol(name='N1')" for row in added)


def test_an_existing_order_named_by_its_id_gets_no_child_added(store: StoreWorld) -> None:
    order = store.world.rows("store_orders")[0]["order_id"]

    plan = plan_of(store, [{"table": "store_orders", "values": {"order_id": order, "status": "cancelled"}}])

    assert [row.table for row in plan.rows] == ["store_orders"]


def test_rows_that_name_a_new_rows_key_written_as_a_value_name_the_key_it_gets(store: StoreWorld) -> None:
    plan = plan_of(store, [{"table": "store_products", "values": {"product_id": "lamp-2024"}},
                           {"table": "store_variants", "values": {"product_id": "lamp-2024"}}])

    rows = rows_of(store, plan, 1)

    product = one(rows, "store_products")["product_id"]
    assert product != "lamp-2024" and [row.values["product_id"] for row in rows if row.table == "store_variants"] == [
        product]


def test_an_inherited_column_takes_the_referenced_rows_value_over_every_default(store: StoreWorld) -> None:
    customer = store.world.rows("store_customers")[2]
    plan = plan_of(store, [{"table": "store_orders", "values": {"order_id": "O1",
                                                                "customer_id": customer["customer_id"]}}])

    for seed in SEEDS:
        rows = rows_of(store, plan, seed)
        line, order = one(rows, "store_order_lines"), one(rows, "store_orders")
        variant = existing(store, "store_variants", variant_id=line["variant_id"])
        product = existing(store, "store_products", product_id=line["product_id"])
        # A name Faker would make a person's, a JSON object the template row would give: both inherited.
        assert (line["name"], line["options"], line["price"]) == (product["name"], variant["options"],
                                                                  variant["price"])
        assert order["address"] == customer["address"]


@pytest.mark.parametrize("shipment", [{"order_id": "O1"}, {}])  # naming the order, or left to name the event's
def test_a_new_order_that_ships_imitates_an_order_that_shipped(store: StoreWorld, shipment: dict[str, str]) -> None:
    plan = plan_of(store, [{"table": "store_orders", "values": {"order_id": "O1"}},
                           {"table": "store_shipments", "values": shipment}])

    statuses = {one(rows_of(store, plan, seed), "store_orders")["status"] for seed in SEEDS}

    assert statuses <= {"processed", "delivered"}


@pytest.mark.parametrize(("name", "values", "choices", "provider"), [
    ("name", ["Desk Lamp", "Rain Shell", "Travel Duffel", "Wireless Earbuds"], False, None),
    ("name", ["Ana Silva", "Jon Berg", "Mary Smith"], False, "name"),
    ("state", ["pending", "delivered"] * 5, True, None),
    ("city", ["Springfield", "Lake Amy", "Port Ryan"], False, "city"),
    ("city", [], False, "city"),
    ("colour", ["red"], False, None),
])
def test_faker_makes_a_persons_details_only_when_the_columns_values_agree(
        name: str, values: list[str], choices: bool, provider: str | None) -> None:
    assert faker_provider(name, values, choices=choices) == provider


def test_an_order_without_lines_breaks_the_world_rule_once_its_rows_are_in(store: StoreWorld, tmp_path: Path) -> None:
    plan = plan_of(store, [{"table": "store_orders", "values": {"order_id": "O1"}}])
    rows = [row for row in rows_of(store, plan, 1) if row.table != "store_order_lines"]
    database = tmp_path / "event.sqlite"
    shutil.copyfile(store.background, database)

    with store.environment.session(database) as session:
        inserted, rejections = insert_rows(store.environment, store.tables, session, rows)

    assert len(inserted) == len(rows)
    (rejection,) = rejections
    order = one(rows, "store_orders")["order_id"]
    assert rejection.describe() == (f"store_orders_1: order {order} has no line; an order holds at least one "
                                    "(symbols in this row: order_id=O1)")


def test_a_world_rule_an_existing_row_breaks_blames_the_event_rows_that_led_to_it(store: StoreWorld,
                                                                                  tmp_path: Path) -> None:
    @validator(Order, related=(OrderLine,))
    def at_most_two_lines(order: Order, session: Session) -> None:
        """An order holds two lines at most."""
        lines = len(session.exec(select(OrderLine).where(OrderLine.order_id == order.order_id)).all())
        if lines > 2:
            raise RowRejected(f"order {order.order_id} holds {lines} lines; two at most")

    env = store.environment
    strict = Environment(name=env.name, policy=env.policy, tables=env.tables, tools=env.tools,
                         validators=[*env.validators, at_most_two_lines], background=env.background)
    order = store.world.rows("store_orders")[0]["order_id"]
    plan = plan_of(store, [{"table": "store_order_lines", "values": {"order_id": order}},
                           {"table": "store_order_lines", "values": {"order_id": order}}])
    database = tmp_path / "event.sqlite"
    shutil.copyfile(store.background, database)

    with strict.session(database) as session:
        _, rejections = insert_rows(strict, store.tables, session, rows_of(store, plan, 1))

    assert [rejection.label for rejection in rejections] == ["store_order_lines_1", "store_order_lines_2"]
    assert all("two at most" in rejection.messages[0] for rejection in rejections)


FORGOTTEN_ORDER = [{"table": "store_customers", "values": {"customer_id": "C1"}},
                   {"table": "store_order_lines", "values": {"order_id": "O1", "quantity": 1}},
                   {"table": "store_order_lines", "values": {"order_id": "O1", "quantity": 2}}]
"""Two lines of order O1, which no row plans: a small model's plan that forgot the order itself."""


def test_lines_of_an_order_no_row_plans_get_that_order_once_and_its_payment(store: StoreWorld) -> None:
    plan = plan_of(store, FORGOTTEN_ORDER)

    (order,) = [row.cells for row in plan.rows if row.table == "store_orders"]
    (payment,) = [row.cells for row in plan.rows if row.table == "store_payments"]
    assert order == {"order_id": Symbol("O1")} and payment["order_id"] == Symbol("O1")


def test_a_forgotten_order_is_made_in_the_checked_event_with_its_lines_payment_and_the_events_customer(
        tmp_path: Path, script: ScriptedLLM) -> None:
    script.on(schema="SymbolicPlan", reply={"entities": [], "rows": FORGOTTEN_ORDER})
    run = start_run(config(tmp_path, populate={"lean": "yes"}), tmp_path / "run", [ORDER_SCENARIO])

    run.populate(script)

    assert run.events()["S001"].status == "ok"
    (customer,) = run.new_rows("S001", "store_customers")
    (order,) = run.new_rows("S001", "store_orders")
    lines = run.new_rows("S001", "store_order_lines")
    (payment,) = run.new_rows("S001", "store_payments")
    assert order["customer_id"] == customer["customer_id"] and order["order_id"].startswith("#W")
    assert [(line["order_id"], line["quantity"]) for line in lines] == [(order["order_id"], 1),
                                                                        (order["order_id"], 2)]
    assert payment["order_id"] == order["order_id"]


@pytest.mark.parametrize("order_id", ["#W0000001", "1234567890"])  # a made-up value is left to reference resolution
def test_a_line_naming_its_order_by_a_value_gets_no_order_added(store: StoreWorld, order_id: str) -> None:
    plan = plan_of(store, [{"table": "store_order_lines", "values": {"order_id": order_id}}])

    assert [row.table for row in plan.rows] == ["store_order_lines"]


def test_a_line_naming_a_product_by_a_symbol_no_row_plans_gets_no_product_added(store: StoreWorld) -> None:
    # A line is its order's, and only about its product: the product is chosen among existing ones.
    order = store.world.rows("store_orders")[0]["order_id"]

    plan = plan_of(store, [{"table": "store_order_lines", "values": {"order_id": order, "product_id": "P1"}}])

    assert [row.table for row in plan.rows] == ["store_order_lines"]
