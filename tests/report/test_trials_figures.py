"""pass^k, the flip rate, their gate and the reliability line, from repeated trials of each event."""

from __future__ import annotations

import re

import pytest

from intellagent.artifacts import Analysis, Dialog, Violation
from intellagent.artifacts.rates import pass_hat_k
from intellagent.config import ReportConfig
from intellagent.reports.gate import evaluate_gate
from intellagent.reports.html import report_html
from intellagent.reports.inputs import load_artifacts
from intellagent.reports.sections.trial_figures import TRIALS, trial_figures
from intellagent.reports.summary import reliability_line


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (4, 2, 2, 1 / 6),   # C(2,2) / C(4,2)
    (4, 2, 1, 1 / 2),
    (4, 3, 2, 1 / 2),   # C(3,2) / C(4,2) = 3/6
    (5, 5, 5, 1.0),
    (5, 4, 5, 0.0),
    (3, 0, 1, 0.0),
])
def test_pass_hat_k_against_hand_computed_values(n, c, k, expected):
    assert pass_hat_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 1, 4), (3, 4, 1), (3, 1, 0)])
def test_pass_hat_k_refuses_impossible_counts(n, c, k):
    with pytest.raises(ValueError, match="pass\\^k needs"):
        pass_hat_k(n, c, k)


def trial(event: str, number: int, *, passed: bool, tested=("P1",), broke=("P1",)) -> tuple[Dialog, Analysis]:
    dialog_id = event if number == 1 else f"{event}-t{number}"
    violations = [] if passed else [Violation(policy=p, reason="broke it") for p in broke]
    return (Dialog(id=dialog_id, event=event, trial=number, status="pass" if passed else "fail"),
            Analysis(id=dialog_id, status="pass" if passed else "fail", tested=list(tested), violations=violations,
                     source="digest"))


@pytest.fixture
def three_trials():
    """E1 passes twice and fails once (on P1); E2 passes three times; P2 is tested once, in E2."""
    pairs = [trial("E1", 1, passed=True), trial("E1", 2, passed=True), trial("E1", 3, passed=False),
             trial("E2", 1, passed=True, tested=("P1", "P2")), trial("E2", 2, passed=True),
             trial("E2", 3, passed=True)]
    return [d for d, _ in pairs], [a for _, a in pairs]


def test_pass_k_is_the_mean_over_events_and_the_flip_rate_counts_disagreeing_pairs(three_trials):
    figures = trial_figures(*three_trials)
    assert figures.trials == 3
    assert [(p.k, p.value, p.events) for p in figures.pass_k] == [
        (1, pytest.approx((2 / 3 + 1) / 2, abs=1e-4), 2), (2, pytest.approx((1 / 3 + 1) / 2, abs=1e-4), 2),
        (3, 0.5, 2),
    ]
    assert [(p.k, p.value, p.events) for p in figures.policies["P2"]] == [(1, 1.0, 1), (2, None, 0), (3, None, 0)]
    assert (figures.flipped, figures.pairs, figures.flip_rate) == (1, 2, 0.5)  # P1 on E1 flipped, on E2 held


def test_an_event_whose_judged_trials_disagree_is_flaky_by_name(three_trials):
    assert trial_figures(*three_trials).flaky == ["E1"]


@pytest.fixture
def uneven_trials():
    """As --trials auto plays them: E1 flipped and got three trials, E2 passed its one."""
    pairs = [trial("E1", 1, passed=True), trial("E1", 2, passed=False), trial("E1", 3, passed=True),
             trial("E2", 1, passed=True)]
    return [d for d, _ in pairs], [a for _, a in pairs]


def test_uneven_trials_keep_pass_k_over_the_events_with_k_trials(uneven_trials):
    figures = trial_figures(*uneven_trials)
    assert (figures.fewest, figures.trials) == (1, 3)
    assert [(p.k, p.events) for p in figures.pass_k] == [(1, 2), (2, 1), (3, 1)]
    assert figures.pass_k[2].value == 0.0 and figures.pass_k[0].value == pytest.approx((2 / 3 + 1) / 2, abs=1e-4)


def test_uneven_trials_are_said_as_a_range_with_the_flaky_events(shop_report, uneven_trials):
    result, folder = shop_report
    measured = TRIALS.with_figures(result.report, trial_figures(*uneven_trials))
    assert reliability_line(measured).startswith("reliability: 1 to 3 trials per event (--trials auto); ")
    assert "; flaky: E1; " in reliability_line(measured)
    html = report_html(measured, load_artifacts(folder), {a.id: a for a in folder.analyses.load()})
    assert "Events were played 1 to 3 times" in html and "Flaky events, whose judged trials disagreed: E1." in html


def test_one_trial_per_event_has_no_figures():
    dialog, analysis = trial("E1", 1, passed=True)
    assert trial_figures([dialog], [analysis]) is None


def test_min_pass_k_gates_on_the_curve_and_says_when_it_was_not_measured(shop_report, three_trials):
    report = shop_report[0].report
    measured = TRIALS.with_figures(report, trial_figures(*three_trials))
    settings = ReportConfig(min_pass_k={2: 0.7, 3: 0.5})
    assert evaluate_gate(measured, settings).failures == [
        "pass^2 66.7% (over 2 events) is below report.min_pass_k 0.7"
    ]
    assert evaluate_gate(report, ReportConfig(min_pass_k={2: 0.5})).failures == [
        "report.min_pass_k asks for pass^2, but each event was played 1 time; set simulate.trials (--trials) "
        "to 2 or more"
    ]


def test_min_tau_pass_k_on_a_run_without_tau_bench_tasks_says_so(shop_report):
    assert evaluate_gate(shop_report[0].report, ReportConfig(min_tau_pass_k={1: 0.5})).failures == [
        "report.min_tau_pass_k is set, but the run played no τ-bench task; give a task set with --scenarios-from "
        "tau:DIR"
    ]


def test_the_reliability_line_says_what_was_measured_or_that_nothing_was(shop_report, three_trials):
    report = shop_report[0].report
    assert reliability_line(report) == (
        "reliability: not measured; one trial per event (--trials K plays each event K times); "
        "no seeded violations (--calibrate plays mutants that break a rule on purpose)"
    )
    assert "reliability: not measured" in shop_report[1].path("report.html").read_text()
    measured = TRIALS.with_figures(report, trial_figures(*three_trials))
    assert reliability_line(measured) == (
        "reliability: 3 trials per event; pass^1 83%, pass^2 67%, pass^3 50%; "
        "verdicts flipped on 1 of 2 event×policy pairs (50%); flaky: E1; "
        "no seeded violations (--calibrate plays mutants that break a rule on purpose)"
    )


def test_the_html_report_draws_the_pass_k_curve_and_a_row_per_policy(shop_report, three_trials):
    result, folder = shop_report
    artifacts = load_artifacts(folder)
    analyses = {a.id: a for a in folder.analyses.load()}
    measured = TRIALS.with_figures(result.report, trial_figures(*three_trials))
    html = report_html(measured, artifacts, analyses)
    assert html.count('aria-label="pass^k against k"') == 1 and "Each event was played 3 times" in html
    rows = re.findall(r'<tr><td><a href="#policy-(P\d)">P\d</a></td>(.*?)</tr>', html)
    assert [(pid, re.findall(r">([^<]+)</td>", cells)) for pid, cells in rows] == [
        ("P1", ["83%", "67%", "50%"]), ("P2", ["100%", "–", "–"])
    ]
