"""The production stage: the chatbot's real conversations judged as the tests' dialogs are, and its failures kept
as regression scenarios.

    load ──► analyse (one per conversation still to judge, in parallel) ──► regress

`load` reads the transcripts file (`transcripts.path`), masks what `transcripts.redact` marks, runs the
checks that need only the trace, and writes transcripts.jsonl; a line that holds no conversation is
recorded as an `error` with its line number, and the rest go on. `analyse` is the report stage's
analysis (`reports.judging.AnalysisWork`): the judge on every policy of the catalog, beside the
checks' findings; production.jsonl keeps each verdict, and a conversation is judged again only when it
changed. `regress` writes the failing conversations as a frozen test set, regression/, that
`--scenarios-from` plays. The report sets production beside the tests (`production.figures`). Without
transcripts the stage does nothing.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, TypedDict

from intellagent.graphs.report import DialogToJudge, analyse
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from intellagent.artifacts import Analysis, Dialog
from intellagent.checks.assertions import catalog_checks
from intellagent.context import ItemWork, RunContext
from intellagent.production.regression import write_regression_set
from intellagent.production.transcripts import production_dialogs
from intellagent.reports.judging import AnalysisWork, to_judge
from intellagent.stage import StageItems


class ProductionState(TypedDict, total=False):
    """What flows through the stage."""

    dialogs: list[Dialog]
    pending: list[Dialog]
    analyses: Annotated[list[Analysis], operator.add]


@dataclass(frozen=True)
class ProductionDeps:
    """What the nodes work with (the graph's runtime context), fixed while the graph runs.

    Attributes:
        items: the analyses, recorded in production.jsonl as each is made.
        judge: analyses one conversation, wherever the run's executor runs it (the report stage's `analyse`
            node reads both, as it reads them from the report's own dependencies).
        regress: whether to write the regression set (describe judges production before it has scenarios).
    """

    ctx: RunContext
    items: StageItems[Analysis]
    judge: ItemWork
    regress: bool = True


Update = dict[str, Any]


def load(state: ProductionState, runtime: Runtime[ProductionDeps]) -> Update:
    """The conversations, masked and checked, in transcripts.jsonl; which of them to judge."""
    deps = runtime.context
    ctx = deps.ctx
    catalog = ctx.folder.policies.require()
    compiled = catalog_checks(catalog)
    dialogs = production_dialogs(ctx.config.transcripts, ctx.environment, catalog, compiled)
    ctx.folder.transcripts.replace(dialogs)
    kept, pending = to_judge(dialogs, deps.items.artifact)
    deps.items.expect(len(pending), done=len(kept))
    return {"dialogs": dialogs, "pending": pending, "analyses": kept}


def route_analyses(state: ProductionState) -> list[Send] | str:
    """One `analyse` (the report stage's node) per conversation still to judge, or on to `regress` when none is."""
    if not state["pending"]:
        return "regress"
    return [Send("analyse", DialogToJudge(dialog=dialog)) for dialog in state["pending"]]


def regress(state: ProductionState, runtime: Runtime[ProductionDeps]) -> Update:
    """production.jsonl in id order, and the failing conversations as the regression set."""
    deps = runtime.context
    analyses = deps.items.artifact.finalize()
    if deps.regress:
        write_regression_set(deps.ctx, state["dialogs"], analyses)
    return {}


@cache
def build_graph() -> CompiledStateGraph[ProductionState, ProductionDeps, ProductionState, ProductionState]:
    """The production stage's state machine, compiled once (the run is the runtime context, a `ProductionDeps`)."""
    graph = StateGraph(ProductionState, context_schema=ProductionDeps)
    graph.add_node("load", load)
    graph.add_node("analyse", analyse)
    graph.add_node("regress", regress)
    graph.add_edge(START, "load")
    graph.add_conditional_edges("load", route_analyses, ["analyse", "regress"])
    graph.add_edge("analyse", "regress")
    graph.add_edge("regress", END)
    return graph.compile()


async def run(ctx: RunContext, *, regress: bool = True) -> list[Analysis]:
    """Judge the run's production conversations (none without `transcripts`), write the regression set of those
    that failed, and return their analyses in id order.

    Args:
        regress: write the regression set (describe judges production early, to sample by it, and leaves it).
    """
    if not ctx.config.transcripts.active:
        return []
    items = StageItems(ctx, stage="production", artifact=ctx.folder.production)
    async with ctx.executor.stage(ctx, AnalysisWork) as judge:
        await build_graph().ainvoke(
            {}, context=ProductionDeps(ctx=ctx, items=items, judge=judge, regress=regress),
            config={"max_concurrency": ctx.config.workers, "run_name": "production"})
    return ctx.folder.production.load()
