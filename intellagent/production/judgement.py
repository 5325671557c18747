"""The verdicts on the chatbot's production conversations: made once, by whoever needs them first.

The conversations of the transcripts file are read, masked and checked (`transcripts`) and kept in
transcripts.jsonl; each is judged as a test's dialog is (`reports.judging.AnalysisWork`: the judge on every
policy of the catalog, beside the checks' findings, made by the run's executor), side by side up to
`workers`, and its verdict appended to production.jsonl as it is made. A conversation judged before and
unchanged since keeps its verdict. The production stage asks for them, and so does describe when it samples
by production (`describe.weights_from: transcripts`): whichever asks second finds them made.
"""

from __future__ import annotations

import asyncio

from intellagent.artifacts import Analysis, Dialog
from intellagent.checks.compiled_checks import catalog_checks
from intellagent.context import ItemWork, RunContext
from intellagent.production.transcripts import production_dialogs
from intellagent.reports.dialog_analysis import failed
from intellagent.reports.judging import AnalysisWork, to_judge
from intellagent.stage import StageItems


async def production_verdicts(ctx: RunContext) -> list[Analysis]:
    """The verdict on each of the run's production conversations, in id order: those production.jsonl keeps, and
    the others judged now (a judge that fails records an `error` verdict).

    Raises:
        RunAborted: too many conversations could not be judged, or the budget is spent (the verdicts made are
            kept).
    """
    catalog = ctx.folder.policies.require()
    compiled = catalog_checks(catalog)
    dialogs = production_dialogs(ctx.config.transcripts, ctx.environment, catalog, compiled)
    ctx.folder.transcripts.replace(dialogs)
    items = StageItems(ctx, stage="production", artifact=ctx.folder.production)
    kept, pending = to_judge(dialogs, items.artifact)
    items.expect(len(pending), done=len(kept))
    if pending:
        async with ctx.executor.stage(ctx, AnalysisWork) as judge:
            await _judged(items, judge, pending, workers=ctx.workers)
    return items.artifact.finalize()


async def _judged(items: StageItems[Analysis], judge: ItemWork, dialogs: list[Dialog], *, workers: int) -> None:
    """Judge `dialogs`, `workers` at a time, each verdict recorded as it is made; the first failure that stops
    the run cancels the judging still going on."""
    limit = asyncio.Semaphore(workers)

    async def one(dialog: Dialog) -> None:
        async with limit:
            await items.run(lambda: judge(dialog), failed=lambda reason: failed(dialog, reason))

    try:
        async with asyncio.TaskGroup() as group:
            for dialog in dialogs:
                group.create_task(one(dialog))
    except ExceptionGroup as stopped:  # only what stops the run gets out of an item (see `StageItems.run`)
        raise stopped.exceptions[0] from None
