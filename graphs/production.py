"""The production stage: the chatbot's real conversations judged as the tests' dialogs are, and its failures kept
as regression scenarios.

    judge ──► regress

`judge` has the verdict on every conversation (`production.judgement`): the transcripts file
(`transcripts.path`) read in its format, the conversations' parts put back together, what is personal masked
(`transcripts.redact`), the checks that need only the trace run, transcripts.jsonl written, and each conversation
judged by the report's judge on every policy of the catalog, beside the checks' findings; a record that holds no
conversation is recorded as an `error` with its place, and the rest go on. production.jsonl keeps each verdict,
and a conversation is judged again only when it changed: when describe sampled by production first
(`describe.weights_from: transcripts`), the verdicts are already made. `regress` writes the failing conversations
as a frozen test set, regression/, that `--scenarios-from` plays. The report sets production beside the tests
(`production_figures`), or alone in a run that played none. Without transcripts the stage does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from intellagent.artifacts import Analysis
from intellagent.context import RunContext
from intellagent.production.judgement import production_verdicts
from intellagent.production.regression import write_regression_set


class ProductionState(TypedDict, total=False):
    """The verdict on each conversation."""

    analyses: list[Analysis]


@dataclass(frozen=True)
class ProductionDeps:
    """What the nodes work with (the graph's runtime context): the run."""

    ctx: RunContext


Update = dict[str, Any]


async def judge(state: ProductionState, runtime: Runtime[ProductionDeps]) -> Update:
    """The verdict on every conversation, in production.jsonl."""
    return {"analyses": await production_verdicts(runtime.context.ctx)}


def regress(state: ProductionState, runtime: Runtime[ProductionDeps]) -> Update:
    """The failing conversations as the regression set."""
    ctx = runtime.context.ctx
    write_regression_set(ctx, ctx.folder.transcripts.load(), state["analyses"])
    return {}


@cache
def build_graph() -> CompiledStateGraph[ProductionState, ProductionDeps, ProductionState, ProductionState]:
    """The production stage's state machine, compiled once (the run is the runtime context, a `ProductionDeps`)."""
    graph = StateGraph(ProductionState, context_schema=ProductionDeps)
    graph.add_node("judge", judge)
    graph.add_node("regress", regress)
    graph.add_edge(START, "judge")
    graph.add_edge("judge", "regress")
    graph.add_edge("regress", END)
    return graph.compile()


async def run(ctx: RunContext) -> list[Analysis]:
    """Judge the run's production conversations (none without `transcripts`), write the regression set of those
    that failed, and return their analyses in id order."""
    if not ctx.config.transcripts.active:
        return []
    final = await build_graph().ainvoke({}, context=ProductionDeps(ctx=ctx), config={"run_name": "production"})
    return final["analyses"]
