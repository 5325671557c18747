"""The runner: prepares the run folder, runs the pipeline's stages in order (`intellagent.pipeline`), keeps
run.json up to date, and ends with the exit code the last stage's report decides.

A run folder is resumed by default: each stage reads what is already there and does only what is
missing. A folder that holds a run of different settings is refused rather than mixed.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from filelock import FileLock, Timeout

from intellagent.artifacts import STAGES, Report, RunInfo, StageInfo
from intellagent.config import Config
from intellagent.context import RunContext
from intellagent.errors import RunAborted, UsageError
from intellagent.executors import executor_for
from intellagent.files import write_atomic
from intellagent.llm import ResponseCache, RoleModels, ScriptedLLM, Usage
from intellagent.llm.spec import without_credentials
from intellagent.pipeline import REPORT, Stage, chosen_stages
from intellagent.progress import RunProgress
from intellagent.run_folder import RunFolder

# Settings that do not change what the artifacts contain: a run may resume with other values. Calibration
# only adds the mutants' dialogs beside the chatbot's, so a finished run can be calibrated afterwards; production
# conversations are judged beside the tests, and rollouts and the red team only add their own files after the
# dialogs, so a finished run can be given them afterwards.
RESUMABLE_SETTINGS = {"name", "samples", "workers", "budget", "report", "calibrate", "executor", "transcripts",
                      "rollouts", "red_team"}

# Held while a run works in its folder (see `_exclusive`).
LOCK_FILE = ".intellagent.lock"

T = TypeVar("T")

PACKAGES = ("langgraph", "langchain-core", "langchain-openai", "openai", "networkx", "faker", "sqlmodel",
            "pydantic", "xllamacpp")


@dataclass
class RunResult:
    """How a run ended: its folder, run.json, exit code and (once reported) its report.

    Attributes:
        made: what each stage that ran returned, by its name (see `Stage.run`).
    """

    folder: Path
    info: RunInfo
    exit_code: int
    report: Report | None = None
    gate_failures: list[str] = field(default_factory=list)
    made: dict[str, Any] = field(default_factory=dict)


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


async def execute(
    config: Config,
    *,
    output: Path | None = None,
    fresh: bool = False,
    replay: bool = False,
    stages: tuple[str, ...] = STAGES,
    scenarios_from: Path | None = None,
    script: ScriptedLLM | None = None,
    chatbot: Any = None,
    mutants: dict[str, Any] | None = None,
    progress: bool = True,
    debug: bool = False,
    label: str | None = None,
) -> RunResult:
    """Run the given stages of `config` into a run folder.

    Args:
        config: the validated config.
        output: the run folder (default results/<config name>).
        fresh: start over, deleting an earlier run's artifacts in the folder (its LLM cache is kept).
        replay: answer every LLM call from the folder's cache; a miss aborts the run.
        stages: which stages to run, in pipeline order (the earlier ones must have run before).
        scenarios_from: a frozen test set (a folder where describe and populate ran): its scenarios and
            databases are copied in, and its LLM cache records and replays this run's calls.
        script: the scripted test double, for configs whose provider is `scripted`.
        chatbot: a chatbot object that replaces the config's `chatbot:` (Python API).
        mutants: calibration mutants by name (`Mutant`s, Python API); giving any makes the run calibrate.
        progress: show the live progress bars.
        debug: keep tracebacks of failed items in the log.
        label: what to call the run in run.json (a build number, a branch); a resumed run keeps its earlier one.
    """
    unknown = set(stages) - set(STAGES)
    if unknown:
        raise UsageError(f"unknown stage {sorted(unknown)[0]!r}; stages are {', '.join(STAGES)}")
    folder = RunFolder(output or Path("results") / (config.name or "run"))
    chosen = chosen_stages(config, stages, RunFolder(Path(scenarios_from)) if scenarios_from is not None else folder)
    # Inputs a later stage would find wrong fail now, before any call: an hour of describe and populate must
    # not end on a typo.
    for check in dict.fromkeys(stage.check for stage in chosen if stage.check is not None):  # each check once
        check(config, chatbot)
    executor = executor_for(config.executor, workers=config.workers)
    if scenarios_from is not None and Path(scenarios_from).resolve() == folder.root.resolve():
        raise UsageError(f"--scenarios-from and --output are both {folder.root}; write the run to another folder, "
                         "so that the frozen test set stays as it is")
    with _exclusive(folder):
        info = _prepare(folder, config, fresh=fresh, label=label)
        cache_folder = folder
        if scenarios_from is not None:
            cache_folder = RunFolder(Path(scenarios_from))
            _copy_frozen(cache_folder, folder)
        usage = Usage(max_cost_usd=config.budget.max_cost_usd, start=info.usage)
        cache = ResponseCache(cache_folder.path(RunFolder.llm_cache))
        with RunProgress(usage, enabled=progress) as display:
            ctx = RunContext(
                config=config,
                folder=folder,
                llms=RoleModels(config, cache=cache, usage=usage, replay=replay, script=script),
                usage=usage,
                progress=display,
                chatbot=chatbot,
                mutants=dict(mutants or {}),
                debug=debug,
                executor=executor,
            )
            made: dict[str, Any] = {}
            try:
                for stage in chosen:
                    if stage.prepare is not None:
                        stage.prepare(ctx)
                async with executor.running(ctx):
                    for stage in chosen:
                        made[stage.name] = await _run_stage(ctx, info, stage)
            except RunAborted as error:
                _finish(folder, info, usage, status="aborted", error=str(error))
                # CI reads junit.xml whatever the exit code: an aborted run must not leave a green one behind.
                from intellagent.reports.junit import aborted_junit  # the reports import this module

                folder.junit.write(aborted_junit(config.name, str(error)))
                raise
            except (KeyboardInterrupt, asyncio.CancelledError):  # asyncio.run cancels the run's task on Ctrl-C
                _finish(folder, info, usage, status="interrupted", error="interrupted; run again to resume")
                raise
            except BaseException as error:
                _finish(folder, info, usage, status="failed", error=f"{type(error).__name__}: {error}")
                raise
            finally:
                cache.close()
        report: Report | None = made.get(REPORT.name)
        failures = list(report.gate.failures) if report is not None and report.gate is not None else []
        _finish(folder, info, usage, status="gate_failed" if failures else "done")
        return RunResult(folder=folder.root, info=info, exit_code=1 if failures else 0, report=report,
                         gate_failures=failures, made=made)


def run(config: Config, **options: Any) -> RunResult:
    """`execute`, for callers without an event loop."""
    return asyncio.run(execute(config, **options))


async def _run_stage(ctx: RunContext, info: RunInfo, stage: Stage[T]) -> T:
    """Run one stage, keeping its record in run.json: when it ran, how it ended, and what its records hold."""
    previous = info.stages.get(stage.name)
    earlier = 0.0
    if previous is not None:  # a stage killed before it stopped has no end: its last run is not counted
        earlier = previous.total_s(datetime.now(UTC)) if previous.finished_at else previous.earlier_s
    record = info.stages[stage.name] = StageInfo(started_at=now(), earlier_s=earlier)
    records = stage.records.of(ctx.folder)
    record.skipped = len(records.statuses())
    _save(ctx.folder, info, ctx.usage)
    try:
        made = await stage.run(ctx)
    except RunAborted:
        record.status = "aborted"
        raise
    except (KeyboardInterrupt, asyncio.CancelledError):
        record.status = "interrupted"
        raise
    except BaseException:
        record.status = "failed"
        raise
    finally:
        record.finished_at = now()
        statuses = records.statuses()
        record.items, record.errors = len(statuses), statuses.count("error")
    record.status = "done"
    _save(ctx.folder, info, ctx.usage)
    return made


@contextmanager
def _exclusive(folder: RunFolder) -> Iterator[None]:
    """Hold the run folder's lock while the run works in it: a second run on the same folder (a CI job
    started twice) stops at once, naming the holder, instead of doing the work again and corrupting the
    first one's files. The lock is the operating system's: a killed run leaves none behind."""
    folder.root.mkdir(parents=True, exist_ok=True)
    holder = folder.path(LOCK_FILE + ".holder")  # beside the lock: a contender empties the lock file itself
    try:
        with FileLock(folder.path(LOCK_FILE), timeout=0):
            write_atomic(holder, f"pid {os.getpid()} on {platform.node()}, started {now()}")
            try:
                yield
            finally:
                holder.unlink(missing_ok=True)
    except Timeout:
        who = holder.read_text(encoding="utf-8") if holder.exists() else "another process"
        raise UsageError(f"{folder.root} is in use by another run ({who}); wait for it to finish, "
                         "or choose another --output") from None


def _prepare(folder: RunFolder, config: Config, *, fresh: bool, label: str | None = None) -> RunInfo:
    earlier = folder.run_info.load()
    if any(not path.name.startswith(LOCK_FILE) for path in folder.root.iterdir()) and earlier is None:
        raise UsageError(f"{folder.root} exists and is not a run folder; choose another --output")
    fingerprint = _fingerprint(config)
    if earlier is not None and fresh:
        _clear(folder)
        earlier = None
    if earlier is not None and earlier.fingerprint != fingerprint:
        raise UsageError(
            f"{folder.root} holds a run with other settings; use --fresh to replace it, or another --output"
        )
    folder.root.mkdir(parents=True, exist_ok=True)
    info = RunInfo(
        name=config.name,
        seed=config.seed,
        config=scrub(config.model_dump(mode="json", by_alias=True)),
        fingerprint=fingerprint,
        versions=_versions(),
        label=label if label is not None else earlier.label if earlier else None,
        commit=_commit(),
        started_at=now(),
        stages=earlier.stages if earlier else {},
        usage=earlier.usage if earlier else RunInfo.model_fields["usage"].default_factory(),
    )
    folder.run_info.save(info)
    return info


def _clear(folder: RunFolder) -> None:
    """Delete a run's artifacts, keeping its LLM cache and anything that is not an artifact (a user's notes).

    A fresh run of unchanged work is then answered from the cache: at no cost, and under --replay.
    """
    artifacts = {Path(entry.name).parts[0] for entry in RunFolder.catalogue()}  # training/sft.jsonl: its folder
    for path in folder.root.iterdir():
        if path.name not in artifacts and not path.name.endswith(".partial"):
            continue
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def _copy_frozen(frozen: RunFolder, folder: RunFolder) -> None:
    if not frozen.events.exists():
        raise UsageError(
            f"{frozen.root} is not a frozen test set (no {RunFolder.events.name}); "
            "make one with --stages describe,populate or intellagent.freeze()"
        )
    # The set's labels travel with it: they apply to a dialog played again as it was (--replay).
    for name in [*(entry.name for entry in RunFolder.catalogue() if entry.frozen), RunFolder.labels]:
        source, target = frozen.path(name), folder.path(name)
        if not source.exists() or target.exists():
            continue
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy2(source, target)


def _finish(folder: RunFolder, info: RunInfo, usage: Usage, *, status: str, error: str | None = None) -> None:
    info.status = status  # type: ignore[assignment]
    info.error = error
    info.finished_at = now()
    _save(folder, info, usage)


def _save(folder: RunFolder, info: RunInfo, usage: Usage) -> None:
    info.usage = usage.report()
    folder.run_info.save(info)


def _fingerprint(config: Config) -> str:
    # Settings left at their defaults are left out: a setting a new version adds (at a default that keeps
    # the old behaviour) does not turn every earlier run folder into one "with other settings".
    shaping = config.model_dump(mode="json", by_alias=True, exclude=RESUMABLE_SETTINGS, exclude_defaults=True)
    # A model's rate limit paces the calls without changing an answer: a run resumes under a new one.
    for spec in [*shaping.get("llm", {}).values(), shaping.get("chatbot", {}).get("llm") or {}]:
        spec.pop("rate", None)
    return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:16]


_SECRET_KEY = re.compile(r"(key|token|secret|password)", re.IGNORECASE)


def scrub(data: Any, key: str = "") -> Any:
    """A copy of config data with secret values masked (names of env vars are kept)."""
    if isinstance(data, dict):
        return {k: scrub(v, k) for k, v in data.items()}
    if isinstance(data, list):
        return [scrub(v) for v in data]
    if isinstance(data, str):
        if _SECRET_KEY.search(key) and not key.endswith("_env"):
            return "***"
        return without_credentials(data)
    return data


def _commit() -> str | None:
    """The git commit checked out where the run was started (the chatbot's build, in a CI job), or None outside a
    checkout or without git."""
    try:
        done = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("intellagent", *PACKAGES):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions
