"""The telecom environment as its example config loads it, and one customer's account added to a seeded world.

Dana Whitfield (customer 12345678) holds three lines, each with its phone, and four bills:

    5035550100  everyday_15  active      all 15 GB used, nothing bought, no roaming
    5035550101  starter_5    suspended   for non-payment since 2025-06-04; contract to 2026-01-31
    5035550102  unlimited    active      roaming on; contract ended 2025-01-31

    700000000  2025-03  paid      700000001  2025-04  overdue (145.0)
    700000002  2025-05  open      700000003  2025-06  pending

Her credit card ends in 4242 (works until 2027-08), her debit card in 1111 (expired after 2025-02).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from intellagent.db_schemas.telecom import user_tools
from intellagent.db_schemas.telecom.schema import DEFAULT_APN, Bill, Customer, Line, Phone

from intellagent.config import load_config
from intellagent.environment import Environment, Tool, load_environment

DANA = "12345678"
DATA_USED_UP, SUSPENDED, CONTRACT_ENDED = "5035550100", "5035550101", "5035550102"
PAID, OVERDUE, OPEN, PENDING = "700000000", "700000001", "700000002", "700000003"
CARD, EXPIRED_CARD = "4242", "1111"
USER_TOOLS = [value for value in vars(user_tools).values() if isinstance(value, Tool)]


@pytest.fixture(scope="session")
def telecom() -> Environment:
    """The domain as configs/telecom.yml names it."""
    return load_environment(load_config("telecom.yml").environment)


@pytest.fixture(scope="session")
def template(telecom: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The world of seed 3 with Dana's account, built once; tests work on copies."""
    path = tmp_path_factory.mktemp("telecom") / "world.sqlite"
    telecom.create_database(path, seed=3)
    with telecom.session(path) as session:
        assert session.get(Customer, DANA) is None  # the seeded world does not already hold her
        session.add_all(dana_account())
    return path


@dataclass
class World:
    """One test's copy of the world, and the two sides' tools on it."""

    telecom: Environment
    path: Path

    def agent(self, name: str, **arguments: Any) -> str:
        """Call one of the chatbot's tools, as the chatbot would; the result it would see."""
        with self.telecom.session(self.path) as session:
            return self.telecom.call_tool(session, name, arguments)

    def agent_json(self, name: str, **arguments: Any) -> Any:
        """A chatbot tool's result, parsed."""
        return json.loads(self.agent(name, **arguments))

    def user(self, name: str, **arguments: Any) -> str:
        """Call one of the customer's tools on their phone; what the customer would see."""
        with self.telecom.session(self.path) as session:
            return self.telecom.call_tool(session, name, arguments, by="user")

    def row(self, table: type, *key: str) -> Any:
        """A row as stored now, detached from its session."""
        with self.telecom.session(self.path) as session:
            row = session.get(table, key if len(key) > 1 else key[0])
            return None if row is None else table.model_validate(row.model_dump())

    def change(self, table: type, key: str, **values: Any) -> None:
        """Set some columns of a stored row, as a scenario's world would have them."""
        with self.telecom.session(self.path) as session:
            row = session.get(table, key)
            for column, value in values.items():
                setattr(row, column, value)


@pytest.fixture
def world(telecom: Environment, template: Path, tmp_path: Path) -> World:
    path = tmp_path / "world.sqlite"
    shutil.copyfile(template, path)
    return World(telecom, path)


def dana_account() -> list[Any]:
    """Dana's customer row, lines, phones and bills."""
    plans = {"everyday_15": 40.0, "starter_5": 25.0, "unlimited": 80.0}
    lines = [
        Line(phone_number=DATA_USED_UP, customer_id=DANA, plan_id="everyday_15", status="active", data_used_gb=15.0,
             data_refueled_gb=0.0, roaming_enabled=False),
        Line(phone_number=SUSPENDED, customer_id=DANA, plan_id="starter_5", status="suspended",
             suspension_reason="non_payment", suspended_on="2025-06-04", contract_end="2026-01-31", data_used_gb=1.0,
             data_refueled_gb=0.0, roaming_enabled=False),
        Line(phone_number=CONTRACT_ENDED, customer_id=DANA, plan_id="unlimited", status="active",
             contract_end="2025-01-31", data_used_gb=30.0, data_refueled_gb=0.0, roaming_enabled=True),
    ]
    charges = [{"description": f"{plan} plan, line {line.phone_number}", "amount": plans[plan]}
               for line, plan in zip(lines, plans, strict=True)]
    bill = {"customer_id": DANA, "amount": 145.0, "charges": charges}
    return [
        Customer(customer_id=DANA, full_name="Dana Whitfield", date_of_birth="1985-04-02", email="dana@example.com",
                 street="12 Alder Street", city="Portland", state="OR", zip_code="97205",
                 payment_methods=[{"type": "credit_card", "last_four": CARD, "expires": "2027-08"},
                                  {"type": "debit_card", "last_four": EXPIRED_CARD, "expires": "2025-02"}]),
        *lines,
        *(healthy_phone(line.phone_number, registered=line.status == "active") for line in lines),
        Bill(bill_id=PAID, period="2025-03", status="paid", issued_on="2025-04-01", due_on="2025-04-21",
             paid_on="2025-04-10", paid_with=CARD, **bill),
        Bill(bill_id=OVERDUE, period="2025-04", status="overdue", issued_on="2025-05-01", due_on="2025-05-21", **bill),
        Bill(bill_id=OPEN, period="2025-05", status="open", issued_on="2025-06-01", due_on="2025-06-21", **bill),
        Bill(bill_id=PENDING, period="2025-06", status="pending", **bill),
    ]


def healthy_phone(phone_number: str, **changes: Any) -> Phone:
    """A phone at home with every setting as the carrier recommends."""
    values: dict[str, Any] = {
        "phone_number": phone_number, "model": "Pixel 8", "abroad": False, "airplane_mode": False, "sim": "active",
        "registered": True, "mobile_data": True, "data_roaming": False, "network_mode": "5g_auto",
        "apn": dict(DEFAULT_APN),
    }
    return Phone(**{**values, **changes})
