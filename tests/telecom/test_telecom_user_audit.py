"""The audit of the simulated user on the carrier's world: the shapes of its line and bill ids are learnt from the
world itself, so an id the user makes up is told from one it was given, and what the customer's own phone tools
showed it is no invention."""

from __future__ import annotations

from intellagent.artifacts import Dialog, Event, Message, ToolCall
from intellagent.simulate.user_audit import read_faults
from tests.telecom.conftest import JOHN, PREMIUM_LINE

EVENT = Event(id="1", policies=["P1"], challenge=3,
              scenario=f"You are John Smith (customer {JOHN}). Your line {PREMIUM_LINE} was suspended for bill "
              "B1234321; you want it back, and will pay the bill to get it.",
              expected_behaviour="The agent asks for the payment, then lifts the suspension.",
              user_rows={"lines": [{"line_id": PREMIUM_LINE, "customer_id": JOHN}]})


def said(*user_messages: str) -> Dialog:
    transcript = [Message(role="chatbot", content="Hi, how can I help?")]
    for text in user_messages:
        transcript += [Message(role="user", content=text), Message(role="chatbot", content="Let me see.")]
    return Dialog(id="1", status="incomplete", reason="reached 4 user turns", transcript=transcript)


def test_the_ids_the_scenario_gave_are_no_invention(telecom, tau_template):
    given = said(f"My line {PREMIUM_LINE} is suspended; I can pay bill B1234321 now.")
    assert read_faults(telecom, EVENT, given, world=tau_template) == []


def test_a_bill_id_of_the_worlds_shape_that_no_source_gave_is_invented(telecom, tau_template):
    made_up = said(f"My line {PREMIUM_LINE} is suspended.", "Please also check bill B1077 for me.")
    (fault,) = read_faults(telecom, EVENT, made_up, world=tau_template)
    assert (fault.kind, fault.turn) == ("invented", 3) and "B1077" in fault.evidence


def test_what_the_customers_own_tools_showed_is_no_invention(telecom, tau_template):
    looked = said(f"My line {PREMIUM_LINE} is suspended.")
    shown = ToolCall(id="call_1", name="check_payment_request", arguments={},
                     result="You have a payment request for bill B1077 of 65.0 USD.")
    reported = Message(role="user", content="My phone shows a request to pay bill B1077.", tool_calls=[shown])
    assert read_faults(telecom, EVENT, looked.model_copy(update={"transcript": [*looked.transcript, reported]}),
                       world=tau_template) == []
