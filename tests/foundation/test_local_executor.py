"""The local executor: a stage's work opened once in the run's process, with the cycle collector set for it while
the stage runs (what it opened frozen out of full sweeps, the young generation swept less often), then set back."""

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


class CollectorProbe:
    """A stage's work whose items say whether what it opened is frozen, and the collector's young threshold."""

    shared_files: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.held = Held()

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: Any, given: Any) -> AsyncIterator[Self]:
        yield cls()

    async def do(self, item: int) -> tuple[bool, int]:
        frozen = not any(tracked is self.held for tracked in gc.get_objects())  # the frozen are not listed
        return frozen, gc.get_threshold()[0]


@pytest.fixture(autouse=True)
def default_collector() -> Iterator[None]:
    before = gc.get_threshold()
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


async def seen_by_items(stages: int = 1) -> list[tuple[bool, int]]:
    """What the items of `stages` stages running at once see, the first one's item going last."""

    async def stage(first: bool) -> tuple[bool, int]:
        async with LocalExecutor().stage(None, CollectorProbe) as do:  # type: ignore[arg-type]
            await asyncio.sleep(0.05 if first else 0)
            return await do(0)

    return list(await asyncio.gather(*(stage(number == 0) for number in range(stages))))


def test_what_a_stage_opened_is_frozen_and_young_objects_swept_less_often_then_set_back() -> None:
    assert asyncio.run(seen_by_items()) == [(True, 10_000)]

    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == (700, 10, 10)


def test_the_collector_is_set_back_only_when_the_last_of_two_stages_at_once_ends() -> None:
    assert asyncio.run(seen_by_items(stages=2)) == [(True, 10_000), (True, 10_000)]

    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == (700, 10, 10)


def test_objects_the_process_froze_itself_stay_frozen_and_a_collector_turned_off_stays_off() -> None:
    theirs = Held()
    gc.freeze()
    gc.set_threshold(0)

    asyncio.run(seen_by_items())

    assert not any(tracked is theirs for tracked in gc.get_objects())
    assert gc.get_threshold()[0] == 0
