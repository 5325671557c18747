"""Where a stage's items run: in the run's own process, or as Ray tasks on a cluster (`executor:` in the config).

populate, simulate and report each describe their items as a `StageWork` (the protocol lives beside the
run's context, `intellagent.context`): what every item of the stage shares, opened once per process, and
how to do one item. The stage hands it to the run's executor, which gives back the function that does an
item (an `ItemWork`):

- `LocalExecutor` (`local`) opens the work in this process and calls it (the default).
- `RayExecutor` (`intellagent.executors.ray`, the `ray` extra) opens it in each of its Ray workers and sends
  each item to the least busy one. The run's process still owns the run folder, the LLM cache, the budget
  and the accounting: a worker's model calls are answered here, and what an item writes comes back here.

Either way the stage records each finished item itself, so its artifacts, and how a run resumes, do not
depend on where the items ran.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from intellagent.context import Executor
from intellagent.errors import UsageError
from intellagent.executors.local import LocalExecutor

if TYPE_CHECKING:
    from intellagent.config import ExecutorConfig

__all__ = ["LocalExecutor", "executor_for"]


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
