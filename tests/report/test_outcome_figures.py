"""report.json's outcome figures, on the hand-counted run of `outcome_run`: the outcome pass rate overall, per flow,
per policy and per challenge level, tool-call precision, recall and F1 from summed counts, mean progress, pass^k
over rewards, and the events without a verified outcome."""

from __future__ import annotations

import json

from outcome_run import UNVERIFIED
from shop_run import report_run

from intellagent.artifacts import Dialog
from intellagent.artifacts.run_report import CallScore, Report
from intellagent.reports.sections.outcome_grade import NOT_SOUGHT, OUTCOMES


def rate(figure) -> tuple[int, int]:
    return figure.passed, figure.total


def scores(score: CallScore) -> tuple[int, int, int, float | None]:
    """(matched, made, expected, F1)."""
    return score.precision.count, score.precision.total, score.recall.total, score.f1


def test_the_outcome_pass_rate_counts_only_graded_dialogs_in_which_the_outcome_speaks(outcome_report):
    outcomes = OUTCOMES.of(outcome_report[0].report)

    # S001 and S006 earned the reward; S002, S003 and S005 did not; S004 was cut short, S008 failed to run.
    assert rate(outcomes.pass_rate) == (2, 5) and outcomes.pass_rate.low == 0.1176
    assert rate(outcomes.end_state) == (2, 5) and outcomes.forbidden_made == 1
    assert (outcomes.cut_short, outcomes.errors) == (1, 1)
    assert outcomes.progress == 0.7  # (1 + 0.5 + 0.5 + 0.5 + 1) / 5


def test_tool_call_scores_are_summed_counts_overall_and_per_tool(outcome_report):
    outcomes = OUTCOMES.of(outcome_report[0].report)

    assert scores(outcomes.calls) == (5, 7, 8, 0.6667)  # 2 × 5 / (7 + 8)
    assert {tool: scores(score) for tool, score in outcomes.tools.items()} == {
        "cancel_order": (0, 1, 0, None),
        "change_order": (1, 1, 3, 0.5),
        "find_order": (4, 4, 4, 1.0),
        "refund": (0, 1, 1, 0.0),
    }
    assert outcomes.tools["change_order"].recall.rate == 0.3333


def test_the_outcome_pass_rate_and_call_scores_per_flow_are_over_the_dialogs_that_sampled_its_policies(
    outcome_report
):
    flows = {group.id: group for group in OUTCOMES.of(outcome_report[0].report).flows}

    assert rate(flows["F1"].pass_rate) == (2, 5)  # every graded dialog samples P01, P03 or P04
    assert rate(flows["F2"].pass_rate) == (1, 3) and scores(flows["F2"].calls) == (4, 5, 6, 0.7273)  # S001 S003 S005


def test_the_outcome_pass_rate_per_policy_stands_beside_its_pass_rate(outcome_report):
    report = outcome_report[0].report

    outcomes = OUTCOMES.of(report)
    per_policy = {group.id: rate(group.pass_rate) for group in outcomes.policies}

    assert per_policy == {"P01": (1, 3), "P02": (0, 1), "P03": (1, 3), "P04": (1, 2)}
    assert [group.name for group in outcomes.policies] == [p.text for p in report.policies]


def test_the_outcome_pass_rate_at_or_above_each_challenge_level(outcome_report):
    levels = OUTCOMES.of(outcome_report[0].report).challenge_levels

    assert [(level.level, rate(level.pass_rate)) for level in levels] == [(2, (2, 5)), (3, (1, 3)), (4, (1, 2))]


def test_events_without_a_verified_outcome_are_listed_with_why(outcome_report):
    outcomes = OUTCOMES.of(outcome_report[0].report)

    assert (outcomes.events, outcomes.verified) == (8, 7)
    assert [(event.id, event.reason) for event in outcomes.unverified] == [("S007", UNVERIFIED)]


def test_each_dialog_says_whether_its_grade_is_counted_and_why_not(outcome_report):
    dialogs = {d.id: d.outcome for d in outcome_report[0].report.dialogs}

    assert [d for d, outcome in dialogs.items() if outcome.counted] == ["S001", "S002", "S003", "S005", "S006"]
    assert dialogs["S004"].reason.startswith("the simulated user could not go on")
    assert dialogs["S004"].grade is not None  # kept, shown, not counted
    assert dialogs["S007"].reason == f"its event has no verified outcome: {UNVERIFIED}"
    assert dialogs["S008"].reason == "it failed to run"


def test_judge_and_outcome_agreement_is_counted_on_the_policies_both_ruled_on(outcome_report):
    agreement = OUTCOMES.of(outcome_report[0].report).judge_agreement

    # S001 P01, S002 P01 and P04, S003 P02, S005 P01, S006 P04: the judge called P01 held in S002 and S005.
    assert agreement is not None and (agreement.count, agreement.total) == (4, 6)


def test_the_outcomes_violations_enter_each_policys_verdict(outcome_report):
    policies = {p.id: p for p in outcome_report[0].report.policies}

    notes = [(v.dialog, v.source, v.evidence) for v in policies["P04"].violations]
    assert notes == [("S002", "outcome", 'cancel_order(order_id="1024")'), ("S002", "judge", None)]
    assert [(v.dialog, v.source) for v in policies["P01"].violations] == [("S002", "outcome"), ("S005", "outcome")]
    assert policies["P01"].disputed == 2 and (policies["P01"].passed, policies["P01"].tested) == (1, 3)


def test_report_json_holds_the_outcome_section_and_reads_back(outcome_report):
    result, folder = outcome_report
    data = json.loads(folder.path("report.json").read_text())

    assert list(data["outcomes"])[:4] == ["events", "verified", "unverified", "pass_rate"]
    assert data["dialogs"][0]["outcome"]["grade"]["reward"] == 1.0
    assert Report.model_validate(data) == result.report


def test_pass_k_over_rewards_counts_each_events_graded_trials(config, outcome_folder, outcome_script):
    dialogs = {d.id: d for d in outcome_folder.dialogs.load()}
    for trial, source in ((2, "S001"), (3, "S002"), (2, "S002")):  # S001 passes twice; S002 fails thrice
        outcome_folder.dialogs.append(_trial(dialogs[source], trial))

    outcomes = OUTCOMES.of(report_run(config, outcome_folder, outcome_script).report)

    # pass^1: S001 2/2, S002 0/3, S003 0/1, S005 0/1, S006 1/1 → (1 + 0 + 0 + 0 + 1) / 5
    # pass^2: S001 1, S002 0 → 0.5; pass^3: S002 0 → 0.
    assert [(p.k, p.value, p.events) for p in outcomes.pass_k] == [(1, 0.4, 5), (2, 0.5, 2), (3, 0.0, 1)]


def test_one_trial_per_event_gives_no_pass_k_over_rewards(outcome_report):
    assert OUTCOMES.of(outcome_report[0].report).pass_k == []


def test_a_run_made_before_outcomes_were_sought_still_reports_and_says_so(shop_report):
    outcomes = OUTCOMES.of(shop_report[0].report)

    assert outcomes is not None and (outcomes.verified, outcomes.pass_rate.total) == (0, 0)
    assert {event.reason for event in outcomes.unverified} == {NOT_SOUGHT}
    assert all(d.outcome is None for d in shop_report[0].report.dialogs)


def _trial(dialog: Dialog, trial: int) -> Dialog:
    return dialog.model_copy(update={"id": f"{dialog.id}-t{trial}", "event": dialog.id, "trial": trial})
