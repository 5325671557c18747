"""The report stage's items: each dialog of the run judged, and which dialogs need it.

A dialog's analysis is kept from an earlier invocation while the dialog is unchanged (its digest) and the
analysis did not fail; a dialog with nothing to judge (`judgeable`) is recorded under its own status at
no call. Either way, a dialog whose simulated user's fault could have decided its verdict is set apart
(`fault_attribution`). Each
analysis is made by the run's executor (`AnalysisWork`: in this process, or in a Ray worker, see
`intellagent.executors`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import ClassVar

from intellagent.artifacts import Analysis, Dialog, ExpectedOutcome, PolicyCatalog
from intellagent.context import RunContext
from intellagent.files import JsonlFile
from intellagent.llm import AnswerInvalid
from intellagent.reports.dialog_analysis import analyse, dialog_digest, judgeable, unrated
from intellagent.reports.fault_attribution import attributed
from intellagent.reports.verdicts import combine
from intellagent.run_folder import RunFolder


@dataclass
class AnalysisWork:
    """Analysing dialogs, as any executor runs them (see `intellagent.executors`): the judge, the policies it
    judges by and the events' expected outcomes, read once per process."""

    ctx: RunContext
    catalog: PolicyCatalog | None
    outcomes: dict[str, ExpectedOutcome] = field(default_factory=dict)
    shared_files: ClassVar[tuple[str, ...]] = (RunFolder.policies.name, RunFolder.events.name)

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, given: None = None) -> AsyncIterator[AnalysisWork]:
        """The work of the stage (without policies, the stage stops with the reason before any dialog)."""
        yield cls(ctx=ctx, catalog=ctx.folder.policies.load(), outcomes=expected_outcomes(ctx.folder))

    async def do(self, dialog: Dialog) -> Analysis:
        """The dialog's analysis: the judge's verdicts combined with the outcome's and the checks', set apart as
        `user_fault` when its simulated user's fault could have decided it."""
        assert self.catalog is not None
        expected = self.outcomes.get(dialog.event_id)
        try:
            judged = await analyse(self.ctx.llms["analysis"], dialog, self.catalog)
        except AnswerInvalid as error:  # the judge gave no usable verdict: the others stand
            return attributed(dialog, combine(dialog, self.catalog, None, judge_error=str(error), expected=expected))
        return attributed(dialog, combine(dialog, self.catalog, judged, expected=expected))

    @staticmethod
    def reads(folder: RunFolder, dialog: Dialog) -> list[str]:
        """Nothing besides the policies."""
        return []

    @staticmethod
    def writes(folder: RunFolder, dialog: Dialog) -> list[str]:
        """Nothing: the analysis is the item."""
        return []


def expected_outcomes(folder: RunFolder) -> dict[str, ExpectedOutcome]:
    """The verified expected outcome of each event that has one, by event id (the last one written wins)."""
    latest = {event.id: event.expected for event in folder.events.load()}
    return {event_id: expected for event_id, expected in latest.items() if expected is not None}


def to_judge(dialogs: list[Dialog], analyses: JsonlFile[Analysis]) -> tuple[list[Analysis], list[Dialog]]:
    """The analyses the run keeps, and the dialogs to judge now.

    An earlier invocation's analysis of an unchanged dialog is kept; a dialog with nothing to judge gets its
    record now, appended to `analyses`, at no call.
    """
    earlier = analyses.finished()
    kept, pending = [], []
    for dialog in dialogs:
        done = earlier.get(dialog.id)
        if done is not None and done.source == dialog_digest(dialog):
            kept.append(done)
        elif judgeable(dialog):
            pending.append(dialog)
        else:
            kept.append(attributed(dialog, unrated(dialog)))
            analyses.append(kept[-1])
    return kept, pending
