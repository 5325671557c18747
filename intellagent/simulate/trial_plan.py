"""Trials sized to the noise (`--trials auto`): how many times each event is played.

Every event starts with `OPENING` trials (one when the budget cannot pay for two each). After each round an
event gets one trial more when its verdicts so far are noisy: they flipped (a pass and a fail), they rest on the
judge alone and are fewer than `JUDGED_TRIALS` (two verdicts of a model that agree are a weak sign), or the 95%
Wilson interval of its pass rate holds a threshold of the gate that applies to it (`report.fail_under`, and
`min_policy` / `min_category` of its policies) strictly inside, so that more trials could move it to either
side. Rounds go on until no event is noisy or `simulate.trials_budget` dialogs of the chatbot are planned; in a
round, the events short of their trials on the judge's word come first. A verdict a program settled costs one
or two dialogs, one that rests on the judge three; the budget goes where the verdict is luck.

The verdict of a trial is read where the simulate stage stands, from the dialog alone (`trial_verdict`): the
deterministic checks' findings, the grade against the expected outcome, the τ-bench grade, and else the user's
verdict that the critique confirmed, which rests on the judge alone (`judge_alone`); a dialog whose user's fault
could have decided it, that ran out of turns or failed to run has none. The report's judge can still
rule otherwise; the report names the events whose judged trials flipped.

`TrialRounds` holds a run's plan as the simulate stage plays it, round by round. The plan is a function of the
dialogs recorded: each round's decision reads an event's first `planned` trials only, so that a resumed run
makes the same decisions, finds their dialogs recorded, and plays nothing new.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from intellagent.artifacts import Dialog, Event
from intellagent.artifacts.rates import wilson_interval
from intellagent.config import Config, ReportConfig
from intellagent.context import RunContext, log
from intellagent.simulate.trials import trial_id

OPENING = 2
"""Trials every event starts with, when the budget pays for them: one verdict cannot flip."""
MAX_TRIALS = 100
"""Trials of one event at most, as for a fixed `simulate.trials`."""
BUDGET_PER_EVENT = 3
"""The default budget: this many dialogs per event, on average."""
JUDGED_TRIALS = 3
"""Trials an event plays before it is called settled when each of its verdicts rests on the judge alone."""
JUDGED_REASON = "its verdicts rest on the judge alone"


def budget(config: Config, events: int) -> int:
    """The most dialogs of the chatbot a run of `events` events plays under `--trials auto` (at least one each)."""
    return max(config.simulate.trials_budget or BUDGET_PER_EVENT * events, events)


def opening(events: list[Event], total: int) -> dict[str, int]:
    """The first round: `OPENING` trials per event, or one when `total` cannot pay for that many."""
    each = OPENING if total >= OPENING * len(events) else 1
    return {event.id: each for event in events}


def trial_verdict(dialog: Dialog) -> bool | None:
    """Whether the chatbot kept its rules in a dialog, as far as the dialog tells without the judge: None when it
    failed to run, ran out of turns without a breach, or its user's fault could have decided its verdict."""
    if dialog.status == "error" or dialog.deciding_fault is not None:
        return None
    if dialog.findings:
        return False
    if dialog.grade is not None:  # graded against the event's verified expected outcome: the strongest source
        return dialog.grade.passed
    if dialog.tau is not None:
        return dialog.tau.reward >= 1
    return {"pass": True, "fail": False}.get(dialog.status)


def judge_alone(dialog: Dialog) -> bool:
    """Whether a trial's verdict rests on the judge alone: no check found a breach, and neither an expected outcome
    nor τ-bench graded it, so that the user's verdict the critique confirmed is all there is."""
    return not dialog.findings and dialog.grade is None and dialog.tau is None


def thresholds(gate: ReportConfig, event: Event, categories: Mapping[str, str]) -> list[float]:
    """The gate's pass-rate thresholds that an event's verdicts count towards.

    Args:
        gate: the run's report settings.
        event: the event, with its policies.
        categories: each policy's category, by id.
    """
    found = [gate.fail_under] if gate.fail_under is not None else []
    found += [gate.min_policy[policy] for policy in event.policies if policy in gate.min_policy]
    found += [gate.min_category[categories[policy]] for policy in event.policies  # type: ignore[index]
              if categories.get(policy) in gate.min_category]
    return sorted(set(found))


def noise(verdicts: list[bool], limits: Iterable[float], *, judged: bool = False) -> str | None:
    """Why an event's verdicts call for another trial, or None when they are settled (`judged`: each of them rests
    on the judge alone)."""
    if len(set(verdicts)) > 1:
        return "its verdicts flipped"
    if judged and 0 < len(verdicts) < JUDGED_TRIALS:
        return JUDGED_REASON
    interval = wilson_interval(sum(verdicts), len(verdicts))
    if interval is None:
        return None
    low, high = interval
    straddled = [limit for limit in limits if low < limit < high]
    return f"its pass-rate interval holds the threshold {straddled[0]:g}" if straddled else None


def next_round(planned: dict[str, int], played: Mapping[str, list[Dialog]], limits: Mapping[str, list[float]],
               total: int) -> dict[str, int]:
    """The plan after one more round: a trial more for each noisy event while `total` lasts, those short of their
    trials on the judge's word first, then the others, each in the order of `planned`.

    Args:
        planned: trials per event so far, all of them played.
        played: each event's dialogs, any trial.
        limits: each event's thresholds (`thresholds`).
        total: the budget of dialogs in all.
    """
    reasons = {event_id: why for event_id, trials in planned.items() if trials < MAX_TRIALS
               and (why := _noise_of(played.get(event_id, []), trials, limits.get(event_id, []))) is not None}
    first = [event_id for event_id, why in reasons.items() if why == JUDGED_REASON]
    grown, spent = dict(planned), sum(planned.values())
    for event_id in [*first, *(event_id for event_id in reasons if event_id not in first)][:max(total - spent, 0)]:
        grown[event_id] += 1
    return grown


def _noise_of(dialogs: list[Dialog], trials: int, limits: list[float]) -> str | None:
    """Why an event's first `trials` dialogs call for another trial (see `noise`), or None."""
    by_trial = {dialog.trial: dialog for dialog in dialogs}
    ruled = [dialog for t in range(1, trials + 1) if (dialog := by_trial.get(t)) and trial_verdict(dialog) is not None]
    verdicts = [trial_verdict(dialog) is True for dialog in ruled]
    return noise(verdicts, limits, judged=bool(ruled) and all(judge_alone(dialog) for dialog in ruled))


@dataclass
class TrialRounds:
    """How many trials each event gets: `simulate.trials` each, or, under `--trials auto`, a plan that grows round
    by round where the verdicts are noisy (the functions above)."""

    events: list[Event]
    planned: dict[str, int]
    limits: dict[str, list[float]]
    budget: int | None = None  # None: a fixed number of trials, no round after the first

    @classmethod
    def of(cls, ctx: RunContext, events: list[Event]) -> TrialRounds:
        """The first round of a run's events."""
        trials = ctx.config.simulate.trials
        if trials != "auto":
            return cls(events=events, planned={event.id: trials for event in events}, limits={})
        total = budget(ctx.config, len(events))
        catalog = ctx.folder.policies.load()
        categories = {policy.id: policy.category for policy in catalog.policies} if catalog else {}
        limits = {event.id: thresholds(ctx.config.report, event, categories) for event in events}
        return cls(events=events, planned=opening(events, total), limits=limits, budget=total)

    def missing(self, done: Mapping[str, Dialog]) -> list[tuple[Event, int]]:
        """The trials of the plan (event, trial number) whose dialog is not in `done`."""
        return [(event, trial) for event in self.events for trial in range(1, self.planned[event.id] + 1)
                if trial_id(event.id, trial) not in done]

    def grow(self, dialogs: list[Dialog]) -> bool:
        """Plan the next round from the dialogs recorded; False when there is none (the plan is final)."""
        if self.budget is None:
            return False
        played: dict[str, list[Dialog]] = defaultdict(list)
        for dialog in dialogs:
            if dialog.role == "chatbot":
                played[dialog.event_id].append(dialog)
        grown = next_round(self.planned, played, self.limits, self.budget)
        if grown == self.planned:
            return False
        log.info("--trials auto: one trial more for %s", ", ".join(k for k in grown if grown[k] != self.planned[k]))
        self.planned = grown
        return True
