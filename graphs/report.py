"""The report stage: analyse every dialog, then write report.json, report.html, junit.xml and judge the gate.

    load ──► analyse (one per dialog still to analyse, in parallel) ──► summarise ──► write

`load` reads the earlier artifacts and the analyses already made (analysis.jsonl); a dialog is
analysed again only if it changed since or its analysis failed (see `reports.judging`). A calibrated
run's mutant dialogs are analysed like the chatbot's, and counted apart (see `reports.sections.seeded_violations`).
Every dialog that ran is judged — whether the user stopped, the chatbot ended it, or it ran out of
turns — by the deterministic checks' findings and the LLM judge together (see `verdicts`); `error`
dialogs, and those in which the simulated user never spoke, are recorded as such without an LLM call.
Each analysis is made by the run's executor (`AnalysisWork`). `summarise` computes the report, compares
it with the baseline and evaluates the gate; `write` puts the three reports in the run folder.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from intellagent.artifacts import Analysis, Dialog, Report
from intellagent.context import ItemWork, RunContext
from intellagent.reports.dialog_analysis import failed
from intellagent.reports.inputs import RunArtifacts, load_artifacts
from intellagent.reports.judging import AnalysisWork, to_judge
from intellagent.reports.label_agreement import labels_of_run
from intellagent.reports.publishing import finished_report, write_reports
from intellagent.reports.sections.baseline_comparison import load_baseline
from intellagent.stage import StageItems


class ReportState(TypedDict, total=False):
    """What flows through the stage."""

    artifacts: RunArtifacts
    baseline: Report | None
    pending: list[Dialog]
    analyses: Annotated[list[Analysis], operator.add]
    report: Report


class DialogToJudge(TypedDict):
    """One dialog to analyse, sent to `analyse`."""

    dialog: Dialog


@dataclass(frozen=True)
class ReportDeps:
    """What the nodes work with (the graph's runtime context), fixed while the graph runs.

    Attributes:
        items: the analyses, recorded in analysis.jsonl as each is made.
        judge: analyses one dialog, wherever the run's executor runs it.
    """

    ctx: RunContext
    items: StageItems[Analysis]
    judge: ItemWork


Update = dict[str, Any]


def load(state: ReportState, runtime: Runtime[ReportDeps]) -> Update:
    """The earlier stages' artifacts, the baseline's report, and which dialogs to analyse."""
    deps = runtime.context
    artifacts = load_artifacts(deps.ctx.folder)
    artifacts.labels = labels_of_run(deps.ctx.config.report.labels, deps.ctx.folder)
    baseline = deps.ctx.config.report.baseline
    kept, pending = to_judge(artifacts.dialogs + artifacts.mutant_dialogs + artifacts.solo_dialogs, deps.items.artifact)
    deps.items.expect(len(pending), done=len(kept))
    return {"artifacts": artifacts, "baseline": load_baseline(baseline) if baseline else None, "pending": pending,
            "analyses": kept}


def route_analyses(state: ReportState) -> list[Send] | str:
    """One `analyse` per dialog still to analyse, or straight on to `summarise` when none is."""
    if not state["pending"]:
        return "summarise"
    return [Send("analyse", DialogToJudge(dialog=dialog)) for dialog in state["pending"]]


async def analyse(task: DialogToJudge, runtime: Runtime[ReportDeps]) -> Update:
    """One dialog's analysis, recorded; a failure is recorded as an `error` analysis."""
    deps, dialog = runtime.context, task["dialog"]
    analysis = await deps.items.run(lambda: deps.judge(dialog), failed=lambda reason: failed(dialog, reason))
    return {"analyses": [analysis]}


def summarise(state: ReportState, runtime: Runtime[ReportDeps]) -> Update:
    """analysis.jsonl in id order, and the report with the baseline's comparison and the gate's verdict."""
    ctx = runtime.context.ctx
    runtime.context.items.artifact.finalize()
    report = finished_report(ctx.config, state["artifacts"], state["analyses"], usage=ctx.usage.report(),
                             baseline=state.get("baseline"), now=datetime.now(UTC))
    return {"report": report}


def write(state: ReportState, runtime: Runtime[ReportDeps]) -> Update:
    """report.json, report.html and junit.xml."""
    write_reports(runtime.context.ctx.folder, state["report"], state["artifacts"], state["analyses"])
    return {}


@cache
def build_graph() -> CompiledStateGraph[ReportState, ReportDeps, ReportState, ReportState]:
    """The report stage's state machine, compiled once (the run is given as the runtime context, a `ReportDeps`)."""
    graph = StateGraph(ReportState, context_schema=ReportDeps)
    graph.add_node("load", load)
    graph.add_node("analyse", analyse)
    graph.add_node("summarise", summarise)
    graph.add_node("write", write)
    graph.add_edge(START, "load")
    graph.add_conditional_edges("load", route_analyses, ["analyse", "summarise"])
    graph.add_edge("analyse", "summarise")
    graph.add_edge("summarise", "write")
    graph.add_edge("write", END)
    return graph.compile()


async def run(ctx: RunContext) -> Report:
    """Analyse the run's dialogs, write its reports, and return the report (with the gate's verdict)."""
    items = StageItems(ctx, stage="report", artifact=ctx.folder.analyses)
    async with ctx.executor.stage(ctx, AnalysisWork) as judge:
        final = await build_graph().ainvoke(
            {}, context=ReportDeps(ctx=ctx, items=items, judge=judge),
            config={"max_concurrency": ctx.workers, "run_name": "report"})
    return final["report"]
