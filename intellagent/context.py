"""`RunContext`: what every stage of a run is handed."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from intellagent.config import Config
from intellagent.executors import Executor, LocalExecutor
from intellagent.llm import RoleModels, Usage
from intellagent.progress import RunProgress
from intellagent.run_folder import RunFolder

if TYPE_CHECKING:
    from intellagent.environment import Environment

log = logging.getLogger("intellagent")


@dataclass
class RunContext:
    """The config, run folder, models, accounting and display of one run.

    Attributes:
        chatbot: a chatbot object given through the Python API (a callable, a compiled LangGraph
            graph or an adapter); None means the config's `chatbot:` decides.
        mutants: calibration mutants given through the Python API, by name (`simulate.mutants.Mutant`).
        executor: where the stages' items run (see `intellagent.executors`).
        report: set by the report stage: the report of the run.
        gate_failures: set by the report stage: why the quality gate failed (empty if it passed).
    """

    config: Config
    folder: RunFolder
    llms: RoleModels
    usage: Usage
    progress: RunProgress
    chatbot: Any = None
    mutants: dict[str, Any] = field(default_factory=dict)
    debug: bool = False
    executor: Executor = field(default_factory=LocalExecutor)
    report: Any = None
    gate_failures: list[str] = field(default_factory=list)

    @cached_property
    def environment(self) -> Environment:
        """The chatbot's world, loaded (and checked) on first use."""
        from intellagent.environment import load_environment

        return load_environment(self.config.environment)
