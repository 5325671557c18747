"""Which events the rollouts search, what each search is recorded as, and what the budget leaves.

An event is searched when it has an expected outcome to reward the paths by and a world to play them on;
otherwise it is recorded `skipped` with the reason. A search is recorded once it ends: `ok`, or `stopped` when
the budget ran out during it (its tree keeps what was played). A resumed stage searches again what is not
recorded `ok` or `skipped` under the same settings: the LLM cache answers every request the stopped search
already made, so what it paid for costs nothing again.
"""

from __future__ import annotations

from collections.abc import Mapping

from intellagent.artifacts import Dialog, Event, Rollout, RolloutTree
from intellagent.config import Config
from intellagent.context import RunContext
from intellagent.llm import Usage
from intellagent.rollouts.search import SearchSettings
from intellagent.rollouts.training import TrainingContext, preference_pairs


def search_settings(config: Config) -> SearchSettings:
    """The search's width and length from the config (`rollouts`; its turns default to `simulate.max_turns`)."""
    rollouts = config.rollouts
    return SearchSettings(beam=rollouts.beam, branch=rollouts.branch,
                          max_turns=rollouts.max_turns or config.simulate.max_turns)


def unsearchable(event: Event) -> str | None:
    """Why `event` cannot be searched, or None."""
    if event.expected is None:
        return "it has no expected outcome to reward the paths by"
    if event.database is None:
        return "it has no world to play the paths on"
    return None


def still_to_search(events: list[Event], recorded: Mapping[str, Rollout], settings: SearchSettings) -> list[Event]:
    """The events whose search is not recorded as finished (`ok` or `skipped`) under these settings."""
    def finished(rollout: Rollout | None) -> bool:
        return (rollout is not None and rollout.status in ("ok", "skipped")
                and (rollout.beam, rollout.branch, rollout.max_turns) == (settings.beam, settings.branch,
                                                                          settings.max_turns))

    return [event for event in events if not finished(recorded.get(event.id))]


def budget_left(ctx: RunContext, earlier: list[Rollout]) -> float:
    """What the rollouts may still spend: their budget less what every earlier search cost (each record of the
    file counts, a search stopped and redone included: the cache answered what it had paid for)."""
    return max(0.0, ctx.config.rollouts.budget_usd - sum(rollout.cost_usd for rollout in earlier))


def recorded(event: Event, settings: SearchSettings, *, status: str, reason: str = "", tree: RolloutTree | None = None,
             tree_file: str | None = None, usage: Usage | None = None, plain: Dialog | None = None,
             context: TrainingContext | None = None) -> Rollout:
    """The record of an event's search (its tree's figures when it has one)."""
    rollout = Rollout(id=event.id, status=status, reason=reason, policies=event.policies,  # type: ignore[arg-type]
                      beam=settings.beam, branch=settings.branch, max_turns=settings.max_turns, tree=tree_file,
                      plain_reward=plain.grade.reward if plain is not None and plain.grade is not None else None)
    if usage is not None:
        total = usage.total
        rollout.calls, rollout.cost_usd = total.calls, total.cost_usd
    if tree is not None:
        ended = tree.ended()
        rollout.paths = len(ended)
        rollout.rewarded = len(tree.rewarded())
        rollout.best_reward = max((turn.grade.reward for turn in ended if turn.grade), default=None)
        rollout.pairs = len(preference_pairs(tree, context)) if context is not None else 0
    return rollout
