"""The trial benchmark (benchmarks/trial_spending.py): `--trials auto` finds the events whose verdicts rest on the
judge alone flaky at least as often as a fixed three trials, within the same budget; on events a program settles it
spends less and sees fewer flips, as the documentation says."""

from __future__ import annotations

from tests.conftest import load_benchmark

RUNS = dict(events=30, flaky=0.3, judge_error=0.1, budget_per_event=3, fail_under=None, runs=20, seed=4)


def means(judged: float) -> dict[str, dict[str, float]]:
    benchmark = load_benchmark("trial_spending")
    rows = benchmark.compared(judged=judged, **RUNS)
    return {name: {field: benchmark.mean(outcomes, field) for field in ("dialogs", "flaky_seen", "judged_flaky_seen",
                                                                         "settled_trials")}
            for name, outcomes in rows.items()}


def test_auto_finds_the_judged_flaky_events_at_least_as_often_as_three_trials_within_their_budget():
    figures = means(judged=0.5)
    assert figures["auto"]["judged_flaky_seen"] >= figures["fixed"]["judged_flaky_seen"] > 0
    assert figures["auto"]["dialogs"] <= figures["fixed"]["dialogs"] == 90


def test_with_every_verdict_on_the_judge_auto_sees_as_many_flaky_events_as_three_trials():
    figures = means(judged=1.0)
    assert figures["auto"]["flaky_seen"] >= figures["fixed"]["flaky_seen"]
    assert figures["auto"]["dialogs"] <= 90


def test_auto_spends_two_trials_on_an_event_a_program_settled_and_sees_fewer_of_its_flips():
    figures = means(judged=0.0)
    assert figures["auto"]["settled_trials"] == 2 and figures["fixed"]["settled_trials"] == 3
    assert figures["auto"]["flaky_seen"] < figures["fixed"]["flaky_seen"]
