"""Rollouts on two domains with shapes the shop lacks, the chatbot careful on its first candidate at each turn:

- the store (tests/store: JSON columns, ids of digits, rows whose references agree): a customer found by e-mail
  wants a pending order cancelled;
- the airline (τ-bench's data): Chen Jackson wants reservation 4WQ150 cancelled.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from intellagent.db_schemas.airline.tau import build_tau_database

from intellagent.artifacts import Event, ExpectedCall, ExpectedOutcome
from intellagent.config import Config, load_config
from intellagent.environment import Environment
from tests.conftest import ROOT, SHARED_DATA
from tests.rollouts.shop_rollouts import candidate_seeds, careful_chatbot, customer, folder_with, roll_out, script_of
from tests.simulate.scripted_dialogs import call
from tests.store import build_world, config

ROLLOUTS = {"enabled": True, "beam": 2, "branch": 2, "max_turns": 3}
RESERVATION = "4WQ150"  # a business round trip of chen_jackson_3290 in τ-bench's data


def pending_order(background: Path) -> tuple[str, str]:
    """A pending order of the background world and its customer's e-mail."""
    with sqlite3.connect(background) as connection:
        found = connection.execute(
            "SELECT o.order_id, c.email FROM store_orders o JOIN store_customers c USING (customer_id) "
            "WHERE o.status = 'pending' ORDER BY o.order_id LIMIT 1").fetchone()
    assert found is not None
    return found


def store_event(tmp_path: Path, cfg: Config) -> tuple[Path, str, str]:
    """A run folder holding one event on the store's background world: a customer wants a pending order cancelled,
    and the expected outcome finds them by e-mail and cancels it; with the order and the e-mail."""
    background = build_world(tmp_path).background
    order, email = pending_order(background)
    expected = ExpectedOutcome(calls=[ExpectedCall(tool="find_customer", arguments={"email": email}, writes=False),
                                      ExpectedCall(tool="cancel_order", arguments={"order_id": order}, writes=True)],
                               world="events/S001.expected.delta.json")
    event = Event(id="S001", policies=["P1"], challenge=3, scenario=f"You want order {order} cancelled.",
                  expected_behaviour="The agent finds you by e-mail, asks, then cancels the order.",
                  user_rows={"store_customers": [{"email": email}]}, database="events/S001.sqlite", expected=expected)

    def copy_background(environment: Environment, database: Path) -> None:
        shutil.copyfile(background, database)

    return folder_with(tmp_path, cfg, [event], build=copy_background), order, email


def store_rollouts(tmp_path: Path) -> Path:
    """The store's event rolled out: its run folder."""
    cfg = config(tmp_path, workers=1, rollouts=ROLLOUTS)
    folder, order, email = store_event(tmp_path, cfg)
    chatbot = careful_chatbot(candidate_seeds(cfg, number=1), look_up=call("find_customer", email=email),
                              write=call("cancel_order", order_id=order))
    roll_out(cfg, folder, script_of(chatbot, customer(f"Please cancel order {order}; my e-mail is {email}.")),
             stages=("rollouts",))
    return folder


def airline_config(tmp_path: Path) -> Config:
    """The airline's tools on τ-bench's data, every role scripted, rolled out two by two over three turns."""
    return load_config({
        "name": "airline",
        "environment": {"policy": str(ROOT / "policies/airline.md"), "schema": "intellagent.db_schemas.airline.schema",
                        "tools": "intellagent.db_schemas.airline.tools",
                        "validators": "intellagent.db_schemas.airline.validators"},
        "llm": "scripted",
        "chatbot": {"llm": "scripted"},
        "workers": 1,
        "simulate": {"max_turns": 3, "max_critiques": 1},
        "rollouts": ROLLOUTS,
    }, base_dir=tmp_path)


def cancellation() -> Event:
    """Chen wants reservation 4WQ150 cancelled; a rule-keeping chatbot looks it up, asks, and cancels it."""
    expected = ExpectedOutcome(
        calls=[ExpectedCall(tool="get_reservation_details", arguments={"reservation_id": RESERVATION}, writes=False),
               ExpectedCall(tool="cancel_reservation", arguments={"reservation_id": RESERVATION}, writes=True,
                            policies=["P1"])],
        world="events/A001.expected.delta.json")
    return Event(id="A001", policies=["P1"], challenge=3, database="events/A001.sqlite", expected=expected,
                 scenario=f"You are Chen Jackson and want your reservation {RESERVATION} cancelled.",
                 expected_behaviour="The agent looks the reservation up, asks, then cancels it.",
                 user_rows={"reservations": [{"reservation_id": RESERVATION, "user_id": "chen_jackson_3290"}]})


def airline_folder(tmp_path: Path, config: Config) -> Path:
    """A run folder holding the cancellation on τ-bench's airline world."""
    def tau_world(environment: Environment, database: Path) -> None:
        build_tau_database(environment, SHARED_DATA / "tau_airline", database)

    return folder_with(tmp_path, config, [cancellation()], build=tau_world)


def airline_script(config: Config) -> object:
    """The chatbot careful on its first candidate (it looks the reservation up, asks, and cancels it once told
    yes), and Chen."""
    chatbot = careful_chatbot(candidate_seeds(config, number=1, event_id="A001"),
                              look_up=call("get_reservation_details", reservation_id=RESERVATION),
                              write=call("cancel_reservation", reservation_id=RESERVATION))
    return script_of(chatbot, customer(f"Please cancel my reservation {RESERVATION}."))


def airline_rollouts(tmp_path: Path) -> Path:
    """The airline's cancellation simulated and rolled out: its run folder."""
    config = airline_config(tmp_path)
    folder = airline_folder(tmp_path, config)
    roll_out(config, folder, airline_script(config))  # type: ignore[arg-type]
    return folder
