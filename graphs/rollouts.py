"""The rollouts stage (--rollouts): a beam search over the chatbot's turns on every graded event, rewarded by
the event's expected outcome, its rewarded paths exported as training data.

    START ──route_to_search──→ search | export
    search ──route_after_search──→ search (events left, budget left) | export
    export → END

Each event is searched in turn (`rollouts.search.EventSearch`, its candidates played side by side), its tree
kept in rollouts/<event>.json and its record appended to rollouts.jsonl as it ends. Once the searches end, or
the budget stops them, the training files are written anew from every tree (`rollouts.training`). A resumed
stage searches only the events not recorded as finished (see `rollouts.events`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from intellagent.artifacts import Dialog, Event, Rollout
from intellagent.chatbots import SamplingChatbot, check_sampling, select_chatbot
from intellagent.checks import Check
from intellagent.context import RunContext
from intellagent.files import id_order
from intellagent.llm import Usage
from intellagent.llm.usage import BudgetExhausted
from intellagent.rollouts.events import budget_left, recorded, search_settings, still_to_search, unsearchable
from intellagent.rollouts.search import EventSearch, SearchSettings
from intellagent.rollouts.training import TrainingContext, jsonl, training_data
from intellagent.run_folder import RunFolder
from intellagent.simulate.setting import checks_in_force, served_world
from intellagent.stage import StageItems

from .dialog import play_turn

if TYPE_CHECKING:
    from intellagent.chatbots.mcp_world import WorldServer


class RolloutsState(TypedDict):
    """The events still to search, and whether the budget stopped the searches."""

    todo: list[Event]
    stopped: bool


@dataclass(frozen=True)
class RolloutsDeps:
    """What every search of the stage shares (the graph's runtime context), fixed while it runs.

    Attributes:
        ctx: the run.
        chatbot: the chatbot under test, sampled.
        settings: how wide and how long each search is.
        items: the searches' records, appended to rollouts.jsonl as each ends.
        usage: the stage's share of the run's accounting, within the rollouts' budget.
        compiled: the run's rules and compiled assertions.
        world_server: the run's MCP server, for an endpoint chatbot.
        plain: the simulate stage's dialog of each event (its first trial), by event id.
        training: what every training record shares.
    """

    ctx: RunContext
    chatbot: SamplingChatbot
    settings: SearchSettings
    items: StageItems[Rollout]
    usage: Usage
    compiled: list[Check[Any]]
    world_server: WorldServer | None
    plain: dict[str, Dialog]
    training: TrainingContext


async def search(state: RolloutsState, *, runtime: Runtime[RolloutsDeps]) -> dict[str, Any]:
    """Search the next event and record it; a failure is recorded as a search with status `error`."""
    deps = runtime.context
    event = state["todo"][0]
    rollout = await deps.items.run(
        lambda: searched(deps, event),
        failed=lambda reason: recorded(event, deps.settings, status="error", reason=reason),
    )
    return {"todo": state["todo"][1:], "stopped": rollout.status == "stopped"}


async def export(state: RolloutsState, *, runtime: Runtime[RolloutsDeps]) -> dict[str, Any]:
    """Record the events the budget left unsearched, and write the training files from every tree."""
    deps = runtime.context
    for event in state["todo"]:
        deps.items.artifact.append(recorded(event, deps.settings, status="stopped",
                                            reason="the budget was spent before its search began"))
    write_training(deps.ctx, deps.training)
    return {}


def route_to_search(state: RolloutsState) -> str:
    """Search the first event, if any is left."""
    return "search" if state["todo"] else "export"


def route_after_search(state: RolloutsState) -> str:
    """The next event, unless none is left or the budget is spent."""
    return "search" if state["todo"] and not state["stopped"] else "export"


@cache
def build_graph() -> CompiledStateGraph[RolloutsState, RolloutsDeps, RolloutsState, RolloutsState]:
    """The stage graph, compiled once."""
    graph = StateGraph(RolloutsState, context_schema=RolloutsDeps)
    graph.add_node("search", search)
    graph.add_node("export", export)
    graph.add_conditional_edges(START, route_to_search, ["search", "export"])
    graph.add_conditional_edges("search", route_after_search, ["search", "export"])
    graph.add_edge("export", END)
    return graph.compile()


async def searched(deps: RolloutsDeps, event: Event) -> Rollout:
    """The record of one event's search: skipped, searched to its end, or stopped by the budget."""
    settings, ctx = deps.settings, deps.ctx
    plain = deps.plain.get(event.id)
    why = unsearchable(event)
    if why is not None:
        return recorded(event, settings, status="skipped", reason=why, plain=plain)
    usage = Usage(parent=deps.usage)
    run = EventSearch(ctx=ctx, event=event, chatbot=deps.chatbot, play=play_turn, settings=settings, usage=usage,
                      compiled=deps.compiled, world_server=deps.world_server)
    status, reason = "ok", ""
    try:
        tree = await run.run()
    except BudgetExhausted as error:
        tree, status = run.tree, "stopped"
        reason = str(error) if _spent(ctx.usage) else (
            f"the rollouts' budget of ${ctx.config.rollouts.budget_usd:.2f} is spent; raise rollouts.budget_usd and "
            "run again to resume")
    ctx.folder.rollout_trees.item(event.id).save(tree)
    return recorded(event, settings, status=status, reason=reason, tree=tree,
                    tree_file=RunFolder.rollout_trees.stored(event.id), usage=usage, plain=plain,
                    context=deps.training)


def write_training(ctx: RunContext, context: TrainingContext) -> None:
    """training/sft.jsonl, preferences.jsonl and kto.jsonl, from the tree of every event searched (in id order)."""
    folder = ctx.folder
    rollouts = {rollout.id: rollout for rollout in folder.rollouts.load()}
    trees = [folder.rollout_trees.item(event_id).load() for event_id in sorted(rollouts, key=id_order)
             if rollouts[event_id].tree is not None]
    data = training_data([tree for tree in trees if tree is not None], context)
    folder.sft.write(jsonl(data.sft))
    folder.preferences.write(jsonl(data.pairs))
    folder.kto.write(jsonl(data.kto))


def training_context(ctx: RunContext) -> TrainingContext:
    """The run's policy document, the domain's tools and each policy's flows."""
    catalog = ctx.folder.policies.load()
    flows = {policy.id: policy.flows for policy in catalog.policies} if catalog else {}
    return TrainingContext(policy=ctx.environment.policy, tools=ctx.environment.tool_schemas(), flows=flows)


def _spent(usage: Usage) -> bool:
    """Whether the run's own budget (--max-cost) is spent."""
    try:
        usage.check_budget()
    except BudgetExhausted:
        return True
    return False


async def run(ctx: RunContext) -> list[Rollout]:
    """Search every valid event not searched yet, write the training data, and return every event's record.

    Raises:
        BudgetExhausted: the run's --max-cost was reached during the searches (what they made is kept).
    """
    settings = search_settings(ctx.config)
    artifact = ctx.folder.rollouts
    earlier = artifact.load()
    events = [event for event in ctx.folder.events.require() if event.status == "ok"]
    todo = still_to_search(events, artifact.finished(), settings)
    check_sampling(ctx.config, ctx.chatbot)
    chatbot = select_chatbot(ctx)
    assert isinstance(chatbot, SamplingChatbot)  # check_sampling refused any other
    dialogs = ctx.folder.dialogs.load()
    plain = {dialog.event_id: dialog for dialog in dialogs if dialog.mutant is None and dialog.trial == 1}
    items = StageItems(ctx, stage="rollouts", artifact=artifact, total=len(todo), done=len(events) - len(todo))
    # The searches play dialogs with simulate's parts: their calls are counted as the rollouts'.
    usage = Usage(parent=ctx.usage, max_cost_usd=budget_left(ctx, earlier), stage="rollouts")
    async with served_world(ctx, [chatbot]) as world_server:
        deps = RolloutsDeps(ctx=ctx, chatbot=chatbot.sampling(ctx.config.rollouts.temperature), settings=settings,
                            items=items, usage=usage, compiled=checks_in_force(ctx), world_server=world_server,
                            plain=plain, training=training_context(ctx))
        await build_graph().ainvoke(RolloutsState(todo=todo, stopped=False),
                                    {"recursion_limit": len(todo) + 5, "run_name": "rollouts"}, context=deps)
    made = artifact.finalize()
    ctx.usage.check_budget()  # the run's own budget, reached during a search: the run stops as any stage would
    return made
