"""run.json: what was run, with which settings and versions, how it went, and what it cost."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

from intellagent.artifacts.usage import UsageReport

StageName = Literal["describe", "populate", "simulate", "rollouts", "redteam", "production", "report"]

STAGES: tuple[StageName, ...] = get_args(StageName)
"""The pipeline's stages, in the order they run (`intellagent.pipeline` says what each does; rollouts and redteam run
only when asked for)."""

FROZEN_STAGES: tuple[StageName, ...] = ("simulate", "rollouts", "redteam", "production", "report")
"""The stages a run on a frozen test set runs by default: its scenarios and worlds are the set's."""

RunStatus = Literal["running", "done", "gate_failed", "aborted", "interrupted", "failed"]


class StageInfo(BaseModel):
    """How one stage went; the counts are of its output file when it last stopped, whatever it did this time."""

    status: Literal["running", "done", "aborted", "interrupted", "failed"] = "running"
    started_at: str
    finished_at: str | None = None
    items: int = Field(default=0, description="Records in the stage's output file (dialogs.jsonl for simulate, ...).")
    errors: int = Field(default=0, description="Of those, the records whose status is `error`.")
    skipped: int = Field(default=0, description="Of those, the records an earlier invocation had already made.")
    earlier_s: float = Field(default=0.0, description="Seconds the stage ran in the run's earlier invocations.")

    def last_s(self, now: datetime) -> float:
        """Seconds of its last run; one still running counts up to `now`."""
        end = datetime.fromisoformat(self.finished_at) if self.finished_at else now
        return round(max(0.0, (end - datetime.fromisoformat(self.started_at)).total_seconds()), 1)

    def total_s(self, now: datetime) -> float:
        """Seconds the stage ran over every invocation of the run."""
        return round(self.earlier_s + self.last_s(now), 1)


class RunInfo(BaseModel):
    """The self-description of a run folder."""

    name: str
    status: RunStatus = "running"
    error: str | None = None
    seed: int
    config: dict[str, Any] = Field(description="The effective config, secrets removed.")
    fingerprint: str = Field(description="Hash of the settings that shape the artifacts (resume guard).")
    versions: dict[str, str] = Field(default_factory=dict, description="Python and package versions.")
    label: str | None = Field(default=None, description="What whoever ran it called the run (--label): a build "
                              "number, a branch.")
    commit: str | None = Field(default=None, description="The git commit checked out in the folder the run was "
                               "started from (None outside a git checkout).")
    started_at: str
    finished_at: str | None = None
    stages: dict[str, StageInfo] = Field(default_factory=dict)
    usage: UsageReport = Field(default_factory=UsageReport)
