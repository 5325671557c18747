"""The local executor: a stage's work opened once in the run's process, kept out of the collector's full sweeps
while the stage runs."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any, ClassVar, Self

import pytest

from intellagent.executors import LocalExecutor


class Held:
    """What a stage's work holds for all its items."""


class FreezeProbe:
    """A stage's work whose items say whether what it opened is frozen out of the collector's sweeps."""

    shared_files: ClassVar[tuple[str, ...]] = ()
    opened: ClassVar[list[Held]] = []

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: Any, given: Any) -> AsyncIterator[Self]:
        cls.opened.append(Held())
        yield cls()

    async def do(self, item: int) -> bool:
        held = self.opened[-1]
        return not any(tracked is held for tracked in gc.get_objects())  # the frozen are not listed


@pytest.fixture(autouse=True)
def nothing_frozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


async def items_see_frozen() -> list[bool]:
    async with LocalExecutor().stage(None, FreezeProbe) as do:  # type: ignore[arg-type]
        return [await do(item) for item in range(2)]


def test_what_a_stage_opened_is_frozen_while_it_runs_and_released_after() -> None:
    assert asyncio.run(items_see_frozen()) == [True, True]

    assert gc.get_freeze_count() == 0


def test_objects_the_process_froze_itself_stay_frozen_after_the_stage() -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()

    asyncio.run(items_see_frozen())

    assert gc.get_freeze_count() == frozen
