"""The carrier's seeded base world: reproducible, valid, and holding the shapes a scenario may start from; and the
validators refuse a malformed row with a message a generator can act on."""

import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from intellagent.db_schemas.telecom.schema import Bill, Phone

from intellagent.environment import Environment, worlds


@pytest.fixture(scope="module")
def content(telecom: Environment, template: Path) -> dict[str, list[dict]]:
    with telecom.session(template) as session:
        return telecom.dump(session)


def test_the_same_seed_gives_the_same_database(telecom: Environment, template: Path, tmp_path: Path) -> None:
    again, other = tmp_path / "again.sqlite", tmp_path / "other.sqlite"
    telecom.create_database(again, seed=3)
    telecom.create_database(other, seed=4)
    assert again.read_bytes() == template.read_bytes()
    assert worlds.root_digest(template) == worlds.root_digest(again) != worlds.root_digest(other)


def test_every_row_of_the_world_passes_the_validators(telecom: Environment, template: Path) -> None:
    with telecom.session(template) as session:
        assert list(telecom.broken_rows(session)) == []
    with sqlite3.connect(template) as connection:
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []


def test_customers_hold_lines_and_three_bills_and_one_phone_is_in_hand(content) -> None:
    assert len(content["plans"]) == 5 and len(content["customers"]) == 24
    holders = Counter(line["customer_id"] for line in content["lines"])
    billed = Counter(bill["customer_id"] for bill in content["bills"])
    assert set(holders) == set(billed) == {customer["customer_id"] for customer in content["customers"]}
    assert set(billed.values()) == {3}  # January, February, and March's draft
    (phone,) = content["phones"]
    assert phone["phone_number"] in {line["phone_number"] for line in content["lines"] if line["status"] == "Active"}


def test_the_world_holds_overdue_bills_suspended_lines_and_ended_contracts(content) -> None:
    assert {bill["status"] for bill in content["bills"]} >= {"Draft", "Paid", "Overdue"}
    assert any(line["status"] == "Suspended" for line in content["lines"])
    assert any(line["contract_end_date"] < "2025-02-25" for line in content["lines"])


def test_a_bill_whose_total_is_not_the_sum_of_its_items_is_refused(telecom: Environment, template: Path) -> None:
    bill = Bill(bill_id="B9", customer_id="C2001", period_start="2025-02-01", period_end="2025-02-28",
                issue_date="2025-02-05", due_date="2025-02-19", total_due=10.0, status="issued",
                line_items=[{"description": "Plan", "amount": 12.5, "date": "2025-02-05", "item_type": "Plan Charge"}])
    with telecom.session(template) as session:
        problems = telecom.validate(bill, session)
    assert problems == ["total_due 10.0 is not the sum of the line items, 12.5; make them agree"]
    assert bill.status == "Issued"  # the case is repaired in place


def test_the_phone_is_always_row_one_and_its_settings_known_values(telecom: Environment, template: Path) -> None:
    phone = Phone(id=7, network_mode_preference="5g_only")
    with telecom.session(template) as session:
        problems = telecom.validate(phone, session)
    assert phone.id == 1
    assert problems == ["network_mode_preference '5g_only' is not one of '4g_5g_preferred', "
                        "'4g_only', '3g_only', '2g_only'; use one of them"]
