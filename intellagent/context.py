"""`RunContext`: what every stage of a run is handed, and the executor that runs the stages' items.

`StageWork` and `Executor` are the two sides of an executor (see `intellagent.executors`, which
implements them): a stage says what its items share and how to do one, and the run's executor says
where that happens. They are defined here, beside the context they are handed, so that the context
depends on no executor.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, TypeVar

from intellagent.config import FRAMEWORK_ROLES, Config
from intellagent.llm import RoleModels, Usage
from intellagent.llm.embedded import EMBEDDED_SLOTS
from intellagent.progress import RunProgress
from intellagent.run_folder import RunFolder

if TYPE_CHECKING:
    from intellagent.environment import Environment

log = logging.getLogger("intellagent")

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


ItemWork = Callable[[Any], Awaitable[Any]]
"""One item of a stage done, wherever the executor runs it: the item in, its result out."""



class Executor(Protocol):
    """Runs the stages' items of a run."""

    def running(self, ctx: RunContext) -> AbstractAsyncContextManager[None]:
        """While the run's stages run (what the executor needs is started, and stopped after)."""
        ...

    def stage(self, ctx: RunContext, work: type[StageWork[Any, Any]], given: Any = None
              ) -> AbstractAsyncContextManager[ItemWork]:
        """The function that does one of the stage's items, while the stage runs."""
        ...




@dataclass
class RunContext:
    """The config, run folder, models, accounting and display of one run.

    Attributes:
        chatbot: a chatbot object given through the Python API (a callable, a compiled LangGraph
            graph or an adapter); None means the config's `chatbot:` decides.
        mutants: calibration mutants given through the Python API, by name (`simulate.mutant_chatbots.Mutant`).
        executor: where the stages' items run (see `intellagent.executors`).
    """

    config: Config
    folder: RunFolder
    llms: RoleModels
    usage: Usage
    progress: RunProgress
    executor: Executor
    chatbot: Any = None
    mutants: dict[str, Any] = field(default_factory=dict)
    debug: bool = False

    @cached_property
    def workers(self) -> int:
        """Items a stage does at once: the config's `workers`, but no more than the embedded model's slots when
        every model the run calls is the embedded one. Its server works on one request per slot; items beyond
        that only take turns, and each turn throws the other items' prompts out of the slot, so that a dialog's
        history is read again at every one of its turns instead of coming from the prefix cache."""
        chatbot_on_it = self.chatbot is None and self.config.chatbot.type == "llm_agent"
        all_local = all(self.config.role_spec(role).provider == "local" for role in [*FRAMEWORK_ROLES, "chatbot"])
        if chatbot_on_it and all_local:
            return min(self.config.workers, EMBEDDED_SLOTS)
        return self.config.workers

    @cached_property
    def environment(self) -> Environment:
        """The chatbot's world, loaded (and checked) on first use."""
        from intellagent.environment import load_environment

        return load_environment(self.config.environment)
