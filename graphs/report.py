"""The report stage: analyse every dialog, then write report.json, report.html, junit.xml and judge the gate.

    load ──► analyse (one per dialog still to analyse, in parallel) ──► summarise ──► write

`load` reads the earlier artifacts and the analyses already made (analysis.jsonl); a dialog is
analysed again only if it changed since or its analysis failed. A calibrated run's mutant dialogs
are analysed like the chatbot's, and counted apart (see `reports.calibration`). Every dialog that ran
is judged — whether the user stopped, the chatbot ended it, or it ran out of turns — by the
deterministic checks' findings and the LLM judge together (see `verdicts`); `error` dialogs, and those
in which the simulated user never spoke, are recorded as such without an LLM call. Each analysis is
made by the run's executor (`AnalysisWork`: in this process, or in a Ray worker, see
`intellagent.executors`). `summarise` computes the report, compares it with the baseline and evaluates
the gate; `write` puts the three reports in the run folder.
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from intellagent.artifacts import Analysis, Dialog, PolicyCatalog
from intellagent.context import ItemWork, RunContext
from intellagent.llm import AnswerInvalid
from intellagent.reports import (
    Report,
    RunArtifacts,
    build_report,
    compare,
    evaluate_gate,
    junit_xml,
    load_artifacts,
    load_baseline,
    report_html,
    run_usage,
)
from intellagent.reports.analysis import analyse, dialog_digest, failed, judgeable, unrated
from intellagent.reports.verdicts import combine
from intellagent.run_folder import RunFolder
from intellagent.stage import StageItems


class ReportState(TypedDict, total=False):
    """What flows through the stage."""

    artifacts: RunArtifacts
    baseline: Report | None
    pending: list[Dialog]
    items: StageItems[Analysis]
    analyses: Annotated[list[Analysis], operator.add]
    report: Report


class DialogTask(TypedDict):
    """One dialog to analyse, sent to `analyse`."""

    dialog: Dialog
    items: StageItems[Analysis]


@dataclass
class AnalysisWork:
    """Analysing dialogs, as any executor runs them (see `intellagent.executors`): the judge and the policies it
    judges by, read once per process."""

    ctx: RunContext
    catalog: PolicyCatalog | None
    shared_files: ClassVar[tuple[str, ...]] = (RunFolder.policies.name,)

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, given: None = None) -> AsyncIterator[AnalysisWork]:
        """The work of the stage (without policies, `load` stops it with the reason before any dialog)."""
        yield cls(ctx=ctx, catalog=ctx.folder.policies.load())

    async def do(self, dialog: Dialog) -> Analysis:
        """The dialog's analysis: the judge's verdicts combined with the checks' findings."""
        assert self.catalog is not None
        try:
            judged = await analyse(self.ctx.llms["analysis"], dialog, self.catalog)
        except AnswerInvalid as error:  # the judge gave no usable verdict: the others stand
            return combine(dialog, self.catalog, None, judge_error=str(error))
        return combine(dialog, self.catalog, judged)

    @staticmethod
    def reads(folder: RunFolder, dialog: Dialog) -> list[str]:
        """Nothing besides the policies."""
        return []

    @staticmethod
    def writes(folder: RunFolder, dialog: Dialog) -> list[str]:
        """Nothing: the analysis is the item."""
        return []


def build_graph(ctx: RunContext, judge: ItemWork) -> Any:
    """The compiled report state machine of a run."""
    artifact = ctx.folder.analyses
    settings = ctx.config.report

    def load(state: ReportState) -> dict[str, Any]:
        artifacts = load_artifacts(ctx.folder)
        baseline = load_baseline(settings.baseline) if settings.baseline else None
        earlier = artifact.finished()
        kept, pending = [], []
        for dialog in artifacts.dialogs + artifacts.mutant_dialogs:
            done = earlier.get(dialog.id)
            if done is not None and done.source == dialog_digest(dialog):
                kept.append(done)
            elif judgeable(dialog):
                pending.append(dialog)
            else:
                kept.append(unrated(dialog))
                artifact.append(kept[-1])
        items = StageItems(ctx, stage="report", artifact=artifact, total=len(pending), done=len(kept))
        return {"artifacts": artifacts, "baseline": baseline, "pending": pending, "items": items, "analyses": kept}

    async def analyse_dialog(task: DialogTask) -> dict[str, Any]:
        dialog = task["dialog"]
        analysis = await task["items"].run(lambda: judge(dialog), failed=lambda reason: failed(dialog, reason))
        return {"analyses": [analysis]}

    def summarise(state: ReportState) -> dict[str, Any]:
        artifact.finalize()
        artifacts = state["artifacts"]
        report = build_report(
            artifacts,
            state["analyses"],
            name=ctx.config.name,
            strong_edge=settings.strong_edge,
            usage=run_usage(ctx.usage.report(), artifacts.info, now=datetime.now(UTC)),
        )
        baseline = state.get("baseline")
        if baseline is not None and settings.baseline is not None:
            report.baseline = compare(report, baseline, folder=settings.baseline, alpha=settings.significance)
        report.gate = evaluate_gate(report, settings)
        return {"report": report}

    def write(state: ReportState) -> dict[str, Any]:
        report = state["report"]
        analyses = {a.id: a for a in state["analyses"]}
        ctx.folder.report.save(report)
        ctx.folder.report_html.write(report_html(report, state["artifacts"], analyses))
        durations = {dialog.id: dialog.duration_s for dialog in state["artifacts"].dialogs}
        ctx.folder.junit.write(junit_xml(report, durations))
        return {}

    graph = StateGraph(ReportState)
    graph.add_node("load", load)
    graph.add_node("analyse", analyse_dialog)
    graph.add_node("summarise", summarise)
    graph.add_node("write", write)
    graph.add_edge(START, "load")
    graph.add_conditional_edges("load", dispatch_analyses, ["analyse", "summarise"])
    graph.add_edge("analyse", "summarise")
    graph.add_edge("summarise", "write")
    graph.add_edge("write", END)
    return graph.compile()


def dispatch_analyses(state: ReportState) -> list[Send] | str:
    """One `analyse` per dialog still to analyse, or straight on to `summarise` when none is."""
    if not state["pending"]:
        return "summarise"
    return [Send("analyse", DialogTask(dialog=dialog, items=state["items"])) for dialog in state["pending"]]


async def run(ctx: RunContext) -> Report:
    """Analyse the run's dialogs, write its reports, and return the report (with the gate's verdict)."""
    async with ctx.executor.stage(ctx, AnalysisWork) as judge:
        final = await build_graph(ctx, judge).ainvoke(
            {}, config={"max_concurrency": ctx.config.workers, "run_name": "report"})
    return final["report"]
