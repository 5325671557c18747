"""The carrier's seeded base world: reproducible, valid, and holding every shape a scenario may start from."""

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from intellagent.environment import Environment, worlds


@pytest.fixture(scope="module")
def seeded(telecom: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("world") / "seed3.sqlite"
    telecom.create_database(path, seed=3)
    return path


@pytest.fixture(scope="module")
def content(telecom: Environment, seeded: Path) -> dict[str, list[dict]]:
    with telecom.session(seeded) as session:
        return telecom.dump(session)


def test_the_same_seed_gives_the_same_database(telecom: Environment, seeded: Path, tmp_path: Path) -> None:
    again, other = tmp_path / "again.sqlite", tmp_path / "other.sqlite"
    telecom.create_database(again, seed=3)
    telecom.create_database(other, seed=4)
    assert again.read_bytes() == seeded.read_bytes()
    assert worlds.root_digest(seeded) == worlds.root_digest(again) != worlds.root_digest(other)


def test_every_row_of_the_world_passes_the_validators(telecom: Environment, seeded: Path) -> None:
    with telecom.session(seeded) as session:
        assert list(telecom.broken_rows(session)) == []
    with sqlite3.connect(seeded) as connection:
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []


def test_a_few_dozen_customers_each_with_lines_bills_and_a_phone_per_line(content) -> None:
    assert len(content["plans"]) == 4 and 30 <= len(content["customers"]) <= 40
    holders = Counter(line["customer_id"] for line in content["lines"])
    billed = Counter(bill["customer_id"] for bill in content["bills"])
    assert set(holders) == set(billed) == {customer["customer_id"] for customer in content["customers"]}
    assert set(billed.values()) == {4}  # March to June
    assert sorted(phone["phone_number"] for phone in content["phones"]) == sorted(
        line["phone_number"] for line in content["lines"])


def test_ids_are_digits_of_their_own_lengths(content) -> None:
    for table, column, length in (("customers", "customer_id", 8), ("lines", "phone_number", 10),
                                  ("bills", "bill_id", 9)):
        values = [row[column] for row in content[table]]
        assert all(value.isdigit() and len(value) == length for value in values), table
        assert len(set(values)) == len(values)


def test_the_json_columns_hold_lists_of_objects_and_objects(content) -> None:
    assert all(customer["payment_methods"] and isinstance(customer["payment_methods"][0], dict)
               for customer in content["customers"])
    assert all(isinstance(bill["charges"], list) and bill["charges"] for bill in content["bills"])
    assert all(set(phone["apn"]) == {"name", "mmsc"} for phone in content["phones"])


def test_the_world_holds_every_billing_and_suspension_state(content) -> None:
    assert {bill["status"] for bill in content["bills"]} == {"pending", "open", "overdue", "paid"}
    assert {line["suspension_reason"] for line in content["lines"]} == {
        None, "non_payment", "customer_request", "lost_or_stolen"}
    plans = {plan["plan_id"]: plan for plan in content["plans"]}
    assert any(plans[line["plan_id"]]["data_limit_gb"] is not None
               and line["data_used_gb"] >= plans[line["plan_id"]]["data_limit_gb"] + line["data_refueled_gb"]
               for line in content["lines"])


def test_most_phones_work_and_each_fault_of_the_procedure_appears(content) -> None:
    phones = content["phones"]
    faults = {
        "airplane mode on": [p for p in phones if p["airplane_mode"]],
        "SIM out of its slot": [p for p in phones if p["sim"] == "missing"],
        "SIM locked": [p for p in phones if p["sim"] == "locked"],
        "mobile data off": [p for p in phones if not p["mobile_data"]],
        "data roaming off abroad": [p for p in phones if p["abroad"] and not p["data_roaming"]],
        "slow network mode": [p for p in phones if p["network_mode"] in ("3g_auto", "2g_only")],
        "wrong APN": [p for p in phones if p["apn"]["name"] != "kestrel.internet"],
    }
    assert [fault for fault, found in faults.items() if not found] == []
    faulty = {p["phone_number"] for found in faults.values() for p in found}
    assert len(faulty) < len(phones) / 2
