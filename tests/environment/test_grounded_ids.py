"""Ids of any shape the world holds are grounded: an item or tracking number the chatbot makes up is found, on
the parcel desk (ids of digits only) as on the airline, and an ordinary number never is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intellagent.artifacts import Message, ToolCall
from intellagent.checks import Trace
from intellagent.checks.builtin import grounded_facts
from intellagent.checks.trace import WorldRows
from intellagent.config import load_config
from intellagent.environment import Environment, load_environment
from intellagent.value_shapes import id_pattern

REPO = Path(__file__).resolve().parents[2]


def looked_up(env: Environment, world: Path, tracking: str) -> ToolCall:
    with env.session(world) as session:
        result = env.call_tool(session, "track_parcel", {"tracking_number": tracking})
    return ToolCall(id="c1", name="track_parcel", arguments={"tracking_number": tracking}, result=result)


def first_parcel(env: Environment, world: Path) -> str:
    return WorldRows(env, world)["parcels"][0]["tracking_number"]


def findings(env: Environment, world: Path, messages: list[Message]) -> list[str]:
    trace = Trace(messages=messages, environment=env, before=WorldRows(env, world), start=world)
    return [finding.message for finding in grounded_facts(trace)]


@pytest.mark.parametrize(("value", "shape"), [
    ("1234567890", "[0-9]{10}"),
    ("#W1234567", r"\#[A-Z]+[0-9]{7}"),
    ("gift_card_7815826", "[a-z]+_[a-z]+_[0-9]{7}"),
    ("LBL/2024/55812", "[A-Z]+/[0-9]{4}/[0-9]{5}"),
    ("HAT001", "[A-Z]+[0-9]{3}"),
    ("12345", None),            # five digits: as likely a quantity or a price
    ("2024", None),             # a year
    ("2024-05-01", None),       # a date, which the check grounds as a date
    ("08:15:00", None),         # a time
    ("01:30:00+1", None),       # a time of the next day
    ("1,234,567", None),        # an amount
    ("99.50", None),
    ("A12", None),              # too few digits to tell an id from a word
    ("Suite 1200", None),       # two words
])
def test_an_identifier_has_the_shape_populate_imitates_and_a_number_has_none(value: str, shape: str | None) -> None:
    assert id_pattern(value) == shape


def test_an_item_or_tracking_number_the_chatbot_invents_is_found(parcels: Environment, depot: Path) -> None:
    tracking = first_parcel(parcels, depot)
    messages = [
        Message(role="user", content=f"Where is parcel {tracking}?"),
        Message(role="chatbot", content="Let me look.", tool_calls=[looked_up(parcels, depot, tracking)]),
        Message(role="chatbot", content="It holds item 1234567890, and your other parcel 999988887777 is on its way "
                                        "with label LBL/2024/99999."),
    ]

    (found,) = findings(parcels, depot, messages)

    assert found.startswith("stated 1234567890, 999988887777, LBL/2024/99999,")


def test_ids_the_tools_returned_or_the_customer_gave_in_another_layout_are_grounded(
    parcels: Environment, depot: Path
) -> None:
    tracking = first_parcel(parcels, depot)
    call = looked_up(parcels, depot, tracking)
    item = json.loads(call.result or "")["items"][0]["item_id"]
    spaced = " ".join(tracking[i:i + 4] for i in range(0, 12, 4))  # '4201 8365 9201', as a customer types it
    messages = [
        Message(role="user", content=f"My parcel is {spaced}."),
        Message(role="chatbot", content="One moment.", tool_calls=[call]),
        Message(role="chatbot", content=f"Parcel {tracking} holds item {item}."),
    ]

    assert findings(parcels, depot, messages) == []


@pytest.mark.parametrize("said", [
    "It weighs 3812 grams and holds 3 items; we moved 150000 parcels in 2024.",
    "The kettle costs $1,234,567.00, or 99.50 a month, and your phone +44 20 7946 0018 is on file.",
    "Call 0207 946 0018 between 08:00 and 18:00, or quote 44-2079-460018.",
])
def test_ordinary_numbers_are_no_identifiers(parcels: Environment, depot: Path, said: str) -> None:
    customer = "My phone is +44 20 7946 0018 and I spent $1,234,567.00 on kettles."
    messages = [Message(role="user", content=customer), Message(role="chatbot", content=said)]

    assert findings(parcels, depot, messages) == []


def test_a_random_code_that_happens_to_be_all_digits_makes_no_number_of_its_length_an_id(parcels: Environment) -> None:
    codes = [f"{letters}{number:02d}Q" for number, letters in enumerate(("AB", "CD", "EF", "GH", "JK") * 4)]
    world = {"parcels": [{"tracking_number": code} for code in [*codes, "402811"]]}
    messages = [Message(role="chatbot", content="We moved 654321 parcels; yours is not among them.")]

    assert grounded_facts(Trace(messages=messages, environment=parcels, before=world)) == []


def test_a_world_given_as_rows_teaches_the_same_shapes_as_its_file(parcels: Environment, depot: Path) -> None:
    messages = [Message(role="chatbot", content="Your item 1234567890 is packed.")]
    with parcels.session(depot) as session:
        rows = parcels.dump(session)

    (by_rows,) = [f.message for f in grounded_facts(Trace(messages=messages, environment=parcels, before=rows))]

    assert findings(parcels, depot, messages) == [by_rows]


def test_on_the_airline_invented_user_and_payment_ids_are_found_and_prices_counts_and_dates_are_not(
    tmp_path: Path,
) -> None:
    airline = load_environment(load_config(REPO / "configs" / "airline.yml").environment)
    world = tmp_path / "airline.sqlite"
    airline.create_database(world, seed=1)
    user = WorldRows(airline, world)["users"][0]["user_id"]
    result = json.dumps({"user_id": user, "flight": "HAT001", "date": "2024-05-01", "price": 250})
    messages = [
        Message(role="user", content=f"I am {user}; how much is HAT001 on 2024-05-01 for 3 of us?"),
        Message(role="chatbot", content="Checking.",
                tool_calls=[ToolCall(id="c1", name="get_user_details", arguments={"user_id": user}, result=result)]),
        Message(role="chatbot", content=f"{user}: HAT001 on 2024-05-01 is $250 each, $750 for 3 passengers; "
                                        "1 bag each is free."),
        Message(role="chatbot", content="I refunded it to gift_card_9999999 of jane_roe_1234."),
    ]

    (found,) = findings(airline, world, messages)

    assert found.startswith("stated gift_card_9999999, jane_roe_1234, found in no tool result")
