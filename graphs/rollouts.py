"""The rollouts stage (--rollouts): a beam search over the chatbot's turns on every graded event, rewarded by
the event's expected outcome, its rewarded paths exported as training data.

    START ──route_to_search──→ search | export
    search ──route_after_search──→ search (events left, budget left) | export
    export → END

Each event is searched in turn (`rollouts.search_plan.Searches`, its candidates played side by side by the dialog
player), its tree kept in rollouts/<event>.json and its record appended to rollouts.jsonl as it ends. Once the
searches end, or the budget stops them, the training files are written anew from every tree
(`rollouts.export`). A resumed stage searches only the events not recorded as finished (see `rollouts.search_plan`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from intellagent.artifacts import Event, Rollout
from intellagent.context import RunContext
from intellagent.rollouts.export import write_training
from intellagent.rollouts.search_plan import Searches, search_settings, still_to_search
from intellagent.stage import StageItems

from .dialog import play_dialog


class RolloutsState(TypedDict):
    """The events still to search, and whether the budget stopped the searches."""

    todo: list[Event]
    stopped: bool


@dataclass(frozen=True)
class RolloutsDeps:
    """What the nodes work with (the graph's runtime context), fixed while it runs.

    Attributes:
        searches: what every search shares, and each event's search.
        items: the searches' records, appended to rollouts.jsonl as each ends.
    """

    searches: Searches
    items: StageItems[Rollout]


async def search(state: RolloutsState, *, runtime: Runtime[RolloutsDeps]) -> dict[str, Any]:
    """Search the next event and record it; a failure is recorded as a search with status `error`."""
    deps = runtime.context
    event = state["todo"][0]
    rollout = await deps.items.run(lambda: deps.searches.searched(event),
                                   failed=lambda reason: deps.searches.unsearched(event, status="error", reason=reason))
    return {"todo": state["todo"][1:], "stopped": rollout.status == "stopped"}


async def export(state: RolloutsState, *, runtime: Runtime[RolloutsDeps]) -> dict[str, Any]:
    """Record the events the budget left unsearched, and write the training files from every tree."""
    deps = runtime.context
    for event in state["todo"]:
        deps.items.artifact.append(deps.searches.unsearched(
            event, status="stopped", reason="the budget was spent before its search began"))
    write_training(deps.searches.ctx, deps.searches.training)
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
    async with Searches.open(ctx, settings, earlier, play=play_dialog) as searches:
        items = StageItems(ctx, stage="rollouts", artifact=artifact, total=len(todo), done=len(events) - len(todo))
        await build_graph().ainvoke(RolloutsState(todo=todo, stopped=False),
                                    {"recursion_limit": len(todo) + 5, "run_name": "rollouts"},
                                    context=RolloutsDeps(searches=searches, items=items))
    made = artifact.finalize()
    ctx.usage.check_budget()  # the run's own budget, reached during a search: the run stops as any stage would
    return made
