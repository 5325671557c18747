"""The details a user gave that a chatbot should look up rather than ask for again."""

from __future__ import annotations

from intellagent.artifacts import ToolCall
from intellagent.chatbots.given_details import asks_again, given_details, unused_details


def test_ids_codes_dates_and_addresses_are_details_words_and_amounts_are_not() -> None:
    said = ["My booking 4WQ491 for mia_li_3668, flying 2024-05-15.", "Write to ana@example.com, 3 bags, $50.",
            "Order 0012345678 please, or A1."]

    assert given_details(said) == ["4WQ491", "mia_li_3668", "2024-05-15", "ana@example.com", "0012345678", "A1"]


def test_a_detail_a_call_used_is_no_longer_unused_whatever_its_case() -> None:
    calls = [ToolCall(id="", name="get_order", arguments={"order_id": "4wq491"})]

    assert unused_details(["4WQ491", "A1"], calls) == ["A1"]


def test_asking_for_an_id_again_counts_only_while_a_given_detail_is_unused() -> None:
    question = "Could you please provide your reservation ID?"

    assert asks_again(question, ["4WQ491"]) and not asks_again(question, [])
    assert not asks_again("Your reservation is confirmed. Anything else?", ["4WQ491"])
