"""Where a stage's items run: in the run's own process, or as Ray tasks on a cluster (`executor:` in the config).

populate, simulate and report each describe their items as a `StageWork`: what every item of the stage
shares, opened once per process, and how to do one item. The stage hands it to the run's executor, which
gives back the function that does an item:

- `LocalExecutor` opens the work in this process and calls it (the default).
- `RayExecutor` (`intellagent.executors.ray`, the `ray` extra) opens it in each of its Ray workers and sends
  each item to the least busy one. The run's process still owns the run folder, the LLM cache, the budget
  and the accounting: a worker's model calls are answered here, and what an item writes comes back here.

Either way the stage records each finished item itself, so its artifacts, and how a run resumes, do not
depend on where the items ran.
"""

from __future__ import annotations

import gc
import importlib.util
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, TypeVar

from intellagent.errors import UsageError

if TYPE_CHECKING:
    from intellagent.config import ExecutorConfig
    from intellagent.context import RunContext
    from intellagent.run_folder import RunFolder

P = TypeVar("P", contravariant=True)
M = TypeVar("M", covariant=True)


class StageWork(Protocol[P, M]):
    """One stage's items as any executor runs them.

    Attributes:
        shared_files: the run folder's files every item reads, relative to it (a remote worker is sent them
            before the work is opened).
    """

    shared_files: ClassVar[tuple[str, ...]]

    @classmethod
    def open(cls, ctx: RunContext, given: Any) -> AbstractAsyncContextManager[Self]:
        """What every item of the stage shares, set up in one process from the run and from `given` (what only
        the run's process could make: a chatbot object, the calibration mutants)."""
        ...

    async def do(self, item: P) -> M:
        """Do one item; an exception is the item's failure."""
        ...

    @staticmethod
    def reads(folder: RunFolder, item: P) -> list[str]:
        """The run folder's files the item reads, relative to it (a remote worker is sent them)."""
        ...

    @staticmethod
    def writes(folder: RunFolder, item: P) -> list[str]:
        """The files the item writes in the run folder, relative to it (a remote worker sends them back)."""
        ...


Do = Callable[[Any], Awaitable[Any]]


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


class Executor(Protocol):
    """Runs the stages' items of a run."""

    def running(self, ctx: RunContext) -> AbstractAsyncContextManager[None]:
        """While the run's stages run (what the executor needs is started, and stopped after)."""
        ...

    def stage(self, ctx: RunContext, work: type[StageWork[Any, Any]], given: Any = None
              ) -> AbstractAsyncContextManager[Do]:
        """The function that does one of the stage's items, while the stage runs."""
        ...


class LocalExecutor:
    """Every item in the run's own process, `workers` at a time."""

    @asynccontextmanager
    async def running(self, ctx: RunContext) -> AsyncIterator[None]:
        yield

    @asynccontextmanager
    async def stage(self, ctx: RunContext, work: type[StageWork[Any, Any]], given: Any = None) -> AsyncIterator[Do]:
        async with opened(work, ctx, given) as shared:
            yield shared.do


def executor_for(config: ExecutorConfig, *, workers: int) -> Executor:
    """The executor a run's `executor:` settings ask for.

    Raises:
        UsageError: Ray is asked for and not installed.
    """
    if config.type == "local":
        return LocalExecutor()
    if importlib.util.find_spec("ray") is None:
        raise UsageError("executor ray needs Ray, which is not installed: pip install 'intellagent[ray]'")
    from intellagent.executors.ray import RayExecutor

    return RayExecutor(config, workers=workers)
