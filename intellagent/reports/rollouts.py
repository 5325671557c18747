"""The report's figures of the rollouts: how many events were searched, the paths and pairs they yielded per
policy and per flow, the best path's reward against the plain dialog's, and what the searches cost."""

from __future__ import annotations

from collections.abc import Callable

from intellagent.artifacts import PolicyCatalog, Rollout
from intellagent.artifacts.report import RolloutFigures, RolloutGroup


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
