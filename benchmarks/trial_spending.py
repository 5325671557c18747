"""Where `--trials auto` spends its trials, against a fixed K for every event, on the same budget.

    python benchmarks/trial_spending.py
    python benchmarks/trial_spending.py --events 40 --flaky 0.3 --budget-per-event 3 --fail-under 0.8 --runs 200

A synthetic run, with no model: each event has a true chance of passing, 0 or 1 for a settled event and
drawn between 0.2 and 0.8 for a flaky one, and each trial's verdict is drawn from it. Both strategies get the
same budget of dialogs. Printed per strategy, averaged over the runs: the dialogs played, the trials per
settled and per flaky event, the share of flaky events seen to flip (a flaky event whose trials all agreed
looks settled), and with a gate threshold the share of events put on the wrong side of it by their observed
pass rate.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from pathlib import Path

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intellagent.artifacts import Dialog, Event
from intellagent.config import ReportConfig
from intellagent.simulate import trial_plan
from intellagent.simulate.trials import trial_id


@dataclass
class Outcome:
    """What one strategy did on one synthetic run."""

    dialogs: int
    settled_trials: float
    flaky_trials: float
    flaky_seen: float
    wrong_side: float


def synthetic_events(rng: random.Random, count: int, flaky: float) -> dict[str, float]:
    """Event id → its true chance of passing."""
    chances = {}
    for number in range(1, count + 1):
        chances[f"E{number}"] = rng.uniform(0.2, 0.8) if rng.random() < flaky else float(rng.random() < 0.5)
    return chances


def played(chances: dict[str, float], plan: dict[str, int], rng: random.Random,
           verdicts: dict[str, list[bool]]) -> dict[str, list[Dialog]]:
    """Every event's dialogs up to its planned trials, drawing the verdicts of the trials not drawn yet."""
    dialogs = {}
    for event_id, trials in plan.items():
        drawn = verdicts.setdefault(event_id, [])
        while len(drawn) < trials:
            drawn.append(rng.random() < chances[event_id])
        dialogs[event_id] = [Dialog(id=trial_id(event_id, t), event=event_id, trial=t,
                                    status="pass" if passed else "fail") for t, passed in enumerate(drawn, start=1)]
    return dialogs


def outcome(chances: dict[str, float], verdicts: dict[str, list[bool]], fail_under: float | None) -> Outcome:
    flaky = [e for e, p in chances.items() if 0 < p < 1]
    settled = [e for e in chances if e not in flaky]
    wrong = (sum((sum(v) / len(v) >= fail_under) != (chances[e] >= fail_under) for e, v in verdicts.items())
             / len(verdicts) if fail_under is not None else 0.0)
    return Outcome(
        dialogs=sum(len(v) for v in verdicts.values()),
        settled_trials=sum(len(verdicts[e]) for e in settled) / max(len(settled), 1),
        flaky_trials=sum(len(verdicts[e]) for e in flaky) / max(len(flaky), 1),
        flaky_seen=sum(len(set(verdicts[e])) > 1 for e in flaky) / max(len(flaky), 1),
        wrong_side=wrong,
    )


def fixed(chances: dict[str, float], k: int, rng: random.Random, fail_under: float | None) -> Outcome:
    verdicts: dict[str, list[bool]] = {}
    played(chances, dict.fromkeys(chances, k), rng, verdicts)
    return outcome(chances, verdicts, fail_under)


def auto(chances: dict[str, float], budget: int, rng: random.Random, fail_under: float | None) -> Outcome:
    gate = ReportConfig(fail_under=fail_under)
    events = [Event(id=event_id, policies=[]) for event_id in chances]
    limits = {event.id: trial_plan.thresholds(gate, event, {}) for event in events}
    plan = trial_plan.opening(events, budget)
    verdicts: dict[str, list[bool]] = {}
    while True:
        grown = trial_plan.next_round(plan, played(chances, plan, rng, verdicts), limits, budget)
        if grown == plan:
            return outcome(chances, verdicts, fail_under)
        plan = grown


def mean(outcomes: list[Outcome], field: str) -> float:
    return sum(getattr(o, field) for o in outcomes) / len(outcomes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=30)
    parser.add_argument("--flaky", type=float, default=0.3, help="share of events whose verdict is luck")
    parser.add_argument("--budget-per-event", type=int, default=3, help="K of the fixed strategy; auto's budget/N")
    parser.add_argument("--fail-under", type=float, default=None, help="a gate threshold (auto plays to clear it)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows: dict[str, list[Outcome]] = {"fixed": [], "auto": []}
    for _ in range(args.runs):
        chances = synthetic_events(rng, args.events, args.flaky)
        rows["fixed"].append(fixed(chances, args.budget_per_event, rng, args.fail_under))
        rows["auto"].append(auto(chances, args.budget_per_event * args.events, rng, args.fail_under))
    print(f"{args.events} events, {args.flaky:.0%} flaky, budget {args.budget_per_event} per event, "
          f"fail_under {args.fail_under}, {args.runs} runs")
    print(f"{'strategy':<9} {'dialogs':>8} {'per settled':>12} {'per flaky':>10} {'flaky seen':>11} {'wrong side':>11}")
    for name, outcomes in rows.items():
        print(f"{name:<9} {mean(outcomes, 'dialogs'):>8.1f} {mean(outcomes, 'settled_trials'):>12.2f} "
              f"{mean(outcomes, 'flaky_trials'):>10.2f} {mean(outcomes, 'flaky_seen'):>11.0%} "
              f"{mean(outcomes, 'wrong_side'):>11.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
