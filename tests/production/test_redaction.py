"""What is personal is masked before any model or file sees it: the common personal data by default, and what a team
marks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intellagent.artifacts import Message, ToolCall
from intellagent.config import Redaction, load_config
from intellagent.errors import UsageError
from intellagent.production.redaction import redacted
from tests.pipeline.scripted_pipeline import write_config

EMAIL = "ana@example.com"
PHONE = "+1 415-555-2671"
CARD = "4111 1111 1111 1111"


def conversation() -> list[Message]:
    result = json.dumps({"order_id": "A7", "customer": EMAIL, "card": {"last4": "4242"}})
    return [
        Message(role="user", content=f"I am {EMAIL}, call me at +1 555 0100. Cancel A7 please."),
        Message(role="chatbot", content=f"Found A7 for {EMAIL}, paid with the card ending 4242.",
                tool_calls=[ToolCall(id="c1", name="get_order", arguments={"order_id": "A7", "email": EMAIL},
                                     result=result)]),
    ]


def planted() -> list[Message]:
    """A customer who gives an e-mail, a phone number and a card, and a tool that shows them again."""
    shown = {"email": EMAIL.upper(), "phone": "+14155552671", "card": CARD.replace(" ", "")}
    return [
        Message(role="user", content=f"I'm Ana, {EMAIL}, {PHONE}. Pay with {CARD} please."),
        Message(role="chatbot", content=f"Paid with {CARD.replace(' ', '-')}; a receipt goes to {EMAIL}.",
                tool_calls=[ToolCall(id="c1", name="pay", arguments={"card": CARD, "email": EMAIL},
                                     result=json.dumps(shown))]),
    ]


def text_of(messages: list[Message]) -> str:
    return json.dumps([m.model_dump(include={"content", "tool_calls"}) for m in messages])


def test_by_default_an_email_a_phone_and_a_card_are_masked_in_messages_arguments_and_results() -> None:
    masked = redacted(planted(), Redaction())

    assert masked[0].content == "I'm Ana, [email-1], [phone-1]. Pay with [card-1] please."
    assert masked[1].tool_calls[0].arguments == {"card": "[card-1]", "email": "[email-1]"}
    assert json.loads(masked[1].tool_calls[0].result or "") == {"email": "[email-1]", "phone": "[phone-1]",
                                                              "card": "[card-1]"}


def test_the_same_value_gets_the_same_mask_however_it_is_written() -> None:
    masked = redacted(planted(), Redaction())

    assert masked[1].content == "Paid with [card-1]; a receipt goes to [email-1]."  # dashes, capitals: one value each


def test_two_values_get_two_masks_numbered_in_order_of_appearance() -> None:
    said = [Message(role="user", content="Write to bo@example.com, not ana@example.com; bo@example.com is mine.")]

    assert redacted(said, Redaction())[0].content == "Write to [email-1], not [email-2]; [email-1] is mine."


def test_a_mask_is_never_masked_again() -> None:
    marks = Redaction(patterns=[r"[a-z]+-\d+"], fields=["email"])  # a pattern that a mask's own words match

    once = redacted(planted(), marks)

    assert once[0].content == "I'm Ana, [redacted-1], [phone-1]. Pay with [card-1] please."  # the field's mask first
    assert redacted(once, marks) == once


def test_an_iban_and_a_street_address_are_masked() -> None:
    said = [Message(role="user", content="Refund to GB82 WEST 1234 5698 7654 32 and send the letter to "
                                         "742 Evergreen Terrace, Springfield, IL 62704.")]

    assert redacted(said, Redaction())[0].content == "Refund to [iban-1] and send the letter to [address-1]."


@pytest.mark.parametrize("kept", [
    "order 2025550123",                 # a bare run of digits is an id, not a phone number
    "payment 9999999900",
    "at 1700000000000 ms",              # 13 digits, but no issuer's card begins with a 1
    "card 4111 1111 1111 1112",         # a wrong check digit
    "IBAN GB82 WEST 1234 5698 7654 33",  # a wrong check
    "reservation ZFA04Y, flight HAT001 on 2024-05-20",
])
def test_what_only_looks_personal_is_left(kept: str) -> None:
    said = [Message(role="user", content=kept)]

    assert redacted(said, Redaction())[0].content == kept


def test_a_local_phone_number_is_found_in_the_region_set() -> None:
    said = [Message(role="user", content="Ring me on 020 7946 0958.")]

    assert redacted(said, Redaction(region="GB"))[0].content == "Ring me on [phone-1]."
    assert redacted(said, Redaction(region="US"))[0].content == "Ring me on 020 7946 0958."


def test_a_marked_field_is_masked_in_results_arguments_and_every_message_that_repeats_it() -> None:
    masked = redacted(conversation(), Redaction(personal=[], fields=["customer", "last4"]))
    text = text_of(masked)

    assert EMAIL not in text and "4242" not in text
    assert masked[1].content == "Found A7 for [redacted-1], paid with the card ending [redacted-2]."
    assert json.loads(masked[1].tool_calls[0].result or "")["customer"] == "[redacted-1]"
    assert masked[1].tool_calls[0].arguments == {"order_id": "A7", "email": "[redacted-1]"}


def test_a_pattern_is_masked_in_every_text() -> None:
    masked = redacted(conversation(), Redaction(personal=[], patterns=[r"\+1 555 \d{4}"]))
    assert masked[0].content == f"I am {EMAIL}, call me at [redacted-1]. Cancel A7 please."


def test_redact_off_masks_nothing() -> None:
    original = planted()

    assert redacted(original, Redaction.model_validate("off")) == original
    assert redacted(original, Redaction(personal=[], fields=["nothing_here"])) == original


def test_redact_off_in_a_config_reads_as_masking_nothing(tmp_path: Path) -> None:
    written = write_config(tmp_path / "shop.yml", transcripts={"path": "t.jsonl", "redact": "off"})
    text = written.read_text().replace("redact: 'off'", "redact: off")  # as a person writes it: YAML's false
    written.write_text(text)

    assert "redact: off" in text
    assert load_config(written).transcripts.redact.masks_anything is False
    assert load_config(write_config(tmp_path / "d.yml", transcripts="t.jsonl")).transcripts.redact.personal == [
        "email", "phone", "card", "iban", "address"]


def test_an_unknown_phone_region_is_a_one_line_config_error(tmp_path: Path) -> None:
    written = write_config(tmp_path / "shop.yml", transcripts={"path": "t.jsonl", "redact": {"region": "XX"}})

    with pytest.raises(UsageError, match=r"transcripts.redact.region.*'XX' is not a country code"):
        load_config(written)


def test_a_pattern_does_not_mask_the_number_of_a_mask_an_earlier_pattern_wrote() -> None:
    messages = [Message(role="user", content=f"I am {EMAIL}, my order is 1234567.")]

    masked = redacted(messages, Redaction(personal=[], patterns=[r"\S+@\S+\.com", r"\d+"]))

    assert masked[0].content == "I am [redacted-1], my order is [redacted-2]."


def test_a_marked_value_that_is_a_mask_s_number_leaves_the_mask_whole() -> None:
    messages = [Message(role="chatbot", content=f"Sent 2 items to {EMAIL}.", tool_calls=[
        ToolCall(id="c1", name="ship", arguments={"quantity": 2, "email": EMAIL}, result="ok")])]

    masked = redacted(messages, Redaction(personal=[], fields=["quantity", "email"], patterns=[r"\S+@\S+\.com"]))

    assert masked[0].content == "Sent [redacted-1] items to [redacted-2]."
    assert masked[0].tool_calls[0].arguments == {"quantity": "[redacted-1]", "email": "[redacted-2]"}
