"""The chatbot's tools against τ²-bench's carrier tools, on hand-picked calls over τ²-bench's own data: looking
customers up, lines, bills and data use, suspending and resuming, roaming, refuelling data and asking for a
payment; and each side's tools write only their own side."""

from __future__ import annotations

from intellagent.db_schemas.telecom.schema import Bill, Line

from tests.telecom.conftest import BASIC_LINE, JOHN, NUMBER, PREMIUM_LINE, SUSPENDED_LINE, World


def test_a_customer_is_found_by_a_lines_number_or_the_contact_number(world: World) -> None:
    john = world.agent_json("get_customer_by_phone", phone_number=NUMBER)
    assert john["customer_id"] == JOHN and john["line_ids"] == ["L1001", "L1002", "L1003"]
    assert john["bill_ids"] == ["B1001", "B1002", "B1003"]
    assert world.agent_json("get_customer_by_phone", phone_number="555-123-1002")["customer_id"] == "C1002"
    assert world.agent("get_customer_by_phone", phone_number="555-000-0000") == (
        "Error: Customer with phone number 555-000-0000 not found")


def test_a_name_lookup_needs_the_date_of_birth_and_ignores_case(world: World) -> None:
    assert [c["customer_id"] for c in world.agent_json("get_customer_by_name", full_name="john smith",
                                                       dob="1985-06-15")] == [JOHN]
    assert world.agent_json("get_customer_by_name", full_name="John Smith", dob="1985-06-16") == []


def test_details_by_id_follow_the_ids_first_letter(world: World) -> None:
    line = world.agent_json("get_details_by_id", id=PREMIUM_LINE)
    assert line["plan_id"] == "P1002" and line["roaming_enabled"] is True and "customer_id" not in line
    assert world.agent_json("get_details_by_id", id="P1003")["data_refueling_price_per_gb"] == 0.1
    assert world.agent_json("get_details_by_id", id="D1003")["device_type"] == "tablet"
    assert world.agent("get_details_by_id", id="X1") == "Error: Unknown ID format or type: X1"


def test_bills_are_listed_latest_issued_first_within_the_limit(world: World) -> None:
    bills = world.agent_json("get_bills_for_customer", customer_id=JOHN)
    assert [(b["bill_id"], b["status"]) for b in bills] == [("B1003", "Draft"), ("B1002", "Issued"),
                                                             ("B1001", "Paid")]
    assert len(world.agent_json("get_bills_for_customer", customer_id=JOHN, limit=1)) == 1


def test_data_usage_gives_the_plans_limit_and_the_cycles_end(world: World) -> None:
    assert world.agent_json("get_data_usage", customer_id=JOHN, line_id=PREMIUM_LINE) == {
        "line_id": PREMIUM_LINE, "data_used_gb": 8.7, "data_limit_gb": 15.0, "data_refueling_gb": 0.0,
        "cycle_end_date": "2025-02-28"}
    assert world.agent("get_data_usage", customer_id=JOHN, line_id="L1004") == (
        "Error: Line L1004 not found for customer C1001")


def test_only_an_active_line_is_suspended_and_only_a_suspended_one_resumed(world: World) -> None:
    assert world.agent("suspend_line", customer_id=JOHN, line_id=SUSPENDED_LINE, reason="travel") == (
        "Error: Line must be active to suspend")
    suspended = world.agent_json("suspend_line", customer_id=JOHN, line_id=BASIC_LINE, reason="travel")
    assert suspended["message"] == "Line suspended successfully. $5/month holding fee will apply."
    assert suspended["line"]["suspension_start_date"] == "2025-02-25"
    assert world.agent("resume_line", customer_id=JOHN, line_id=PREMIUM_LINE) == (
        "Error: Line must be suspended to resume")
    assert world.agent_json("resume_line", customer_id=JOHN, line_id=SUSPENDED_LINE)["line"]["status"] == "Active"
    assert world.row(Line, SUSPENDED_LINE).suspension_start_date is None


def test_roaming_switches_say_when_nothing_changed(world: World) -> None:
    assert world.agent("enable_roaming", customer_id=JOHN, line_id=PREMIUM_LINE) == "Roaming was already enabled"
    assert world.agent("enable_roaming", customer_id=JOHN, line_id=BASIC_LINE) == "Roaming enabled successfully"
    assert world.agent("disable_roaming", customer_id=JOHN, line_id=BASIC_LINE) == "Roaming disabled successfully"
    assert world.agent("disable_roaming", customer_id=JOHN, line_id=BASIC_LINE) == "Roaming was already disabled"


def test_refuelled_data_is_charged_on_the_draft_bill_at_the_plans_price(world: World) -> None:
    refuelled = world.agent_json("refuel_data", customer_id=JOHN, line_id=BASIC_LINE, gb_amount=2.0)
    assert refuelled == {"message": "Successfully added 2.0 GB of data for line L1001 for $10.00",
                         "new_data_refueling_gb": 2.0, "charge": 10.0}
    draft = world.row(Bill, "B1003")
    assert draft.total_due == 10.0 and draft.line_items == [
        {"description": "Data refueling: 2.0 GB at $5.0/GB", "amount": 10.0, "date": "2025-02-25",
         "item_type": "Charge"}]
    assert world.agent("refuel_data", customer_id=JOHN, line_id=BASIC_LINE, gb_amount=0) == (
        "Error: Refuel amount must be positive")


def test_a_customer_without_a_draft_bill_gets_one_for_next_month(world: World) -> None:
    world.agent("refuel_data", customer_id="C1002", line_id="L1004", gb_amount=1.0)
    (draft,) = [b for b in world.agent_json("get_bills_for_customer", customer_id="C1002") if b["status"] == "Draft"]
    assert (draft["period_start"], draft["period_end"], draft["due_date"]) == ("2025-03-01", "2025-03-31",
                                                                                "2025-03-15")
    assert draft["total_due"] == 0.1


def test_one_bill_at_a_time_awaits_payment_and_the_request_checks_no_status(world: World) -> None:
    assert world.agent("send_payment_request", customer_id=JOHN, bill_id="B1001") == (
        "Payment request sent to the customer for bill B1001")  # a paid bill: the chatbot's to check, not the tool's
    assert world.row(Bill, "B1001").status == "Awaiting Payment"
    assert world.agent("send_payment_request", customer_id=JOHN, bill_id="B1002") == (
        "Error: A bill is already awaiting payment for this customer")
    assert world.agent("send_payment_request", customer_id="C1002", bill_id="B1002") == (
        "Error: Bill B1002 not found for customer C1002")


def test_the_transfer_to_a_person_ends_the_dialog(world: World) -> None:
    assert world.agent("transfer_to_human_agents", summary="SIM locked") == "Transfer successful"
    assert world.telecom.tool("transfer_to_human_agents").ends_dialog


def test_neither_side_reaches_the_others_tools(world: World) -> None:
    assert world.agent("toggle_airplane_mode").startswith("Error: unknown tool 'toggle_airplane_mode'")
    assert world.user("resume_line", customer_id=JOHN, line_id=SUSPENDED_LINE).startswith(
        "Error: unknown tool 'resume_line'")
