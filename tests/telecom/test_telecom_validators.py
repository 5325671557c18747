"""Validators of generated carrier rows: they reject inconsistencies with a message a generator can act on, and
repair slips that have one obvious fix."""

from typing import Any

import pytest

from intellagent.environment import Environment
from tests.telecom.conftest import DANA, SUSPENDED, World

CUSTOMER = dict(customer_id="87654321", full_name="Ravi Rao", date_of_birth="1990-02-03", email="ravi@example.com",
                street="1 Elm St", city="Salem", state="OR", zip_code="97301",
                payment_methods=[{"type": "credit_card", "last_four": "9876", "expires": "2026-01"}])
PLAN = dict(plan_id="max_80", name="Max 80 GB", monthly_price=75.0, data_limit_gb=80.0, refuel_price_per_gb=2.0,
            roaming_price_per_day=5.0)
LINE = dict(phone_number="9715550199", customer_id=DANA, plan_id="starter_5", status="active", data_used_gb=1.0,
            data_refueled_gb=0.0, roaming_enabled=False)
CHARGES = [{"description": "Starter 5 GB plan, line 9715550199", "amount": 25.0}]
BILL = dict(bill_id="700000009", customer_id=DANA, period="2025-02", status="overdue", amount=25.0, charges=CHARGES)
PHONE = dict(phone_number=SUSPENDED, model="iPhone 15", abroad=False, airplane_mode=False, sim="active",
             registered=False, mobile_data=True, data_roaming=False, network_mode="5g_auto",
             apn={"name": "kestrel.internet", "mmsc": "http://mms.kestrel.example/mms"})


def validated(telecom: Environment, world: World, table: str, **values: Any) -> tuple[list[str], Any]:
    """The problems of a proposed row, and the row as the validators left it."""
    row = telecom.table(table)(**values)
    with telecom.session(world.path) as session:
        return telecom.validate(row, session), row


@pytest.mark.parametrize(("table", "values"), [("customers", CUSTOMER), ("plans", PLAN), ("lines", LINE),
                                               ("bills", BILL), ("phones", PHONE)])
def test_a_consistent_row_passes(telecom: Environment, world: World, table: str, values: dict[str, Any]) -> None:
    assert validated(telecom, world, table, **values)[0] == []


@pytest.mark.parametrize(
    ("table", "values", "message"),
    [
        ("customers", {**CUSTOMER, "customer_id": "8765432"}, "customer_id '8765432' must be 8 digits"),
        ("customers", {**CUSTOMER, "email": "ravi.example.com"}, "is not an e-mail address"),
        ("customers", {**CUSTOMER, "payment_methods": []}, "payment_methods must list at least one card"),
        ("customers", {**CUSTOMER, "payment_methods": [{"type": "credit_card", "last_four": "9876"}]},
         "exactly 'type', 'last_four' and 'expires'"),
        ("customers", {**CUSTOMER, "payment_methods": [{**CUSTOMER["payment_methods"][0], "expires": "01/26"}]},
         "must be the last month it works, 'YYYY-MM'"),
        ("customers", {**CUSTOMER, "payment_methods": [*CUSTOMER["payment_methods"], {
            "type": "debit_card", "last_four": "9876", "expires": "2027-01"}]}, "end in the same four digits"),
        ("plans", {**PLAN, "data_limit_gb": None}, "leave refuel_price_per_gb empty"),
        ("plans", {**PLAN, "refuel_price_per_gb": None}, "needs refuel_price_per_gb"),
        ("lines", {**LINE, "phone_number": "971-555-0199"}, "must be 10 digits, no spaces or signs"),
        ("lines", {**LINE, "status": "suspended"}, "'non_payment', 'customer_request', 'lost_or_stolen'"),
        ("lines", {**LINE, "status": "suspended", "suspension_reason": "non_payment"}, "needs suspended_on"),
        ("lines", {**LINE, "status": "suspended", "suspension_reason": "non_payment", "suspended_on": "2025-07-01"},
         "is after today, 2025-06-12"),
        ("lines", {**LINE, "data_refueled_gb": 5.5}, "between 0 and 5 GB"),
        ("lines", {**LINE, "plan_id": "unlimited", "data_refueled_gb": 1.0}, "is unlimited"),
        ("bills", {**BILL, "amount": 30.0}, "amount 30.0 is not the sum of the charges, 25.0"),
        ("bills", {**BILL, "charges": [{"description": "plan"}]}, "'description' (text) and 'amount' (dollars)"),
        ("bills", {**BILL, "period": "2025-07"}, "2025-06 or before"),
        ("bills", {**BILL, "period": "2025-05"}, "is due 2025-06-21, not before today 2025-06-12"),
        ("bills", {**BILL, "status": "open"}, "was due 2025-03-21, before today 2025-06-12"),
        ("bills", {**BILL, "status": "pending"}, "only this month's bill (2025-06) is pending"),
        ("bills", {**BILL, "period": "2025-06"}, "is not issued yet: its status is 'pending'"),
        ("bills", {**BILL, "status": "paid", "paid_on": "2025-06-05"}, "needs paid_on ('YYYY-MM-DD') and paid_with"),
        ("bills", {**BILL, "status": "paid", "paid_on": "2025-02-20", "paid_with": "9876"},
         "must fall between the issue day 2025-03-01 and today"),
        ("bills", {**BILL, "period": "2025-05", "status": "open"}, "already has bill 700000002 for 2025-05"),
        ("phones", {**PHONE, "sim": "ejected"}, "sim 'ejected' is not one of 'active', 'missing', 'locked'"),
        ("phones", {**PHONE, "network_mode": "lte"}, "network_mode 'lte' is not one of"),
        ("phones", {**PHONE, "apn": {"name": "kestrel.internet"}}, "apn must be an object with text 'name' and 'mmsc'"),
    ],
)
def test_an_inconsistent_row_is_rejected_with_what_to_change(
    telecom: Environment, world: World, table: str, values: dict[str, Any], message: str
) -> None:
    problems, _ = validated(telecom, world, table, **values)
    assert any(message in problem for problem in problems), problems


def test_an_active_line_keeps_no_suspension_and_a_capitalised_status_is_repaired(
    telecom: Environment, world: World
) -> None:
    slips = {"status": "Active ", "suspension_reason": "non_payment", "suspended_on": "2025-06-04"}
    problems, line = validated(telecom, world, "lines", **{**LINE, **slips})
    assert problems == []
    assert (line.status, line.suspension_reason, line.suspended_on) == ("active", None, None)


def test_an_issued_bills_dates_follow_from_its_month(telecom: Environment, world: World) -> None:
    problems, bill = validated(telecom, world, "bills", **{**BILL, "issued_on": "2025-02-28", "due_on": None})
    assert problems == []
    assert (bill.issued_on, bill.due_on) == ("2025-03-01", "2025-03-21")


@pytest.mark.parametrize("fault", [{"airplane_mode": True}, {"sim": "missing"}, {"sim": "locked"},
                                   {"phone_number": SUSPENDED}])
def test_a_phone_that_cannot_be_on_the_network_is_not_left_registered(
    telecom: Environment, world: World, fault: dict[str, Any]
) -> None:
    values = {**PHONE, "phone_number": "5035550100", "registered": True, **fault}
    problems, phone = validated(telecom, world, "phones", **values)
    assert problems == [] and phone.registered is False


def test_a_phone_on_an_active_line_may_stay_registered(telecom: Environment, world: World) -> None:
    problems, phone = validated(telecom, world, "phones", **{**PHONE, "phone_number": "5035550100", "registered": True})
    assert problems == [] and phone.registered is True
