"""The automatic mutants' edit of a policy document: the block that states a rule, found by its words."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.config import apply_overrides, load_config
from intellagent.describe.passages import blocks, rule_passage
from tests.conftest import ROOT

AIRLINE = (ROOT / "policies" / "airline.md").read_text()

DOCUMENT = """# Shop

You help customers with
their orders.

- Look an order up first.
- Cancel an order only after the
  customer confirms.
| tier | bags |
| gold | 3 |
Refunds take five days.
"""


def passage(document: str, rule: str) -> str | None:
    span = rule_passage(document, rule)
    return None if span is None else "\n".join(document.splitlines()[span[0]:span[1]])


def test_blocks_are_list_items_with_their_continuations_paragraphs_headings_and_table_rows():
    lines = DOCUMENT.splitlines()
    assert ["\n".join(lines[a:b]) for a, b in blocks(DOCUMENT)] == [
        "# Shop",
        "You help customers with\ntheir orders.",
        "- Look an order up first.",
        "- Cancel an order only after the\n  customer confirms.",
        "| tier | bags |",
        "| gold | 3 |",
        "Refunds take five days.",
    ]


@pytest.mark.parametrize(("rule", "expected"), [
    ("Obtain explicit user confirmation before any action that updates the booking database.",
     "- **Confirm before every change.**"),
    ("A reservation can have at most five passengers.", "2. **Passengers.** A reservation holds five"),
    ("Transfer the user to a human agent only when the request is outside the scope of your actions.",
     "- **Hand over only when you must.**"),
    ("Travel insurance costs 30 dollars per passenger.", "5. **Travel insurance.**"),
])
def test_the_airline_rules_are_found_in_the_blocks_that_state_them(rule: str, expected: str):
    found = passage(AIRLINE, rule)
    assert found is not None and found.startswith(expected)


def test_a_rule_no_block_states_has_no_passage():
    assert passage(AIRLINE, "Offer every caller a free dessert voucher on Fridays.") is None
    assert passage(DOCUMENT, "") is None


def test_calibrate_and_min_detection_are_one_override_away(tmp_path: Path):
    config = load_config("airline")
    assert not config.calibrate.active
    changed = apply_overrides(config, calibrate=True, min_detection=0.8)
    assert changed.calibrate.active and changed.report.min_detection == 0.8
