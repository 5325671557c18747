"""A plan that forgets the record the user's entitled change acts on gets it: a new row of the table the change's
id names, owned by the event's own user, with its parts. On the airline (a booking) and on the store (an order,
whose line and payment must agree with it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from intellagent.populate.completion import add_acted_on, drop_copies
from intellagent.populate.symbols import Symbol
from tests.populate.test_expected_outcomes import AIRLINE, Populated, call, order_and_line, proposal
from tests.populate.test_outcomes_that_discriminate import CANCEL_BOOKING, CANCEL_ORDER, cancel_booking
from tests.store import build_world
from tests.store import environment as store_environment

CARDS_ONLY = {"entities": [{"symbol": "U1", "description": "a gold member"},
                           {"symbol": "PM1", "description": "U1's card"},
                           {"symbol": "PM2", "description": "U1's other card"}],
              "rows": [{"table": "users", "values": {"user_id": "U1", "membership": "gold"}},
                       {"table": "payment_methods", "values": {"payment_id": "PM1", "user_id": "U1"}},
                       {"table": "payment_methods", "values": {"payment_id": "PM2", "user_id": "U1"}}]}


def test_a_booking_change_planned_without_the_booking_gets_one_of_the_user_s_own(tmp_path: Path) -> None:
    run = Populated(tmp_path, AIRLINE, CARDS_ONLY, cancel_booking, scenario=CANCEL_BOOKING)

    rows = run.event.user_rows
    (user,) = rows["users"]
    (booking,) = rows["reservations"]
    assert booking["user_id"] == user["user_id"]
    assert [f["reservation_id"] for f in rows["reservation_flights"]] == [booking["reservation_id"]]
    assert run.event.expected is not None  # the change now has a booking to act on
    assert [c.tool for c in run.event.expected.calls][-1] == "cancel_reservation"


def test_a_booking_the_plan_names_only_in_its_segments_is_the_one_the_change_acts_on(tmp_path: Path) -> None:
    segments_only = {"entities": [{"symbol": "U1", "description": "a gold member"},
                                  {"symbol": "R1", "description": "U1's booking"}],
                     "rows": [{"table": "users", "values": {"user_id": "U1", "membership": "gold"}},
                              {"table": "reservation_flights", "values": {"reservation_id": "R1", "position": 0}}]}
    run = Populated(tmp_path, AIRLINE, segments_only, cancel_booking, scenario=CANCEL_BOOKING)

    (booking,) = run.event.user_rows["reservations"]  # its forgotten parent, and no second one
    assert {f["reservation_id"] for f in run.event.user_rows["reservation_flights"]} == {booking["reservation_id"]}


def test_an_order_cancel_planned_with_the_customer_alone_gets_an_order_whose_parts_agree(tmp_path: Path) -> None:
    def cancel_order(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        order, _ = order_and_line(rows)
        return proposal(call("get_order", order_id=order), call("cancel_order", ("P01",), order_id=order))

    customer_only = {"entities": [{"symbol": "C1", "description": "a customer"}],
                     "rows": [{"table": "store_customers", "values": {"customer_id": "C1"}}]}
    run = Populated(tmp_path, store_environment(), customer_only, cancel_order, scenario=CANCEL_ORDER)

    rows = run.event.user_rows
    (customer,) = rows["store_customers"]
    (order,) = rows["store_orders"]
    assert order["customer_id"] == customer["customer_id"]
    assert {line["order_id"] for line in rows["store_order_lines"]} == {order["order_id"]}
    assert {payment["order_id"] for payment in rows["store_payments"]} == {order["order_id"]}
    assert run.broken(run.event.database) == []
    assert "hold no order_id" not in (run.event.expected_error or "")


def test_nothing_is_added_for_a_table_the_plan_holds_or_an_argument_that_names_no_table(tmp_path: Path) -> None:
    tables = build_world(tmp_path).tables
    planned = [("store_orders", {"order_id": Symbol("O1")})]
    entities = {"O1": "an order"}

    assert add_acted_on(planned, ["order_id", "reason"], entities, tables) == planned
    grown = add_acted_on([], ["order_id"], entities, tables)
    assert grown == [("store_orders", {"order_id": Symbol("SO1")})] and "SO1" in entities


def test_copies_of_the_user_are_dropped_so_the_added_booking_gets_its_flights(tmp_path: Path) -> None:
    alike = {"table": "users", "values": {"first_name": "John", "last_name": "Doe", "membership": "silver"}}
    copies = {"entities": [{"symbol": f"U{n}", "description": "John's profile"} for n in range(1, 6)],
              "rows": [{"table": alike["table"], "values": {"user_id": f"U{n}", **alike["values"]}}
                       for n in range(1, 6)] + [{"table": "payment_methods", "values": {"payment_id": "PM1"}}]}
    run = Populated(tmp_path, AIRLINE, copies, cancel_booking, scenario=CANCEL_BOOKING)

    rows = run.event.user_rows
    (user,) = rows["users"]
    (booking,) = rows["reservations"]
    assert booking["user_id"] == user["user_id"] and rows["reservation_flights"]
    assert run.event.expected is not None, run.event.expected_error


def test_only_unnamed_top_level_copies_go_a_customer_s_two_alike_orders_stay(tmp_path: Path) -> None:
    tables = build_world(tmp_path).tables
    customer = {"name": "Ada Li", "email": "ada@example.com"}
    planned = [("store_customers", {"customer_id": Symbol("C1"), **customer}),
               ("store_customers", {"customer_id": Symbol("C2"), **customer}),
               ("store_customers", {"customer_id": Symbol("C3"), **customer}),
               ("store_customers", {"customer_id": Symbol("C4"), "name": "Bo Li"}),
               ("store_orders", {"order_id": Symbol("O1"), "customer_id": Symbol("C1"), "status": "pending"}),
               ("store_orders", {"order_id": Symbol("O2"), "customer_id": Symbol("C1"), "status": "pending"}),
               ("store_orders", {"order_id": Symbol("O3"), "customer_id": Symbol("C3"), "status": "pending"})]
    entities = {name: "" for name in ("C1", "C2", "C3", "C4", "O1", "O2", "O3")}

    kept = drop_copies(planned, entities, tables)
    assert [cells.get("order_id", cells.get("customer_id")) for _, cells in kept] == [
        Symbol(name) for name in ("C1", "C3", "C4", "O1", "O2", "O3")]  # C3 has an order; orders refer to a customer
    assert "C2" not in entities and "C3" in entities
