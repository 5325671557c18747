"""The chatbot's 15 tools on Dana's account: what each returns and writes, and its error for wrong arguments."""

import pytest
from intellagent.db_schemas.telecom.schema import Bill, Customer, Line
from sqlmodel import select

from intellagent.environment import Environment
from tests.telecom.conftest import (
    CARD,
    CONTRACT_ENDED,
    DANA,
    DATA_USED_UP,
    EXPIRED_CARD,
    OPEN,
    OVERDUE,
    PAID,
    PENDING,
    SUSPENDED,
    World,
)


def test_every_tool_has_a_schema_with_descriptions_and_without_the_session(telecom: Environment) -> None:
    for schema in telecom.tool_schemas():
        parameters = schema["function"]["parameters"]
        assert "session" not in parameters.get("properties", {}), schema["function"]["name"]
        assert all(p.get("description") for p in parameters.get("properties", {}).values())
    reason = telecom.tool("suspend_line").parameters["properties"]["reason"]
    assert reason["enum"] == ["customer_request", "lost_or_stolen"]
    assert telecom.tool("refuel_data").parameters["properties"]["gb_amount"]["type"] == "number"


@pytest.mark.parametrize("lookup", [("find_customer_by_phone", {"phone_number": CONTRACT_ENDED}),
                                    ("get_customer_details", {"customer_id": DANA})])
def test_a_customer_is_found_by_a_lines_number_or_by_id_with_lines_and_bills(world: World, lookup) -> None:
    name, arguments = lookup
    found = world.agent_json(name, **arguments)
    assert (found["customer_id"], found["full_name"]) == (DANA, "Dana Whitfield")
    assert found["lines"] == [DATA_USED_UP, SUSPENDED, CONTRACT_ENDED]
    assert found["bills"] == [PENDING, OPEN, OVERDUE, PAID]  # the latest month first
    assert [card["last_four"] for card in found["payment_methods"]] == [CARD, EXPIRED_CARD]


def test_a_customer_is_found_by_name_in_any_case_only_with_the_right_birth_date(world: World) -> None:
    found = world.agent_json("find_customer_by_name", full_name="dana  WHITFIELD", date_of_birth="1985-04-02")
    assert [customer["customer_id"] for customer in found] == [DANA]
    assert world.agent_json("find_customer_by_name", full_name="Dana Whitfield", date_of_birth="1985-04-03") == []


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("find_customer_by_phone", {"phone_number": "0000000000"}, "Error: no line with number 0000000000"),
        ("get_customer_details", {"customer_id": "00000000"}, "Error: no customer 00000000"),
        ("get_customer_details", {"customer": DANA}, "get_customer_details got unexpected arguments customer"),
        ("find_customer_by_name", {"full_name": "Dana Whitfield"}, "date_of_birth: Field required"),
        ("get_line_details", {"customer_id": "00000000", "phone_number": DATA_USED_UP}, "Error: no customer 00000000"),
        ("get_plan_details", {"plan_id": "gold"}, "Error: no plan gold"),
        ("get_bills", {"customer_id": "00000000"}, "Error: no customer 00000000"),
        ("get_bill_details", {"customer_id": DANA, "bill_id": "600000000"},
         f"Error: customer {DANA} has no bill 600000000"),
    ],
)
def test_a_lookup_with_wrong_arguments_says_what_is_wrong(world: World, name: str, arguments, error: str) -> None:
    assert error in world.agent(name, **arguments)


def test_a_line_or_bill_of_another_customer_is_not_shown(world: World) -> None:
    with world.telecom.session(world.path) as session:
        other = session.exec(select(Customer.customer_id).where(Customer.customer_id != DANA)).first()
    assert world.agent("get_line_details", customer_id=other, phone_number=DATA_USED_UP) == \
        f"Error: customer {other} has no line {DATA_USED_UP}"
    assert world.agent("get_bill_details", customer_id=other, bill_id=OPEN) == \
        f"Error: customer {other} has no bill {OPEN}"


def test_line_details_give_the_allowance_with_the_data_bought(world: World) -> None:
    line = world.agent_json("get_line_details", customer_id=DANA, phone_number=DATA_USED_UP)
    assert (line["status"], line["plan_id"], line["data_used_gb"], line["data_allowance_gb"]) == (
        "active", "everyday_15", 15.0, 15.0)
    suspended = world.agent_json("get_line_details", customer_id=DANA, phone_number=SUSPENDED)
    assert (suspended["status"], suspended["suspension_reason"], suspended["suspended_on"]) == (
        "suspended", "non_payment", "2025-06-04")
    assert world.agent_json("get_line_details", customer_id=DANA, phone_number=CONTRACT_ENDED)["data_allowance_gb"] \
        is None


def test_plans_are_listed_cheapest_first_and_shown_one_by_one(world: World) -> None:
    plans = world.agent_json("list_plans")
    assert [plan["plan_id"] for plan in plans] == ["starter_5", "everyday_15", "max_40", "unlimited"]
    assert world.agent_json("get_plan_details", plan_id="unlimited") == plans[-1]
    assert plans[-1]["data_limit_gb"] is None and plans[-1]["refuel_price_per_gb"] is None


def test_bills_are_listed_latest_first_and_shown_one_by_one(world: World) -> None:
    bills = world.agent_json("get_bills", customer_id=DANA)
    assert [(bill["period"], bill["status"]) for bill in bills] == [
        ("2025-06", "pending"), ("2025-05", "open"), ("2025-04", "overdue"), ("2025-03", "paid")]
    assert world.agent_json("get_bill_details", customer_id=DANA, bill_id=OVERDUE) == bills[2]


def test_a_refuel_adds_the_data_and_charges_this_months_bill(world: World) -> None:
    done = world.agent_json("refuel_data", customer_id=DANA, phone_number=DATA_USED_UP, gb_amount=1.5)
    assert done == {"phone_number": DATA_USED_UP, "added_gb": 1.5, "data_refueled_gb": 1.5, "charge": 6.0,
                    "bill_id": PENDING}
    assert world.row(Line, DATA_USED_UP).data_refueled_gb == 1.5
    bill = world.row(Bill, PENDING)
    assert bill.amount == 151.0 and bill.charges[-1] == {"description": f"Extra data 1.5 GB, line {DATA_USED_UP}",
                                                          "amount": 6.0}


def test_a_refuel_opens_this_months_bill_when_there_is_none(world: World) -> None:
    with world.telecom.session(world.path) as session:
        session.delete(session.get(Bill, PENDING))
    done = world.agent_json("refuel_data", customer_id=DANA, phone_number=DATA_USED_UP, gb_amount=2)
    bill = world.row(Bill, done["bill_id"])
    assert (bill.customer_id, bill.period, bill.status, bill.amount) == (DANA, "2025-06", "pending", 8.0)
    assert len(bill.bill_id) == 9 and bill.bill_id.isdigit()


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"phone_number": CONTRACT_ENDED, "gb_amount": 1}, "Error: plan unlimited has unlimited data"),
        ({"phone_number": DATA_USED_UP, "gb_amount": 0}, "Error: gb_amount must be more than 0 GB"),
        ({"phone_number": DATA_USED_UP, "gb_amount": "lots"}, "gb_amount: Input should be a valid number"),
        ({"phone_number": "9999999999", "gb_amount": 1}, f"Error: customer {DANA} has no line 9999999999"),
    ],
)
def test_a_refuel_that_cannot_be_made_changes_nothing(world: World, arguments, error: str) -> None:
    assert error in world.agent("refuel_data", customer_id=DANA, **arguments)
    assert world.row(Bill, PENDING).amount == 145.0
    assert world.row(Line, DATA_USED_UP).data_refueled_gb == 0.0


def test_roaming_is_enabled_and_disabled_on_the_line(world: World) -> None:
    assert world.agent("enable_roaming", customer_id=DANA, phone_number=DATA_USED_UP) == \
        f"Roaming enabled on line {DATA_USED_UP}"
    assert world.row(Line, DATA_USED_UP).roaming_enabled is True
    assert world.agent("enable_roaming", customer_id=DANA, phone_number=DATA_USED_UP) == \
        f"Roaming was already enabled on line {DATA_USED_UP}"
    assert world.agent("disable_roaming", customer_id=DANA, phone_number=DATA_USED_UP) == \
        f"Roaming disabled on line {DATA_USED_UP}"
    assert world.row(Line, DATA_USED_UP).roaming_enabled is False


def test_roaming_of_a_line_not_the_customers_is_refused(world: World) -> None:
    assert world.agent("enable_roaming", customer_id=DANA, phone_number="1234") == \
        f"Error: customer {DANA} has no line 1234"


def test_a_line_is_suspended_from_today_and_resumed(world: World) -> None:
    assert world.agent_json("suspend_line", customer_id=DANA, phone_number=DATA_USED_UP, reason="lost_or_stolen") == {
        "phone_number": DATA_USED_UP, "status": "suspended", "suspension_reason": "lost_or_stolen",
        "suspended_on": "2025-06-12"}
    assert world.agent_json("resume_line", customer_id=DANA, phone_number=DATA_USED_UP) == {
        "phone_number": DATA_USED_UP, "status": "active"}
    line = world.row(Line, DATA_USED_UP)
    assert (line.status, line.suspension_reason, line.suspended_on) == ("active", None, None)


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("suspend_line", {"phone_number": SUSPENDED, "reason": "customer_request"},
         f"Error: line {SUSPENDED} is suspended; only an active line can be suspended"),
        ("suspend_line", {"phone_number": DATA_USED_UP, "reason": "non_payment"},
         "reason: Input should be 'customer_request' or 'lost_or_stolen'"),
        ("resume_line", {"phone_number": DATA_USED_UP}, f"Error: line {DATA_USED_UP} is active, not suspended"),
    ],
)
def test_a_suspension_or_resumption_that_cannot_be_made_changes_nothing(world: World, name, arguments, error) -> None:
    before = (world.row(Line, SUSPENDED), world.row(Line, DATA_USED_UP))
    assert error in world.agent(name, customer_id=DANA, **arguments)
    assert (world.row(Line, SUSPENDED), world.row(Line, DATA_USED_UP)) == before


def test_the_tools_do_not_enforce_the_policy_they_leave_it_to_the_chatbot(world: World) -> None:
    # Resuming a line while its bill is overdue, and paying with an expired card, break the policy; the
    # checks catch them (test_telecom_checks.py), so the chatbot is what is tested, not the tools.
    assert world.agent_json("resume_line", customer_id=DANA, phone_number=SUSPENDED)["status"] == "active"
    assert world.agent_json("pay_bill", customer_id=DANA, bill_id=OPEN, card_last_four=EXPIRED_CARD)["status"] == "paid"


def test_a_bill_is_paid_in_full_with_a_card_on_file(world: World) -> None:
    assert world.agent_json("pay_bill", customer_id=DANA, bill_id=OVERDUE, card_last_four=CARD) == {
        "bill_id": OVERDUE, "status": "paid", "amount": 145.0, "paid_with": CARD}
    bill = world.row(Bill, OVERDUE)
    assert (bill.status, bill.paid_on, bill.paid_with) == ("paid", "2025-06-12", CARD)


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"bill_id": PAID, "card_last_four": CARD}, f"Error: bill {PAID} was already paid on 2025-04-10"),
        ({"bill_id": PENDING, "card_last_four": CARD}, f"Error: bill {PENDING} is this month's and not issued yet"),
        ({"bill_id": OPEN, "card_last_four": "0000"}, f"Error: no card ending in 0000 on file for customer {DANA}"),
        ({"bill_id": "600000000", "card_last_four": CARD}, f"Error: customer {DANA} has no bill 600000000"),
        ({"bill_id": OPEN}, "card_last_four: Field required"),
    ],
)
def test_a_payment_that_cannot_be_made_changes_nothing(world: World, arguments, error: str) -> None:
    before = world.agent_json("get_bills", customer_id=DANA)
    assert error in world.agent("pay_bill", customer_id=DANA, **arguments)
    assert world.agent_json("get_bills", customer_id=DANA) == before


def test_the_transfer_hands_over_and_ends_the_dialog(world: World, telecom: Environment) -> None:
    assert world.agent("transfer_to_human_agents", summary="Wants to renew a contract.") == "Transfer successful"
    assert world.agent("transfer_to_human_agents") == \
        "Error: invalid arguments for transfer_to_human_agents: summary: Field required"
    assert telecom.tool("transfer_to_human_agents").ends_dialog
