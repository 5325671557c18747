"""The rollouts (`rollouts`, with `--rollouts`): how many events were searched, the paths and pairs they yielded
per policy and per flow, the best path's reward against the plain dialog's, and what the searches cost."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from intellagent.artifacts import PolicyCatalog, Rollout
from intellagent.artifacts.run_report import RolloutFigures, RolloutGroup
from intellagent.reports.section import Section
from intellagent.reports.text import counted, one_line


def rollout_figures(rollouts: list[Rollout], catalog: PolicyCatalog) -> RolloutFigures | None:
    """The figures of a run's searches (None when it did not roll out)."""
    if not rollouts:
        return None
    searched = [rollout for rollout in rollouts if rollout.tree is not None]
    compared = [rollout for rollout in searched if rollout.best_reward is not None and rollout.plain_reward is not None]
    flows_of = {policy.id: policy.flows for policy in catalog.policies}
    return RolloutFigures(
        events=len(searched),
        skipped=sum(rollout.status == "skipped" for rollout in rollouts),
        stopped=sum(rollout.status == "stopped" for rollout in rollouts),
        errors=sum(rollout.status == "error" for rollout in rollouts),
        paths=sum(rollout.paths for rollout in searched),
        rewarded=sum(rollout.rewarded for rollout in searched),
        pairs=sum(rollout.pairs for rollout in searched),
        compared=len(compared),
        best_reward=_mean([rollout.best_reward for rollout in compared]),
        plain_reward=_mean([rollout.plain_reward for rollout in compared]),
        improved=sum((rollout.best_reward or 0) > (rollout.plain_reward or 0) for rollout in compared),
        calls=sum(rollout.calls for rollout in rollouts),
        cost_usd=sum(rollout.cost_usd for rollout in rollouts),
        policies=[_group(policy.id, policy.text, searched, lambda r, p=policy.id: p in r.policies)
                  for policy in catalog.policies if any(policy.id in r.policies for r in searched)],
        flows=[_group(flow.id, flow.name, searched,
                      lambda r, f=flow.id: any(f in flows_of.get(p, []) for p in r.policies))
               for flow in catalog.flows
               if any(flow.id in flows_of.get(p, []) for r in searched for p in r.policies)],
    )


def _group(group_id: str, name: str, searched: list[Rollout], member: Callable[[Rollout], bool]) -> RolloutGroup:
    mine = [rollout for rollout in searched if member(rollout)]
    return RolloutGroup(id=group_id, name=name, events=len(mine), paths=sum(r.paths for r in mine),
                        rewarded=sum(r.rewarded for r in mine), pairs=sum(r.pairs for r in mine))


def _mean(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return sum(known) / len(known) if known else None


def rollouts_line(figures: RolloutFigures) -> str:
    """What the rollouts searched and yielded, against the plain dialogs, and what they cost, on one line."""
    parts = [f"rollouts: {counted(figures.events, 'event')} searched, {counted(figures.paths, 'path')} ended, "
             f"{figures.rewarded} positive, {counted(figures.pairs, 'preference pair')} (training/README.md)"]
    if figures.best_reward is not None and figures.plain_reward is not None:
        parts.append(f"best path's reward {figures.best_reward:.2f} against the dialog's {figures.plain_reward:.2f} "
                     f"({figures.improved} of {counted(figures.compared, 'event')} better)")
    parts.append(f"{counted(figures.calls, 'call')}, ${figures.cost_usd:.2f}")
    apart = [f"{counted(n, 'event')} {why}" for n, why in (
        (figures.stopped, "stopped by the budget (a rerun resumes them)"), (figures.skipped, "with nothing to reward"),
        (figures.errors, "failed")) if n]
    return "; ".join(parts + apart)


def rollouts_panel(figures: RolloutFigures) -> str:
    """The panel of the rollouts: what the searches yielded per policy and per flow."""
    return (
        '<section class="panel" id="rollouts"><h2>Rollouts and training data</h2>'
        f'<p class="hint">{escape(rollouts_line(figures))}. A positive path (its outcome passed above what doing '
        "nothing scores, no program found a breach, the judge found no sampled rule broken, its simulated user made "
        "no fault) is a supervised example in training/sft.jsonl; at each of its turns, a sibling worse by the "
        "margin or condemned by a verdict makes a pair in training/preferences.jsonl (and two records in "
        "training/kto.jsonl). training/README.md says what was written and what was left out.</p>"
        f"{_table('Policy', figures.policies)}{_table('Flow', figures.flows)}</section>"
    )


def _table(label: str, groups: list[RolloutGroup]) -> str:
    if not groups:
        return ""
    rows = "".join(
        f"<tr><td>{escape(group.id)}</td><td>{escape(one_line(group.name, 90))}</td><td>{group.events}</td>"
        f"<td>{group.paths}</td><td>{group.rewarded}</td><td>{group.pairs}</td></tr>"
        for group in groups
    )
    return (f'<table class="compact"><thead><tr><th>{label}</th><th></th><th>Events</th><th>Paths</th>'
            f"<th>Positive</th><th>Pairs</th></tr></thead><tbody>{rows}</tbody></table>")


ROLLOUTS = Section(
    key="rollouts",
    figures=RolloutFigures,
    measure=lambda run: rollout_figures(run.artifacts.rollouts, run.artifacts.catalog),
    summary=lambda figures, report: [rollouts_line(figures)],
    panel=lambda figures, page: rollouts_panel(figures),
)
"""What the rollouts searched and yielded."""
