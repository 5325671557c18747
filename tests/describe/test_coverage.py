"""Describe covers the whole document: every passage is the source of some policy or is listed in policies.json as
the source of none, after one more extraction aimed at the passages the first one missed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import catalog_of, configure, run_describe, script_document

from intellagent.artifacts import PolicyCatalog
from intellagent.describe.passages import passage_text, passages, uncovered
from intellagent.llm import HTTPError, Request
from intellagent.llm.careless import careless_answers

ROOT = Path(__file__).resolve().parents[2]
PARCELS = (ROOT / "tests" / "environment" / "parcels" / "parcels.md").read_text()
AIRLINE = (ROOT / "policies" / "airline.md").read_text()

HOLD = [
    {"text": "A parcel can be held at its depot only while it is in transit.", "category": "company_policy",
     "challenge": 2},
    {"text": "Before holding a parcel, say what will happen and wait for the customer's explicit yes.",
     "category": "user_consent", "challenge": 2},
]
HAND_OVER = "Transfer the customer to a human agent when they ask for a refund."


def left(document: str, rules: list[str]) -> list[str]:
    return [passage_text(document, span) for span in uncovered(document, rules)]


def test_a_passage_is_a_list_item_a_paragraph_or_a_table_row_never_a_heading_or_a_table_header() -> None:
    document = ("# Desk\n\nYou answer customers about parcels.\n\n## Holds\n\n- Hold a parcel only in transit,\n"
                "  and only at its depot.\n\n| tier | free holds per month |\n| --- | --- |\n| gold members | 5 |\n")
    shown = [passage_text(document, span) for span in passages(document)]
    assert shown == ["You answer customers about parcels.",
                     "- Hold a parcel only in transit,\n  and only at its depot.", "| gold members | 5 |"]


def test_the_sections_no_rule_came_from_are_left_uncovered_on_the_parcel_desk() -> None:
    assert left(PARCELS, [rule["text"] for rule in HOLD]) == [
        "You answer customers of a parcel delivery company about their parcels.",
        "- Before sharing anything about a parcel, ask for its tracking number and the name of the customer it "
        "belongs to.",
        "- State only what the tools return: never make up a tracking number, an item, a depot or a date.",
        "- " + HAND_OVER,
    ]


def test_a_rule_written_in_its_own_words_covers_its_passage_and_one_of_two_items_covers_both() -> None:
    rules = ["Ask for the parcel's tracking number and the owner's name before telling anything about it.",
             "Hand the customer over to a human agent if they want a refund.",
             "Tell only what the tools returned and never invent tracking numbers, items, depots or dates; a parcel "
             "is held at its depot only while in transit, and only after the customer's explicit yes to the hold."]
    assert left(PARCELS, rules) == ["You answer customers of a parcel delivery company about their parcels."]


def test_on_the_airline_the_ground_rules_no_policy_came_from_are_listed() -> None:
    rules = [
        "Before booking, changing flights, bags, cabin or passengers, state the action and wait for the user's "
        "explicit yes.",
        "Share only what the user said or the tools returned: no outside knowledge, procedures or opinions.",
        "A reservation holds at most five passengers; collect each one's first name, last name and date of birth.",
    ]
    found = left(AIRLINE, rules)
    assert "- **Say no to what the policy forbids.** If a request goes against any rule below, decline it." in found
    assert any(text.startswith("- **Hand over only when you must.**") for text in found)
    assert not any(text.startswith(("- **Confirm before every change.**", "- **Stick to what you know.**",
                                    "2. **Passengers.**")) for text in found)


# ── the stage ───────────────────────────────────────────────────────────────────────────────


@pytest.fixture
def parcel_desk(scripted_config, policy_file: Path):
    policy_file.write_text(PARCELS)
    return configure(scripted_config, samples=1)


def covering(request: Request) -> dict:
    """One rule read from the hand-over passage, and one that comes from no passage the call was shown."""
    assert "Transfer the customer to a human agent" in request.last and "held at its depot" not in request.last
    return {"policies": [
        {"text": HAND_OVER, "category": "escalation", "challenge": 2, "flow": "F1"},
        {"text": "Offer every caller a free dessert voucher on Fridays.", "category": "other", "challenge": 1,
         "flow": "F1"},
    ]}


def test_passages_the_first_extraction_missed_are_read_again_once_and_what_is_still_missed_is_listed(
    parcel_desk, script, folder
):
    script.on(schema="CoveringRules", reply=covering)
    script_document(script, flows={"Holds": HOLD})
    run_describe(parcel_desk, folder, script)

    catalog = catalog_of(folder)
    assert len(script.calls(schema="CoveringRules")) == 1
    assert [(p.id, p.text, p.flows, p.category) for p in catalog.policies[2:]] == [
        ("P03", HAND_OVER, ["F1"], "escalation")]
    assert catalog.passages == 6
    assert [(p.first_line, p.last_line) for p in catalog.uncovered] == [(3, 3), (7, 7), (16, 16)]
    assert catalog.uncovered[2].text.startswith("- State only what the tools return")
    assert catalog.errors[0] == ("coverage: 1 of the rules read again from the uncovered passages come from none "
                                 "of them; left out")


def test_a_document_every_passage_of_which_is_covered_asks_nothing_more(parcel_desk, script, folder):
    rules = [*HOLD, *({"text": text, "category": "company_policy", "challenge": 2} for text in (
        "You answer customers of a parcel delivery company about their parcels.",
        "Before sharing anything about a parcel, ask for its tracking number and the name of the customer.",
        "State only what the tools return: never make up a tracking number, an item, a depot or a date.",
        HAND_OVER))]
    script_document(script, flows={"Holds": rules})
    run_describe(parcel_desk, folder, script)

    assert script.calls(schema="CoveringRules") == []
    assert catalog_of(folder).uncovered == [] and catalog_of(folder).passages == 6


def test_a_failed_aimed_extraction_is_noted_and_the_passages_are_listed_as_they_are(parcel_desk, script, folder):
    script.on(schema="CoveringRules", reply=HTTPError(500))
    script_document(script, flows={"Holds": HOLD})
    run_describe(configure(parcel_desk, llm_retries=0), folder, script)

    catalog = catalog_of(folder)
    assert len(catalog.policies) == 2 and len(catalog.uncovered) == 4
    assert catalog.errors[0].startswith("coverage: the passages no policy came from were not read again")


def covered_or_listed(catalog: PolicyCatalog, document: str) -> None:
    """The specification: each passage is covered by some policy, or listed; and a listed one is uncovered."""
    listed = {(p.first_line - 1, p.last_line) for p in catalog.uncovered}
    assert listed == set(uncovered(document, [policy.text for policy in catalog.policies]))
    assert catalog.passages == len(passages(document))


@pytest.mark.parametrize("document", ["parcels", "airline"])
@pytest.mark.parametrize("seed", range(3))
def test_whatever_a_careless_model_answers_every_passage_is_a_policys_source_or_listed(
    scripted_config, policy_file: Path, script, folder, seed: int, document: str
):
    text = PARCELS if document == "parcels" else AIRLINE
    policy_file.write_text(text)
    script.on(schema="CoveringRules", reply=careless_answers(seed=seed))
    script_document(script, flows={"Holds": HOLD})
    run_describe(configure(scripted_config, samples=1), folder, script)

    catalog = catalog_of(folder)
    covered_or_listed(catalog, text)
    assert [p.text for p in catalog.policies[:2]] == [rule["text"] for rule in HOLD]
    assert len(catalog.policies) == 2  # a careless rule comes from no passage it was shown: none is added
