"""The outcome grade in the summary, junit.xml and report.html: one line, one case per dialog, a headline card, a
section and each dialog's expected calls beside the calls made (as text, never markup); and a run without any
verified outcome still reports, saying so."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html import escape

import pytest
from outcome_run import CANCELLED, CHANGE, MARKUP, UNVERIFIED
from shop_run import report_run

from intellagent.reports.sections.outcome_grade import OUTCOMES, outcome_line
from intellagent.reports.summary import reliability_line, summary_text

OUTCOME_LINE = ("outcome: 2 of 5 graded dialogs reached the expected outcome (40%, 95% CI 12%–77%); tool calls "
                "P 0.71 R 0.62 F1 0.67; mean progress 0.70; 1 made a forbidden write; 1 event without a verified "
                f"outcome ({UNVERIFIED}); 1 cut short by the simulated user and 1 failed to run, not counted")


def page(reported) -> str:
    return reported[1].path("report.html").read_text()


def card(html: str, dialog: str) -> str:
    return next(c for c in html.split('<details class="dialog"')[1:] if f'id="dialog-{dialog}"' in c)


def outcome_cases(folder) -> dict[str, ET.Element]:
    root = ET.parse(folder.path("junit.xml")).getroot()
    return {case.get("name"): case for case in root.iter("testcase") if case.get("classname") == "shop.outcomes"}


@pytest.fixture
def nothing_verified(config, outcome_folder, outcome_script):
    """The run of `outcome_run` with no verified outcome at all: every event holds only why, as populate records it."""
    for event in outcome_folder.events.load():
        outcome_folder.events.append(event.model_copy(update={"expected": None, "expected_error": UNVERIFIED}))
    return report_run(config, outcome_folder, outcome_script), outcome_folder


def test_the_summary_has_a_line_for_the_outcome_grade(outcome_report):
    lines = summary_text(outcome_report[0]).splitlines()

    assert lines[1] == OUTCOME_LINE


def test_the_reliability_line_counts_judge_and_outcome_agreement(outcome_report):
    assert reliability_line(outcome_report[0].report).endswith(
        "judge and outcome agreed on 4 of 6 policy verdicts (67%)")


def test_a_run_made_before_outcomes_were_sought_says_so_in_one_line(shop_report):
    assert outcome_line(OUTCOMES.of(shop_report[0].report)) == (
        "outcome: not graded: the run's events were made by a version that sought no expected outcome")


def test_a_run_whose_every_event_lacks_a_verified_outcome_says_why(nothing_verified):
    assert outcome_line(OUTCOMES.of(nothing_verified[0].report)) == (
        f"outcome: not graded: none of 8 events has a verified expected outcome ({UNVERIFIED})")


def test_each_dialog_is_a_junit_case_of_its_outcome(outcome_report):
    cases = outcome_cases(outcome_report[1])

    assert sorted(cases) == [f"S00{n}" for n in range(1, 9)]
    assert [name for name, case in cases.items() if case.find("failure") is not None] == ["S002", "S003", "S005"]
    assert [name for name, case in cases.items() if case.find("skipped") is not None] == ["S004", "S007", "S008"]
    assert list(cases["S001"]) == []  # passed


def test_a_failed_outcome_case_says_what_differed(outcome_report):
    failure = outcome_cases(outcome_report[1])["S002"].find("failure")

    assert failure.get("type") == "OutcomeMissed"
    assert failure.get("message") == f"reward 0: made the forbidden write {CANCELLED}"
    assert failure.text.splitlines() == [f"made the forbidden write {CANCELLED}", f"missed {CHANGE.text()}",
                                         "differs: orders 1024: status"]


def test_a_dialog_not_graded_is_a_skipped_case_with_the_reason(outcome_report):
    cases = outcome_cases(outcome_report[1])

    skipped = cases["S007"].find("skipped")
    assert skipped.get("message") == f"not graded: its event has no verified outcome: {UNVERIFIED}"
    assert cases["S004"].find("skipped").get("message").startswith("not graded: the simulated user could not go on")


def test_a_policy_case_names_the_outcome_as_who_found_its_violation(outcome_report):
    root = ET.parse(outcome_report[1].path("junit.xml")).getroot()
    p04 = next(case for case in root.iter("testcase") if case.get("name", "").startswith("P04:"))

    assert f"S002 turn 4 (outcome): made {CANCELLED}" in p04.find("failure").text


def test_junit_counts_the_outcome_pass_rate_among_its_properties(outcome_report):
    root = ET.parse(outcome_report[1].path("junit.xml")).getroot()

    assert {p.get("name"): p.get("value") for p in root.iter("property")}["outcome_pass_rate"] == "0.4"


def test_a_run_made_before_outcomes_were_sought_has_no_outcome_cases(shop_report):
    assert outcome_cases(shop_report[1]) == {}


def test_a_run_without_a_verified_outcome_skips_every_dialogs_outcome_case(nothing_verified):
    cases = outcome_cases(nothing_verified[1])

    assert len(cases) == 8 and all(case.find("skipped") is not None for case in cases.values())


def test_the_page_has_an_outcome_headline_card_and_section(outcome_report):
    html = page(outcome_report)

    assert "<h3>Outcome pass rate</h3><p class=\"figure\">40%</p>" in html
    assert 'id="outcomes"' in html and "Per tool" in html and "<code>change_order</code>" in html
    assert "S007</code></a> refund: Error: order 4096 has no payment on file" in html


def test_the_policy_table_shows_the_outcome_pass_rate_beside_the_pass_rate(outcome_report):
    row = next(r for r in page(outcome_report).split("<tr ") if r.startswith('id="policy-P01"'))

    assert row.split("<td ")[-1].startswith('data-v="0.3333"><b>33%</b> <span class="muted">1/3')


def test_a_dialog_card_shows_the_expected_calls_beside_the_calls_made(outcome_report):
    s001 = card(page(outcome_report), "S001")

    expected, made = s001.split("<h5>Expected calls</h5>")[1].split("<h5>Calls made</h5>")
    assert expected.count("✓ made") == 2 and "✗" not in expected
    # The chatbot gave the items' keys in another order: the same call, matched.
    assert made.count("✓ expected") == 2 and '<a href="#dialog-S001-4">' not in made


def test_a_dialog_card_shows_forbidden_writes_made_outputs_unsaid_and_records_that_differ(outcome_report):
    html = page(outcome_report)

    s002, s005, s003 = card(html, "S002"), card(html, "S005"), card(html, "S003")
    assert f"✗ made {escape(CANCELLED)}" in s002 and "✗ forbidden" in s002
    assert "“ready on Friday” <b>✗ never said</b>" in s005
    assert "<li>refunds 2048: method</li>" in s003 and "✗ not expected" in s003


def test_calls_and_arguments_on_the_card_are_text_never_markup(outcome_report):
    html = page(outcome_report)

    expected, made = card(html, "S003").split("<h5>Expected calls</h5>")[1].split("<h5>Calls made</h5>")
    shown = escape(json.dumps(MARKUP))  # as the call's text holds it: a JSON string
    assert "<img" not in html and shown in expected and shown in made


def test_a_dialog_card_says_why_it_is_not_graded(outcome_report):
    html = page(outcome_report)

    assert f"Not graded: its event has no verified outcome: {escape(UNVERIFIED)}." in card(html, "S007")
    assert "(not counted: the simulated user could not go on" in card(html, "S004")


def test_a_violation_the_outcome_found_is_tagged_with_its_source(outcome_report):
    assert '<span class="tag outcome">outcome</span>' in card(page(outcome_report), "S002")


def test_a_run_made_before_outcomes_were_sought_still_renders_and_says_so(shop_report):
    html = page(shop_report)

    assert "not graded: the run&#x27;s events were made by a version that sought no expected outcome" in html
    assert "Expected outcome" not in html.split('id="dialogs"')[1]


def test_a_run_without_a_verified_outcome_says_so_on_the_page(nothing_verified):
    html = page(nothing_verified)

    assert "Not graded: none of 8 events has a verified expected outcome." in html
    assert html.count(f"Not graded: its event has no verified outcome: {escape(UNVERIFIED)}.") == 8
