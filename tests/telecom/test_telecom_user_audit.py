"""The audit of the simulated user on the carrier's world, whose ids are digits only: the shapes of its bill and
phone numbers are learnt from the world itself, so a number the user makes up is told from one it was given."""

from __future__ import annotations

from intellagent.artifacts import Dialog, Event, Message, ToolCall
from intellagent.simulate.audit import read_faults
from tests.telecom.conftest import DANA, OVERDUE, SUSPENDED

EVENT = Event(id="1", policies=["P1"], challenge=3,
              scenario=f"You are Dana Whitfield (customer {DANA}). Your line {SUSPENDED} was suspended; you want it "
              f"back, and will pay the overdue bill {OVERDUE} to get it.",
              expected_behaviour="The agent finds the overdue bill, takes the payment, then lifts the suspension.",
              user_rows={"lines": [{"phone_number": SUSPENDED, "customer_id": DANA}]})


def said(*user_messages: str) -> Dialog:
    transcript = [Message(role="chatbot", content="Hi, how can I help?")]
    for text in user_messages:
        transcript += [Message(role="user", content=text), Message(role="chatbot", content="Let me see.")]
    return Dialog(id="1", status="incomplete", reason="reached 4 user turns", transcript=transcript)


def test_the_numbers_the_scenario_gave_are_no_invention(telecom, template):
    given = said(f"My line {SUSPENDED} is suspended; I can pay bill {OVERDUE} now.")
    assert read_faults(telecom, EVENT, given, world=template) == []


def test_a_bill_number_of_the_worlds_shape_that_no_source_gave_is_invented(telecom, template):
    made_up = said(f"My line {SUSPENDED} is suspended.", "Please also check bill 700000042 for me.")
    (fault,) = read_faults(telecom, EVENT, made_up, world=template)
    assert (fault.kind, fault.turn) == ("invented", 3) and "700000042" in fault.evidence


def test_a_quantity_is_not_read_as_an_id(telecom, template):
    plain = said(f"My line {SUSPENDED} has been off for 3 days and I used 15 of my gigabytes.")
    assert read_faults(telecom, EVENT, plain, world=template) == []


def test_what_the_customers_own_tools_showed_is_no_invention(telecom, template):
    looked = said(f"My line {SUSPENDED} is suspended.")
    shown = ToolCall(id="call_1", name="check_status_bar", arguments={"phone_number": SUSPENDED},
                     result="Status bar: No service. Bill 700000042 is shown in a notification.")
    reported = Message(role="user", content="My phone shows bill 700000042 in a notification.", tool_calls=[shown])
    assert read_faults(telecom, EVENT, looked.model_copy(update={"transcript": [*looked.transcript, reported]}),
                       world=template) == []
