"""What every stage does with its items: run them, record failures as data, stop when too many fail."""

from __future__ import annotations

import traceback
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from pydantic import BaseModel

from intellagent.context import RunContext, log
from intellagent.errors import IntellAgentError, RunAborted, failure_reason
from intellagent.files import JsonlFile

M = TypeVar("M", bound=BaseModel)

# Below this many failures a stage never aborts: a couple of bad items say little about the rest.
MIN_ERRORS_TO_ABORT = 3


class ItemFailed(IntellAgentError):
    """An item cannot be completed (its reason is recorded with it); the stage goes on."""


class StageItems(Generic[M]):
    """Runs a stage's items one by one (callers add concurrency), appending each result when done.

    Args:
        total: the items this invocation does; 0 until they are known (see `expect`): the stage's bar is drawn
            once it has an item to do.
        done: the stage's items an earlier invocation finished: the abort rule counts failures among all
            of the stage's items, so a resumed run decides as an uninterrupted one would.
    """

    def __init__(self, ctx: RunContext, *, stage: str, artifact: JsonlFile[M], total: int = 0, done: int = 0) -> None:
        self.ctx = ctx
        self.stage = stage
        self.artifact = artifact
        self.total = total
        self.done = done
        self.progress = ctx.progress.stage(stage, total)
        self.errors = 0
        self.last_error = ""

    def expect(self, total: int, *, done: int | None = None) -> None:
        """The items this invocation does, once known (or known better: a failed scenario tried again), and
        those an earlier invocation finished, when given."""
        self.total = total
        if done is not None:
            self.done = done
        self.progress.set_total(total)

    async def run(self, work: Callable[[], Awaitable[M]], *, failed: Callable[[str], M]) -> M:
        """Do one item and record its result; a failure becomes `failed(reason)`, recorded too.

        Args:
            work: produces the finished item.
            failed: builds the item recorded when `work` fails, from the reason.
        """
        try:
            item = await work()
            error = getattr(item, "status", "ok") == "error"
        except RunAborted:
            raise
        except Exception as exc:  # any failure of one item is that item's error, not the run's
            reason = failure_reason(exc)
            if not isinstance(exc, IntellAgentError) or self.ctx.debug:
                log.debug("%s item failed:\n%s", self.stage, traceback.format_exc())
            item, error = failed(reason), True
        self.artifact.append(item)
        self.progress.advance(error=error)
        if error:
            self._count_error(getattr(item, "error", None) or getattr(item, "reason", ""))
        return item

    def _count_error(self, reason: str) -> None:
        self.errors += 1
        self.last_error = reason
        limit = self.ctx.config.budget.max_error_rate * (self.total + self.done)
        if self.errors >= MIN_ERRORS_TO_ABORT and self.errors > limit:
            raise RunAborted(
                f"{self.stage}: {self.errors} of {self.total + self.done} items failed (more than "
                f"{self.ctx.config.budget.max_error_rate:.0%}); last: {self.last_error}. "
                "Finished items are kept; fix the cause and run again to resume"
            )
