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
    masked = redacted(conversation(), Redaction(personal=[], fields=["customer", "last4"]))
    text = json.dumps([m.model_dump() for m in masked])

    assert EMAIL not in text and "4242" not in text
    assert masked[1].content == "Found A7 for [redacted-1], paid with the card ending [redacted-2]."
    assert json.loads(masked[1].tool_calls[0].result or "")["customer"] == "[redacted-1]"
    assert masked[1].tool_calls[0].arguments == {"order_id": "A7", "email": "[redacted-1]"}


def test_a_pattern_is_masked_in_every_text() -> None:
    masked = redacted(conversation(), Redaction(personal=[], patterns=[r"\+1 555 \d{4}"]))
    assert masked[0].content == f"I am {EMAIL}, call me at [redacted-1]. Cancel A7 please."


def test_what_is_not_marked_is_left_as_it_was() -> None:
    original = conversation()
    assert redacted(original, Redaction(personal=[], fields=["nothing_here"])) == original
    assert redacted(original, Redaction.model_validate("off")) == original
