"""What a team marks as personal is masked before any model or file sees it."""

from __future__ import annotations

import json

from intellagent.artifacts import Message, ToolCall
from intellagent.config import Redaction
from intellagent.production.redaction import redacted

EMAIL = "ana@example.com"


def conversation() -> list[Message]:
    result = json.dumps({"order_id": "A7", "customer": EMAIL, "card": {"last4": "4242"}})
    return [
        Message(role="user", content=f"I am {EMAIL}, call me at +1 555 0100. Cancel A7 please."),
        Message(role="chatbot", content=f"Found A7 for {EMAIL}, paid with the card ending 4242.",
                tool_calls=[ToolCall(id="c1", name="get_order", arguments={"order_id": "A7", "email": EMAIL},
                                     result=result)]),
    ]


def test_a_marked_field_is_masked_in_results_arguments_and_every_message_that_repeats_it() -> None:
    masked = redacted(conversation(), Redaction(fields=["customer", "last4"]))
    text = json.dumps([m.model_dump() for m in masked])

    assert EMAIL not in text and "4242" not in text
    assert masked[1].content == "Found A7 for [redacted-1], paid with the card ending [redacted-2]."
    assert json.loads(masked[1].tool_calls[0].result or "")["customer"] == "[redacted-1]"
    assert masked[1].tool_calls[0].arguments == {"order_id": "A7", "email": "[redacted-1]"}


def test_a_pattern_is_masked_in_every_text() -> None:
    masked = redacted(conversation(), Redaction(patterns=[r"\+1 555 \d{4}"]))
    assert masked[0].content == f"I am {EMAIL}, call me at [redacted-1]. Cancel A7 please."


def test_what_is_not_marked_is_left_as_it_was() -> None:
    original = conversation()
    assert redacted(original, Redaction(fields=["nothing_here"])) == original
    assert redacted(original, Redaction()) == original


def test_a_pattern_does_not_mask_the_number_of_a_mask_an_earlier_pattern_wrote() -> None:
    messages = [Message(role="user", content=f"I am {EMAIL}, my order is 1234567.")]

    masked = redacted(messages, Redaction(patterns=[r"\S+@\S+\.com", r"\d+"]))

    assert masked[0].content == "I am [redacted-1], my order is [redacted-2]."


def test_a_marked_value_that_is_a_mask_s_number_leaves_the_mask_whole() -> None:
    messages = [Message(role="chatbot", content=f"Sent 2 items to {EMAIL}.", tool_calls=[
        ToolCall(id="c1", name="ship", arguments={"quantity": 2, "email": EMAIL}, result="ok")])]

    masked = redacted(messages, Redaction(fields=["quantity", "email"], patterns=[r"\S+@\S+\.com"]))

    assert masked[0].content == "Sent [redacted-1] items to [redacted-2]."
    assert masked[0].tool_calls[0].arguments == {"quantity": "[redacted-1]", "email": "[redacted-2]"}
