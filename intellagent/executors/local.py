"""The executor of the run's own process (the default), and how any executor opens a stage's work here."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, TypeVar

from intellagent.context import ItemWork, RunContext, StageWork

P = TypeVar("P")
M = TypeVar("M")


@asynccontextmanager
async def opened(work: type[StageWork[P, M]], ctx: RunContext, given: Any) -> AsyncIterator[StageWork[P, M]]:
    """A stage's work, open in this process while the stage runs (each executor opens it through here)."""
    async with work.open(ctx, given) as shared:
        with _COLLECTOR.tuned():
            yield shared


class _StageCollector:
    """The cycle collector's settings while stages run in the process, put back once the last one ends.

    What a stage opens (the background world, the domain, the answer schemas) lives as long as the stage, yet
    every full sweep walked all of it again: on the airline example 200 ms a sweep, up to a tenth of
    populate's CPU at 16 workers. It is frozen out of the sweeps (`gc.freeze`), unless something in the
    process froze objects already: unfreezing would release theirs too. And an item makes thousands of
    short-lived objects: at the default threshold the young generation was swept every 700 allocations,
    about once a model call; swept every 10,000, the collector's time fell by two thirds again.

    What is garbage when the stage opens is frozen with the rest, and collectable again once the stage ends:
    a full collection first would cost 0.1 to 0.5 s a stage, for a peak memory a sixth lower (254 MB against
    295 MB in `benchmarks/scale.py` with 200 scenarios).
    """

    YOUNG_THRESHOLD = 10_000

    def __init__(self) -> None:
        self.stages = 0
        self.freezing = False
        self.threshold = gc.get_threshold()

    @contextmanager
    def tuned(self) -> Iterator[None]:
        """While a stage runs (the stages running at once share the settings)."""
        if not self.stages:
            self.threshold = gc.get_threshold()
            self.freezing = not gc.get_freeze_count()
            young = self.threshold[0] and max(self.threshold[0], self.YOUNG_THRESHOLD)  # 0: off, and stays off
            gc.set_threshold(young, *self.threshold[1:])
        if self.freezing:
            gc.freeze()
        self.stages += 1
        try:
            yield
        finally:
            self.stages -= 1
            if not self.stages:
                gc.set_threshold(*self.threshold)
                if self.freezing:
                    gc.unfreeze()


_COLLECTOR = _StageCollector()


class LocalExecutor:
    """Every item in the run's own process, `workers` at a time."""

    @asynccontextmanager
    async def running(self, ctx: RunContext) -> AsyncIterator[None]:
        yield

    @asynccontextmanager
    async def stage(self, ctx: RunContext, work: type[StageWork[Any, Any]], given: Any = None
                    ) -> AsyncIterator[ItemWork]:
        async with opened(work, ctx, given) as shared:
            yield shared.do
