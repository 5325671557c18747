"""Repeated trials (`trials`): how repeatable the verdicts are when every event is played several times
(`simulate.trials`, `--trials`).

pass^k, as τ-bench defines it, is the chance that all k trials of an event pass. From n ≥ k judged
trials of which c passed, C(c, k) / C(n, k) estimates it without bias: the share of the k-subsets of
those trials in which every trial passed. A run's pass^k is the mean over its events with at least k
judged trials, and a persona's the mean over the events its user played. Per policy, a trial counts
when the judge found the policy tested in it, and passes when no violation of it was found. The flip
rate is the share of event × policy pairs with two or more such trials on which the trials disagree:
the part of the verdict that is luck of the simulation; an event whose judged trials disagree is flaky.
Under `--trials auto` events have different numbers of trials, and every figure stays defined over the
trials played. The figures lead the reliability line, gate on `report.min_pass_k`, and have their panel: the
pass^k curve, and the curve per policy and per persona.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape

from intellagent.artifacts import Analysis, Dialog
from intellagent.artifacts.run_report import PassK, Report, TrialFigures
from intellagent.config import ReportConfig
from intellagent.files import id_order
from intellagent.reports.charts import pass_k_chart
from intellagent.reports.curves import pass_k_curve
from intellagent.reports.panels import policy_link
from intellagent.reports.section import JudgedRun, Section
from intellagent.reports.text import percent


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


def repeatability(figures: TrialFigures | None, report: Report) -> list[str]:
    """The reliability line's part: the trials per event, the pass^k curve, the flips and the flaky events; or that
    each event was played once."""
    if figures is None:
        return ["one trial per event (--trials K plays each event K times)"]
    curve = ", ".join(f"pass^{point.k} {percent(point.value)}" for point in figures.pass_k)
    if figures.pairs:
        flips = (f"verdicts flipped on {figures.flipped} of {figures.pairs} event×policy pairs "
                 f"({percent(figures.flip_rate)})")
    else:
        flips = "no policy was tested in two trials of one event"
    flaky = f"; flaky: {', '.join(figures.flaky)}" if figures.flaky else ""
    return [f"{trials_per_event(figures)}; {curve}; {flips}{flaky}"]


def trials_per_event(figures: TrialFigures) -> str:
    """How many times each event was played: K, or from the fewest to the most (--trials auto)."""
    if figures.uneven:
        return f"{figures.fewest} to {figures.trials} trials per event (--trials auto)"
    return f"{figures.trials} trials per event"


def trials_panel(figures: TrialFigures) -> str:
    """The pass^k curve beside the curve per policy and per persona."""
    flips = (f"Verdicts flipped on {figures.flipped} of {figures.pairs} event × policy pairs tested in two or "
             f"more trials ({percent(figures.flip_rate)})." if figures.pairs else
             "No policy was tested in two trials of one event, so no flip could be seen.")
    flaky = (f" Flaky events, whose judged trials disagreed: {', '.join(figures.flaky)}." if figures.flaky else "")
    heads = "".join(f"<th>pass^{k}</th>" for k in range(1, figures.trials + 1))
    rows = "".join(_curve_row(policy_link(pid), curve) for pid, curve in figures.policies.items())
    per_persona = "".join(_curve_row(f'<a href="#persona-{escape(name)}">{escape(name)}</a>', curve)
                          for name, curve in figures.personas.items())
    personas = (f'<h3 class="sub">pass^k per kind of user</h3><table class="compact"><thead><tr><th>User</th>{heads}'
                f"</tr></thead><tbody>{per_persona}</tbody></table>" if per_persona else "")
    return (
        '<section class="grid two">'
        f'<div class="panel"><h2>Repeated trials: pass^k</h2>'
        f'<p class="hint">{_played(figures)} pass^k is the chance that all k trials '
        f"of an event pass (τ-bench's estimate, averaged over the events with k trials or more). {escape(flips)}"
        f"{escape(flaky)}</p>"
        f"{pass_k_chart(figures.pass_k)}</div>"
        f'<div class="panel"><h2>pass^k per policy</h2>'
        f'<p class="hint">Over the trials in which the judge found the policy tested; – where no event had k '
        f"such trials.</p>"
        f'<table class="compact"><thead><tr><th>Policy</th>{heads}</tr></thead><tbody>{rows}</tbody></table>'
        f"{personas}</div></section>"
    )


def _curve_row(label: str, curve: list[PassK]) -> str:
    """A table row: its label (HTML), then pass^1..pass^K, each titled with the events it is over."""
    cells = "".join(f'<td title="over {p.events} events">{percent(p.value)}</td>' for p in curve)
    return f"<tr><td>{label}</td>{cells}</tr>"


def _played(figures: TrialFigures) -> str:
    if figures.uneven:
        return (f"Events were played {figures.fewest} to {figures.trials} times (--trials auto: more trials where the "
                "verdicts flipped or straddled a gate threshold).")
    return f"Each event was played {figures.trials} times."


def pass_k_gate(figures: TrialFigures | None, settings: ReportConfig, report: Report) -> list[str]:
    """`report.min_pass_k`: each pass^k against its minimum, or why it was not measured."""
    return [line for k, minimum in sorted(settings.min_pass_k.items()) for line in _shortfall(figures, k, minimum)]


def _shortfall(figures: TrialFigures | None, k: int, minimum: float) -> list[str]:
    trials = figures.trials if figures else 1
    if figures is None or k > trials:
        return [f"report.min_pass_k asks for pass^{k}, but each event was played {trials} time"
                f"{'' if trials == 1 else 's'}; set simulate.trials (--trials) to {k} or more"]
    figure = figures.pass_k[k - 1]
    if figure.value is None:
        return [f"pass^{k} has no verdict (no event has {k} judged trials), so it cannot reach "
                f"report.min_pass_k {minimum:g}"]
    if figure.value < minimum:
        return [f"pass^{k} {figure.value:.1%} (over {figure.events} events) is below report.min_pass_k {minimum:g}"]
    return []


def _measure(run: JudgedRun) -> TrialFigures | None:
    return trial_figures(run.artifacts.dialogs, run.rated)


TRIALS = Section(
    key="trials",
    figures=TrialFigures,
    measure=_measure,
    panel=lambda figures, page: trials_panel(figures),
    reliability=repeatability,
    asked_for=True,
    settings=("min_pass_k",),
    gate=pass_k_gate,
)
"""pass^k and the flip rate, when every event was played more than once."""
