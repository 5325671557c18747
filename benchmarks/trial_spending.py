"""Where `--trials auto` spends its trials, against a fixed K for every event, on the same budget.

    python benchmarks/trial_spending.py
    python benchmarks/trial_spending.py --events 40 --flaky 0.3 --judged 0.5 --judge-error 0.1 --budget-per-event 3
    python benchmarks/trial_spending.py --fail-under 0.8 --budget-per-event 5 --runs 200

A synthetic run, with no model; both strategies read the same draws of each event's verdicts, trial by trial,
so that they differ only in how many of them they read. Each event has a true chance that the chatbot keeps its
rules: 0 or 1 for a settled event, drawn between 0.2 and 0.8 for a flaky one. Its trials' verdicts rest either on a
program (a check, an expected outcome: the verdict is what the chatbot did) or, for a share `--judged` of the
events, on the judge alone, which reads a trial wrong with the chance `--judge-error`: a settled chatbot then gets
a flaky verdict, as it does in a run. An event is flaky when its verdict is: its chatbot is, or a judge that errs
reads it. Both strategies get the same budget of dialogs. Printed per strategy, averaged over the runs: the
dialogs played, the trials per settled and per flaky event, the share of flaky events seen to flip (a flaky event
whose trials all agreed looks settled), in all and among the events whose verdicts rest on the judge alone, and
with a gate threshold the share of events put on the wrong side of it by their observed pass rate.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intellagent.artifacts import Dialog, Event, OutcomeGrade
from intellagent.config import ReportConfig
from intellagent.simulate import trial_plan
from intellagent.simulate.trials import trial_id


@dataclass
class SyntheticEvent:
    """One event of a synthetic run: the chance that its chatbot keeps its rules, who rules on its trials, and the
    verdicts of its trials as drawn so far (each strategy reads them from the first)."""

    kept: float
    judged: bool  # its verdicts rest on the judge alone
    judge_error: float
    draws: random.Random
    drawn: list[bool] = field(default_factory=list)

    def verdicts(self, trials: int) -> list[bool]:
        """The verdicts of its first `trials` trials."""
        while len(self.drawn) < trials:
            self.drawn.append(self.draws.random() < self.verdict_chance)
        return self.drawn[:trials]

    @property
    def verdict_chance(self) -> float:
        """The chance that a trial's verdict is a pass."""
        if not self.judged:
            return self.kept
        return self.kept * (1 - self.judge_error) + (1 - self.kept) * self.judge_error

    @property
    def flaky(self) -> bool:
        """Whether its verdict is luck."""
        return 0 < self.verdict_chance < 1


@dataclass
class Outcome:
    """What one strategy did on one synthetic run."""

    dialogs: int
    settled_trials: float
    flaky_trials: float
    flaky_seen: float
    judged_flaky_seen: float
    wrong_side: float


def synthetic_events(rng: random.Random, count: int, flaky: float, judged: float,
                     judge_error: float) -> dict[str, SyntheticEvent]:
    """Event id → the event."""
    events = {}
    for number in range(1, count + 1):
        kept = rng.uniform(0.2, 0.8) if rng.random() < flaky else float(rng.random() < 0.5)
        events[f"E{number}"] = SyntheticEvent(kept=kept, judged=rng.random() < judged, judge_error=judge_error,
                                              draws=random.Random(rng.random()))
    return events


PASSED = OutcomeGrade(reward=1.0, state_match=True, expected_calls=1, made_calls=1, matched_calls=1, progress=1.0)
FAILED = PASSED.model_copy(update={"reward": 0.0, "state_match": False, "matched_calls": 0, "progress": 0.0})


def played(events: dict[str, SyntheticEvent], plan: dict[str, int],
           verdicts: dict[str, list[bool]]) -> dict[str, list[Dialog]]:
    """Every event's dialogs up to its planned trials (their verdicts kept in `verdicts`): a judged event's verdict
    as the user's confirmed one, another's as its grade against the expected outcome."""
    dialogs = {}
    for event_id, trials in plan.items():
        event = events[event_id]
        drawn = verdicts[event_id] = event.verdicts(trials)
        dialogs[event_id] = [Dialog(id=trial_id(event_id, t), event=event_id, trial=t,
                                    status="pass" if passed else "fail",
                                    grade=None if event.judged else PASSED if passed else FAILED)
                             for t, passed in enumerate(drawn, start=1)]
    return dialogs


def outcome(events: dict[str, SyntheticEvent], verdicts: dict[str, list[bool]], fail_under: float | None) -> Outcome:
    flaky = [e for e, event in events.items() if event.flaky]
    settled = [e for e in events if e not in flaky]
    judged_flaky = [e for e in flaky if events[e].judged]
    wrong = (sum((sum(v) / len(v) >= fail_under) != (events[e].verdict_chance >= fail_under)
                 for e, v in verdicts.items()) / len(verdicts) if fail_under is not None else 0.0)

    def seen(among: list[str]) -> float:
        return sum(len(set(verdicts[e])) > 1 for e in among) / max(len(among), 1)

    return Outcome(
        dialogs=sum(len(v) for v in verdicts.values()),
        settled_trials=sum(len(verdicts[e]) for e in settled) / max(len(settled), 1),
        flaky_trials=sum(len(verdicts[e]) for e in flaky) / max(len(flaky), 1),
        flaky_seen=seen(flaky),
        judged_flaky_seen=seen(judged_flaky),
        wrong_side=wrong,
    )


def fixed(events: dict[str, SyntheticEvent], k: int, fail_under: float | None) -> Outcome:
    """A fixed K trials for every event."""
    verdicts: dict[str, list[bool]] = {}
    played(events, dict.fromkeys(events, k), verdicts)
    return outcome(events, verdicts, fail_under)


def auto(events: dict[str, SyntheticEvent], budget: int, fail_under: float | None) -> Outcome:
    """`--trials auto` within `budget` dialogs, round by round as the simulate stage plans them."""
    gate = ReportConfig(fail_under=fail_under)
    synthetic = [Event(id=event_id, policies=[]) for event_id in events]
    limits = {event.id: trial_plan.thresholds(gate, event, {}) for event in synthetic}
    plan = trial_plan.opening(synthetic, budget)
    verdicts: dict[str, list[bool]] = {}
    while True:
        grown = trial_plan.next_round(plan, played(events, plan, verdicts), limits, budget)
        if grown == plan:
            return outcome(events, verdicts, fail_under)
        plan = grown


def mean(outcomes: list[Outcome], field: str) -> float:
    return sum(getattr(o, field) for o in outcomes) / len(outcomes)


def compared(*, events: int, flaky: float, judged: float, judge_error: float, budget_per_event: int,
             fail_under: float | None, runs: int, seed: int) -> dict[str, list[Outcome]]:
    """Each strategy's outcomes over `runs` synthetic runs, the same events for both."""
    rng = random.Random(seed)
    rows: dict[str, list[Outcome]] = {"fixed": [], "auto": []}
    for _ in range(runs):
        run = synthetic_events(rng, events, flaky, judged, judge_error)
        rows["fixed"].append(fixed(run, budget_per_event, fail_under))
        rows["auto"].append(auto(run, budget_per_event * events, fail_under))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=30)
    parser.add_argument("--flaky", type=float, default=0.3, help="share of events whose chatbot's conduct is luck")
    parser.add_argument("--judged", type=float, default=0.5, help="share of events whose verdicts rest on the judge")
    parser.add_argument("--judge-error", type=float, default=0.1, help="the judge's chance of reading a trial wrong")
    parser.add_argument("--budget-per-event", type=int, default=3, help="K of the fixed strategy; auto's budget/N")
    parser.add_argument("--fail-under", type=float, default=None, help="a gate threshold (auto plays to clear it)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = compared(events=args.events, flaky=args.flaky, judged=args.judged, judge_error=args.judge_error,
                    budget_per_event=args.budget_per_event, fail_under=args.fail_under, runs=args.runs,
                    seed=args.seed)
    print(f"{args.events} events, {args.flaky:.0%} flaky, {args.judged:.0%} judged (error {args.judge_error:.0%}), "
          f"budget {args.budget_per_event} per event, fail_under {args.fail_under}, {args.runs} runs")
    print(f"{'strategy':<9} {'dialogs':>8} {'per settled':>12} {'per flaky':>10} {'flaky seen':>11} "
          f"{'judged seen':>12} {'wrong side':>11}")
    for name, outcomes in rows.items():
        print(f"{name:<9} {mean(outcomes, 'dialogs'):>8.1f} {mean(outcomes, 'settled_trials'):>12.2f} "
              f"{mean(outcomes, 'flaky_trials'):>10.2f} {mean(outcomes, 'flaky_seen'):>11.0%} "
              f"{mean(outcomes, 'judged_flaky_seen'):>12.0%} {mean(outcomes, 'wrong_side'):>11.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
