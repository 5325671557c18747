"""How repeatable the verdicts are when every event is played several times (`simulate.trials`).

pass^k, as τ-bench defines it, is the chance that all k trials of an event pass. From n ≥ k judged
trials of which c passed, C(c, k) / C(n, k) estimates it without bias: the share of the k-subsets of
those trials in which every trial passed. A run's pass^k is the mean over its events with at least k
judged trials, and a persona's the mean over the events its user played. Per policy, a trial counts
when the judge found the policy tested in it, and passes when no violation of it was found. The flip
rate is the share of event × policy pairs with two or more such trials on which the trials disagree:
the part of the verdict that is luck of the simulation; an event whose judged trials disagree is flaky.
Under `--trials auto` events have different numbers of trials, and every figure stays defined over the
trials played.
"""

from __future__ import annotations

from collections import defaultdict

from intellagent.artifacts import Analysis, Dialog
from intellagent.artifacts.rates import pass_hat_k
from intellagent.artifacts.report import PassK, TrialFigures
from intellagent.files import id_order


def trial_figures(dialogs: list[Dialog], rated: list[Analysis]) -> TrialFigures | None:
    """pass^1..pass^K overall and per policy, and the flip rate; None when each event was played once.

    Args:
        dialogs: every dialog of the run (they say which event and trial they are).
        rated: the analyses with a verdict (pass or fail).
    """
    played: dict[str, int] = defaultdict(int)  # event → its trials
    for dialog in dialogs:
        played[dialog.event_id] = max(played[dialog.event_id], dialog.trial)
    trials = max(played.values(), default=1)
    if trials < 2:
        return None
    event_of = {dialog.id: dialog.event_id for dialog in dialogs}
    persona_of = {dialog.id: dialog.persona.name for dialog in dialogs if dialog.persona}
    overall: dict[str, list[bool]] = defaultdict(list)  # event → each judged trial passed?
    per_persona: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))  # persona → event → ...
    per_policy: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))  # policy → event → held?
    for analysis in rated:
        event = event_of[analysis.id]
        overall[event].append(analysis.status == "pass")
        if analysis.id in persona_of:
            per_persona[persona_of[analysis.id]][event].append(analysis.status == "pass")
        violated = {violation.policy for violation in analysis.violations}
        for policy in analysis.tested:
            per_policy[policy][event].append(policy not in violated)
    pairs = [held for events in per_policy.values() for held in events.values() if len(held) >= 2]
    flipped = sum(len(set(held)) > 1 for held in pairs)
    return TrialFigures(
        trials=trials,
        fewest=min(played.values()),
        pass_k=pass_k_curve(overall, trials),
        policies={policy: pass_k_curve(events, trials) for policy, events in sorted(per_policy.items())},
        personas={persona: pass_k_curve(events, trials) for persona, events in sorted(per_persona.items())},
        flipped=flipped,
        pairs=len(pairs),
        flip_rate=round(flipped / len(pairs), 4) if pairs else None,
        flaky=sorted((event for event, passed in overall.items() if len(set(passed)) > 1), key=id_order),
    )


def pass_k_curve(outcomes: dict[str, list[bool]], trials: int) -> list[PassK]:
    """pass^k for k = 1..trials, each the mean over the events with at least k trials.

    Args:
        outcomes: per event, whether each of its trials passed.
        trials: the most trials an event had.
    """
    curve = []
    for k in range(1, trials + 1):
        estimates = [pass_hat_k(len(held), sum(held), k) for held in outcomes.values() if len(held) >= k]
        value = round(sum(estimates) / len(estimates), 4) if estimates else None
        curve.append(PassK(k=k, value=value, events=len(estimates)))
    return curve
