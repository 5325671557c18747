"""The run's background world: the rows every event starts from, built once from the seed and checked.

New rows imitate the background's, so it must be valid: a domain whose own world breaks its rules is
refused before the run spends a call on it (the sampled scenario source builds it before the first stage).
"""

from __future__ import annotations

import os
from pathlib import Path

from intellagent.context import RunContext
from intellagent.errors import UsageError
from intellagent.run_folder import RunFolder

BACKGROUND = RunFolder.event_worlds.whole("_background")
"""Where the background world is, relative to the run folder."""


def build_background(ctx: RunContext) -> Path:
    """The run's background world: built from the seed the first time, and every row checked.

    Raises:
        UsageError: a row breaks a rule; the message names the table, the row and the rule.
    """
    path = ctx.folder.path(BACKGROUND)
    if path.exists():
        return path
    env = ctx.environment
    partial = path.with_name(path.name + ".partial")
    env.create_database(partial, seed=ctx.config.seed)
    with env.session(partial) as session:
        broken = list(env.broken_rows(session))
    if broken:
        partial.unlink()
        more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
        raise UsageError(f"environment.background: {broken[0]}{more}; fix the generator or the rule")
    os.replace(partial, path)
    return path
