"""Which events the rollouts search, each event's search, what it is recorded as, and what the budget leaves.

An event is searched when it has an expected outcome to reward the paths by and a world to play them on;
otherwise it is recorded `skipped` with the reason. A search is recorded once it ends: `ok`, or `stopped` when
the budget ran out during it (its tree keeps what was played). A resumed stage searches again what is not
recorded `ok` or `skipped` under the same settings: the LLM cache answers every request the stopped search
already made, so what it paid for costs nothing again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from intellagent.artifacts import Dialog, Event, OutcomeFloor, Rollout, RolloutTree
from intellagent.chatbots import SamplingChatbot, check_sampling, select_chatbot
from intellagent.config import Config
from intellagent.context import RunContext
from intellagent.environment import worlds
from intellagent.llm import Usage
from intellagent.llm.accounting import BudgetExhausted
from intellagent.modes import grader, user_role
from intellagent.outcomes.floor import floor
from intellagent.rollouts.export import training_context
from intellagent.rollouts.pairs import preference_pairs
from intellagent.rollouts.positives import PathJudge, positives
from intellagent.rollouts.search import EventSearch, SearchSettings
from intellagent.rollouts.training_context import TrainingContext
from intellagent.run_folder import RunFolder
from intellagent.simulate.control import Way, own_way
from intellagent.simulate.player import DialogPlayer, PlayDialog


@dataclass(frozen=True)
class Searches:
    """What every event's search in the stage shares, set up once, and each search recorded.

    Attributes:
        ctx: the run.
        player: plays the candidates of every search.
        chatbot: the chatbot under test, sampled at `rollouts.temperature`.
        settings: how wide and how long each search is.
        usage: the stage's share of the run's accounting, within the rollouts' budget.
        way: the run's own way of playing where the user has tools, which the paths are played too.
        plain: the simulate stage's dialog of each event (the chatbot's first trial), by event id.
        training: what every training record shares.
        judge: asked about every candidate positive.
    """

    ctx: RunContext
    player: DialogPlayer
    chatbot: SamplingChatbot
    settings: SearchSettings
    usage: Usage
    way: Way
    plain: dict[str, Dialog]
    training: TrainingContext
    judge: PathJudge

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, settings: SearchSettings, earlier: list[Rollout], *,
                   play: PlayDialog) -> AsyncIterator[Searches]:
        """The stage's searches while it runs (`earlier`: rollouts.jsonl as an earlier invocation left it, whose
        searches count against the budget; `play`: the dialog graph)."""
        check_sampling(ctx.config, ctx.chatbot)
        chatbot = select_chatbot(ctx)
        assert isinstance(chatbot, SamplingChatbot)  # check_sampling refused any other
        plain = {dialog.event_id: dialog for dialog in ctx.folder.dialogs.load()
                 if dialog.role == "chatbot" and dialog.trial == 1}
        # The searches play dialogs with simulate's parts: their calls are counted as the rollouts'.
        usage = Usage(parent=ctx.usage, max_cost_usd=budget_left(ctx, earlier), stage="rollouts")
        way = own_way(ctx.config, ctx.environment)
        async with DialogPlayer.open(ctx, [chatbot], play=play, user_role=user_role, grader=grader) as player:
            yield cls(ctx=ctx, player=player, chatbot=chatbot.sampling(ctx.config.rollouts.temperature),
                      settings=settings, usage=usage, way=way, plain=plain,
                      training=training_context(ctx, way.control),
                      judge=PathJudge(llm=ctx.llms["analysis"], catalog=ctx.folder.policies.load()))

    async def searched(self, event: Event) -> Rollout:
        """The record of one event's search: skipped, searched to its end, or stopped by the budget (its tree is
        kept in rollouts/<event>.json)."""
        plain = self.plain.get(event.id)
        why = unsearchable(event)
        if why is not None:
            return recorded(event, self.settings, status="skipped", reason=why, plain=plain)
        usage = Usage(parent=self.usage)
        search = EventSearch(event=event, chatbot=self.chatbot, player=self.player, settings=self.settings,
                             usage=usage, way=self.way, judge=self.judge, floor=outcome_floor(self.ctx, event))
        status, reason = "ok", ""
        try:
            tree = await search.run()
        except BudgetExhausted as error:
            tree, status = search.tree, "stopped"
            reason = str(error) if self.ctx.usage.exhausted() else (
                f"the rollouts' budget of ${self.ctx.config.rollouts.budget_usd:.2f} is spent; raise "
                "rollouts.budget_usd and run again to resume")
        self.ctx.folder.rollout_trees.item(event.id).save(tree)
        return recorded(event, self.settings, status=status, reason=reason, tree=tree,
                        tree_file=RunFolder.rollout_trees.stored(event.id), usage=usage, plain=plain,
                        context=self.training)

    def unsearched(self, event: Event, *, status: str, reason: str) -> Rollout:
        """The record of an event whose search failed (`error`) or never began (`stopped`: the budget was spent)."""
        return recorded(event, self.settings, status=status, reason=reason)


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


def outcome_floor(ctx: RunContext, event: Event) -> OutcomeFloor | None:
    """The floor of the event's expected outcome: as populate measured it, or measured now for an outcome stored
    before floors were (None: the event has no outcome)."""
    expected = event.expected
    if expected is None or expected.floor is not None:
        return expected.floor if expected else None
    changes = worlds.stored_changes(ctx.folder.path(expected.world)) if expected.world else {}
    return floor(ctx.environment, expected, changes)


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
        rollout.rewarded = len(positives(tree))
        rollout.best_reward = max((turn.grade.reward for turn in ended if turn.grade), default=None)
        rollout.pairs = len(preference_pairs(tree, context)) if context is not None else 0
    return rollout

