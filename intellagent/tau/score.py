"""τ-bench's score of a run that played its published tasks (`tau.data`).

pass^k is τ-bench's: per task, from n graded trials of which c earned reward 1, C(c, k) / C(n, k);
the score is the mean over the tasks with at least k trials. A dialog that failed to run counts as a
trial with reward 0, as an episode that broke off does in τ-bench. The interval is Wilson's, with the
tasks' estimates summed as the count of successes.
"""

from __future__ import annotations

from collections import defaultdict

from intellagent.artifacts import Dialog, Event
from intellagent.artifacts.rates import pass_hat_k, wilson_interval
from intellagent.artifacts.run_report import TauFailure, TauPassK, TauScore, TauTaskResult


def tau_score(events: list[Event], dialogs: list[Dialog]) -> TauScore | None:
    """The score over the published tasks' dialogs; None when the run played no published task.

    Args:
        events: the run's events (a published task's has its `task`).
        dialogs: the chatbot's dialogs (not the mutants').
    """
    tasks = {event.id: event for event in events if event.task is not None and event.status == "ok"}
    if not tasks:
        return None
    trials: dict[str, list[Dialog]] = defaultdict(list)
    for dialog in dialogs:
        if dialog.event_id in tasks:
            trials[dialog.event_id].append(dialog)
    results = [_result(event, trials[event_id]) for event_id, event in tasks.items() if trials[event_id]]
    results.sort(key=lambda result: result.task)
    most = max((result.trials for result in results), default=0)
    return TauScore(
        tasks=len(results),
        trials=most,
        pass_k=[_pass_k(results, k) for k in range(1, most + 1)],
        errors=sum(dialog.status == "error" for played in trials.values() for dialog in played),
        results=results,
    )


def _result(event: Event, played: list[Dialog]) -> TauTaskResult:
    assert event.task is not None
    passed = {dialog.id for dialog in played
              if dialog.tau is not None and dialog.tau.passed and dialog.status != "error"}
    failures = []
    for dialog in sorted(played, key=lambda d: d.trial):
        grade = dialog.tau
        if dialog.id in passed:
            continue
        if grade is None or dialog.status == "error":
            failures.append(TauFailure(dialog=dialog.id, error=dialog.reason))
            continue
        failures.append(TauFailure(dialog=dialog.id, missed=grade.missed, unexpected=grade.unexpected,
                                   missed_reads=grade.missed_reads,
                                   unsaid=[output for output, said in grade.outputs.items() if not said],
                                   diff=grade.diff))
    return TauTaskResult(task=event.task.index, id=event.id, trials=len(played), passed=len(passed),
                         policies=event.policies, failures=failures)


def _pass_k(results: list[TauTaskResult], k: int) -> TauPassK:
    estimates = [pass_hat_k(result.trials, result.passed, k) for result in results if result.trials >= k]
    if not estimates:
        return TauPassK(k=k, value=None, tasks=0)
    interval = wilson_interval(sum(estimates), len(estimates))
    assert interval is not None
    return TauPassK(k=k, value=round(sum(estimates) / len(estimates), 4), low=round(interval[0], 4),
                    high=round(interval[1], 4), tasks=len(estimates))
