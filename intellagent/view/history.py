"""A policy's history over the runs of a suite: its pass rate and outcome rate in each run, and the runs where it
changed significantly from the run before (the gate's `--baseline` test, each way)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from intellagent.artifacts.rates import Rate
from intellagent.artifacts.run_report import PolicyResult
from intellagent.reports.sections.baseline_comparison import significance_test
from intellagent.view.comparison import PolicyMove, policy_moves
from intellagent.view.runs import Catalogue, Run


@dataclass(frozen=True)
class HistoryPoint:
    """The policy in one run."""

    run: Run
    result: PolicyResult
    outcome: Rate | None
    """Its outcome pass rate: the graded dialogs that sampled it (None: the run graded none)."""
    move: PolicyMove | None
    """From the run before in the history; None for the first, or when the policy's text differs from it."""


@dataclass(frozen=True)
class PolicyHistory:
    """One policy of a suite over its runs, oldest first."""

    suite: str
    policy: str
    text: str
    """Its text in the newest run that holds it: the runs that hold it with another text are apart (`others`)."""
    test: str
    points: list[HistoryPoint]
    others: list[Run]
    """Runs whose policy of that id has another text: another rule, not drawn in its history."""

    @property
    def changed(self) -> list[HistoryPoint]:
        """The runs where it changed significantly from the run before."""
        return [p for p in self.points if p.move is not None and p.move.direction != "same"]


def suite_runs(catalogue: Catalogue, suite: str) -> list[Run]:
    """The runs of a suite with a report, oldest first."""
    return [run for run in catalogue.shown if run.figures is not None and run.figures.suite == suite]


def suites(catalogue: Catalogue) -> list[str]:
    """The suites of the runs, in the order of their first run."""
    return list(dict.fromkeys(run.figures.suite for run in catalogue.shown if run.figures is not None))


def suite_moves(runs: list[Run], *, alpha: float) -> list[dict[str, PolicyMove]]:
    """For each run of a suite, its policies' moves from the run before it (nothing for the first)."""
    return [{}] + [policy_moves(before, after, alpha=alpha).by_id() for before, after in pairwise(runs)]


def policy_history(catalogue: Catalogue, suite: str, policy: str, *, alpha: float) -> PolicyHistory | None:
    """The history of `policy` over the runs of `suite` that hold it with its newest text (None: no run holds it)."""
    holding = {run.name: run.figures.policies[policy] for run in suite_runs(catalogue, suite)
               if run.figures and policy in run.figures.policies}
    if not holding:
        return None
    runs = [run for run in suite_runs(catalogue, suite) if run.name in holding]
    text = holding[runs[-1].name].text
    same = [run for run in runs if holding[run.name].text == text]
    points = [
        HistoryPoint(run=run, result=holding[run.name], outcome=run.figures.policy_outcomes.get(policy),
                     move=moved.get(policy))
        for run, moved in zip(same, suite_moves(same, alpha=alpha), strict=True) if run.figures is not None
    ]
    return PolicyHistory(suite=suite, policy=policy, text=text, test=significance_test(alpha), points=points,
                         others=[run for run in runs if run not in same])
