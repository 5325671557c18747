"""The runs under a folder, as the viewer reads them: each run folder's run.json and report.json through their
models, and what a folder that cannot be shown lacks.

Every figure the viewer shows of a run is taken from its report here (`Figures`), so that a key that moves in
report.json moves in this one module.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pydantic import ValidationError

from intellagent.artifacts import STAGES, Analysis, Report, RunInfo
from intellagent.artifacts.rates import Rate
from intellagent.artifacts.run_report import PolicyResult
from intellagent.errors import UsageError
from intellagent.reports.inputs import RunArtifacts, load_artifacts
from intellagent.reports.sections import FLOOR, OUTCOMES
from intellagent.reports.text import one_line
from intellagent.run_folder import RunFolder

DEPTH = 4
"""How deep under the viewed folder run folders are looked for (results/ci/build-42 is two deep)."""

TEST_SET_FILES = tuple(entry.name for entry in RunFolder.catalogue() if entry.frozen and "." in entry.name)
"""The files of a frozen test set that identify it: the policies, the graph, the scenarios, the events and the
assertions (each event names its world's digest, so the worlds' folder need not be read)."""


@dataclass(frozen=True)
class Figures:
    """What the viewer shows of a run's report."""

    report: Report

    @property
    def suite(self) -> str:
        """The name the run's config gave it: runs of one suite share their policies."""
        return self.report.name

    @property
    def pass_rate(self) -> Rate:
        """Passed among the dialogs with a verdict."""
        return self.report.overall.pass_rate

    @property
    def outcome_rate(self) -> Rate | None:
        """Graded dialogs that reached their event's expected outcome (None: no event had one)."""
        outcomes = OUTCOMES.of(self.report)
        return outcomes.pass_rate if outcomes else None

    @property
    def outcome_floor(self) -> Rate | None:
        """What a chatbot that does nothing would score on the graded dialogs (None: a report that does not state
        it)."""
        floors = FLOOR.of(self.report)
        return floors.graded_floor if floors else None

    @property
    def coverage(self) -> tuple[int, int]:
        """Policies some dialog with a verdict tested, and all policies."""
        return self.report.coverage.tested, self.report.coverage.total

    @property
    def cost(self) -> tuple[float, bool]:
        """What the run cost in dollars, and whether some model's cost is unknown (not in it)."""
        usage = self.report.overall.usage
        return usage.cost_usd, bool(usage.unpriced_models)

    @cached_property
    def policies(self) -> dict[str, PolicyResult]:
        """Each policy's result, by id."""
        return {policy.id: policy for policy in self.report.policies}

    @cached_property
    def policy_outcomes(self) -> dict[str, Rate]:
        """Each policy's outcome pass rate (over the graded dialogs that sampled it), by id."""
        outcomes = OUTCOMES.of(self.report)
        return {group.id: group.pass_rate for group in outcomes.policies} if outcomes else {}

    @cached_property
    def verdicts(self) -> dict[str, str]:
        """Each dialog's status as the report counts it (pass, fail, user_fault, incomplete, error), by id."""
        return {dialog.id: dialog.status for dialog in self.report.dialogs}


@dataclass(frozen=True)
class Run:
    """A run folder under the viewed folder: its name there (its path under it, '.' for the folder itself), what it
    says of itself (run.json), its figures, or why it has none."""

    name: str
    folder: RunFolder
    info: RunInfo | None
    figures: Figures | None
    problem: str | None = None

    @property
    def started(self) -> str:
        """When it started, as run.json says (empty when unknown)."""
        return self.info.started_at if self.info else ""

    @property
    def source(self) -> str:
        """What it ran: the label it was given, else the commit it was started from (empty when neither)."""
        if self.info is None:
            return ""
        return self.info.label or self.info.commit or ""

    @cached_property
    def test_set(self) -> str | None:
        """A digest of its test set's files: two runs of one frozen test set share it (None: it has no events)."""
        if not self.folder.events.exists():
            return None
        digest = hashlib.sha256()
        for name in TEST_SET_FILES:
            path = self.folder.path(name)
            if path.is_file():
                digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        return digest.hexdigest()[:12]


@dataclass(frozen=True)
class Stray:
    """A folder under the viewed one that holds no run, and why it is not one."""

    name: str
    reason: str


@dataclass(frozen=True)
class Catalogue:
    """Every run under the viewed folder, oldest first, and the folders that are not runs."""

    root: Path
    runs: list[Run]
    strays: list[Stray]

    @property
    def shown(self) -> list[Run]:
        """The runs with a readable report."""
        return [run for run in self.runs if run.figures is not None]

    def run(self, name: str) -> Run | None:
        """The run of that name, if there is one."""
        return next((run for run in self.runs if run.name == name), None)


def find_runs(root: Path) -> Catalogue:
    """Every run folder under `root` (or `root` itself), read; what cannot be read is kept with its reason."""
    runs, strays = _walk(root, root, 0)
    runs.sort(key=lambda run: (run.started == "", run.started, run.name))
    return Catalogue(root=root, runs=runs, strays=strays)


def _walk(folder: Path, root: Path, depth: int) -> tuple[list[Run], list[Stray]]:
    if folder.joinpath(RunFolder.run_info.name).is_file():
        return [read_run(folder, root)], []
    runs: list[Run] = []
    strays: list[Stray] = []
    if depth < DEPTH:
        # A link could lead out of the viewed folder, or back into it forever: only real folders are followed.
        for child in sorted(p for p in _children(folder) if p.is_dir() and not p.is_symlink()
                            and not p.name.startswith(".")):
            found, lost = _walk(child, root, depth + 1)
            runs += found
            strays += lost
    if not runs and folder != root:  # the topmost folder with no run in it stands for everything below it
        return [], [Stray(_name(folder, root), f"not a run folder: no {RunFolder.run_info.name} in it or below it")]
    return runs, strays


def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:  # unreadable: nothing to show below it
        return []


def _name(folder: Path, root: Path) -> str:
    return folder.relative_to(root).as_posix() if folder != root else "."


def read_run(folder: Path, root: Path) -> Run:
    """The run in `folder`; a run.json or report.json that cannot be read leaves it with the reason, not a crash."""
    run_folder, name = RunFolder(folder), _name(folder, root)
    try:
        info = run_folder.run_info.load()
    except (OSError, UsageError) as error:
        return Run(name, run_folder, None, None, f"{RunFolder.run_info.name} cannot be read: {_why(error)}")
    try:
        report = run_folder.report.load()
    except (OSError, UsageError) as error:
        return Run(name, run_folder, info, None, f"{RunFolder.report.name} cannot be read (half-written, or of "
                   f"another version): {_why(error)}")
    if report is None:
        return Run(name, run_folder, info, None, _unreported(info))
    return Run(name, run_folder, info, Figures(report))


def _unreported(info: RunInfo | None) -> str:
    """Why a run has no report: where it stopped, as its run.json tells."""
    if info is None:
        return f"no {RunFolder.report.name}"
    ran = [stage for stage in STAGES if stage in info.stages]
    unfinished = [stage for stage in ran if info.stages[stage].status != "done"]
    if info.status in ("aborted", "failed", "interrupted"):
        return f"no report: the run {info.status}" + (f" ({_one_line(info.error)})" if info.error else "")
    if unfinished:
        stage = unfinished[-1]
        return (f"no report: {stage} was {info.stages[stage].status} when its run.json was last written "
                "(still running, or killed)")
    done = ", ".join(ran) or "no stage"
    return f"no report: {done} ran, report did not (a frozen test set, or a run stopped early)"


def _why(error: Exception) -> str:
    """What is wrong with a file, in one line: the first thing its model found, or the system's error."""
    cause = error.__cause__
    if isinstance(cause, ValidationError):
        first = cause.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return one_line(f"{first['msg']}" + (f" at {where}" if where else ""), 200)
    return _one_line(error)


def _one_line(error: object) -> str:
    return one_line(str(error), 200)


@dataclass(frozen=True)
class Played:
    """A run's dialogs and the report's analysis of each: what a dialog's card shows."""

    artifacts: RunArtifacts
    analyses: dict[str, Analysis]


def played(run: Run) -> Played:
    """The dialogs of a run and their analyses.

    Raises:
        UsageError: a file the report was made from is missing or cannot be read.
        OSError: a file cannot be read at all.
    """
    analyses = run.folder.analyses.require()
    return Played(artifacts=load_artifacts(run.folder), analyses={a.id: a for a in analyses})
