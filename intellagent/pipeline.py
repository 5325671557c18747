"""The pipeline: its stages in order, each with the work it runs, the artifacts it writes, and what it
checks or builds before the run spends its first call.

    describe ─► populate ─► simulate ─► (rollouts) ─► (redteam) ─► (production) ─► report

Rollouts and the red team run only when asked for (`--rollouts`, `--red-team`); production judges the chatbot's
real conversations, when the run is given them (`transcripts:`). Production alone (`--stages production,report`)
needs no test run: when the run folder has no policies yet, describe runs first for its policies and graph only
(`POLICIES`), and writes no scenario.

A stage's `run` reads the artifacts of the stages before it from the run folder, writes its own (its
entries of the run folder's catalogue, `RunFolder.made_by`) and returns what it made: the runner
records each stage in run.json and reads the quality gate from the report the last one returns.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from intellagent.artifacts import Analysis, Attack, Dialog, Event, Report, Rollout
from intellagent.artifacts.run_info import StageName
from intellagent.chatbots.selection import check_chatbot, check_sampling
from intellagent.config import Config
from intellagent.context import RunContext
from intellagent.describe import Described
from intellagent.files import Artifact, Jsonl
from intellagent.graphs import describe, populate, production, redteam, report, rollouts, simulate
from intellagent.modes import check_scenario_source
from intellagent.production.transcripts import check_transcripts
from intellagent.reports.sections.baseline_comparison import check_baseline
from intellagent.reports.sections.label_figures import check_labels
from intellagent.run_folder import RunFolder

T = TypeVar("T")


@dataclass
class Stage(Generic[T]):
    """One stage of the pipeline.

    Attributes:
        name: how the command line and run.json name it.
        run: does the stage's work on a run, resuming after what an earlier invocation finished, and
            returns what it made (all of it, the earlier invocations' part too).
        writes: the artifacts it makes, in the catalogue's order.
        check: what it can find wrong in the settings before the run starts, as a `UsageError` (a
            baseline with no report, a chatbot target that does not import, a τ-bench task set without its
            task list), given the config and the chatbot object of the Python API, if any; a check two
            stages share is made once.
        prepare: what it builds and checks once the run folder is ready, before any stage spends a call
            (populate's background world, which a domain may get wrong).
        wanted: whether a run of this config has work for it (None: always); a stage without any is left
            out of the run, and of run.json.
    """

    name: StageName
    run: Callable[[RunContext], Awaitable[T]]
    writes: tuple[Artifact[Any], ...]
    check: Callable[[Config, Any], None] | None = None
    prepare: Callable[[RunContext], None] | None = None
    wanted: Callable[[Config], bool] | None = None

    def runs_in(self, config: Config, stages: tuple[str, ...]) -> bool:
        """Whether a run of `config` over `stages` runs it."""
        return self.name in stages and (self.wanted is None or self.wanted(config))

    @property
    def records(self) -> Jsonl[Any]:
        """The file it appends its items to, one record per item, each with a `status`."""
        return next(entry for entry in self.writes if isinstance(entry, Jsonl))


DESCRIBE: Stage[Described] = Stage("describe", describe.run, RunFolder.made_by("describe"), check=check_scenario_source)
POPULATE: Stage[list[Event]] = Stage("populate", populate.run, RunFolder.made_by("populate"),
                                     check=check_scenario_source, prepare=populate.prepare)
SIMULATE: Stage[list[Dialog]] = Stage("simulate", simulate.run, RunFolder.made_by("simulate"), check=check_chatbot)
ROLLOUTS: Stage[list[Rollout]] = Stage("rollouts", rollouts.run, RunFolder.made_by("rollouts"), check=check_sampling,
                                       wanted=lambda config: config.rollouts.enabled)
REDTEAM: Stage[list[Attack]] = Stage("redteam", redteam.run, RunFolder.made_by("redteam"), check=check_chatbot,
                                     wanted=lambda config: config.red_team.enabled)
PRODUCTION: Stage[list[Analysis]] = Stage("production", production.run, RunFolder.made_by("production"),
                                          check=check_transcripts, wanted=lambda config: config.transcripts.active)
def check_report(config: Config, chatbot: Any = None) -> None:
    """Before the run starts: the report's baseline and its labels, which a run that ends in a report reads."""
    check_baseline(config, chatbot)
    check_labels(config, chatbot)


REPORT: Stage[Report] = Stage("report", report.run, RunFolder.made_by("report"), check=check_report)

PIPELINE: tuple[Stage[Any], ...] = (DESCRIBE, POPULATE, SIMULATE, ROLLOUTS, REDTEAM, PRODUCTION, REPORT)
"""The stages, in the order they run."""

POLICIES: Stage[Described] = Stage("describe", describe.run_policies, RunFolder.made_by("describe"),
                                   check=check_scenario_source)
"""Describe for its policies and graph only: what production needs when the run folder has none."""


def chosen_stages(config: Config, stages: tuple[str, ...], folder: RunFolder) -> list[Stage[Any]]:
    """The stages a run of `config` over `stages` runs in `folder`, in order: with production and without describe,
    describe's policies first when the folder has none (production alone)."""
    chosen = [stage for stage in PIPELINE if stage.runs_in(config, stages)]
    if PRODUCTION in chosen and DESCRIBE not in chosen and not (folder.policies.exists() and folder.graph.exists()):
        chosen.insert(0, POLICIES)
    return chosen
