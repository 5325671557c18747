"""The Python API: evaluate a chatbot from code, whole or stage by stage, with the run folder as usual.

    report = intellagent.evaluate("configs/airline.yml", chatbot=my_bot, fail_under=0.8)

A frozen test set fixes the scenarios and their databases once, so that each new chatbot build is
judged on the same ground (and, with `replay=True`, at no cost when nothing changed):

    intellagent.freeze("configs/airline.yml", output="tests/frozen/airline")
    report = intellagent.evaluate("configs/airline.yml", chatbot=my_bot,
                                  scenarios_from="tests/frozen/airline", output="results/build-42")
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from intellagent.artifacts import FROZEN_STAGES, STAGES, Dialog, Event, Report
from intellagent.config import ConfigSource, apply_overrides, load_config, scenario_source
from intellagent.describe import Described
from intellagent.errors import UsageError
from intellagent.llm import ScriptedLLM
from intellagent.pipeline import DESCRIBE, POPULATE, REPORT, SIMULATE, Stage
from intellagent.runner import RunResult, execute
from intellagent.simulate.mutants import Mutant

T = TypeVar("T")


async def arun(
    config: ConfigSource,
    *,
    stages: tuple[str, ...] = STAGES,
    chatbot: Any = None,
    mutants: dict[str, Mutant] | None = None,
    output: str | Path | None = None,
    scenarios_from: str | Path | None = None,
    fresh: bool = False,
    replay: bool = False,
    progress: bool = False,
    script: ScriptedLLM | None = None,
    label: str | None = None,
    **overrides: Any,
) -> RunResult:
    """Run some or all stages and return how the run ended (exit code, run.json, report).

    Args:
        config: a config file (path or example name), a mapping, or a `Config`.
        stages: the stages to run, in pipeline order.
        chatbot: the chatbot under test as an object — a callable (sync or async) that takes the
            conversation and returns the reply, a compiled LangGraph graph with a `messages` state,
            or a chatbot adapter — instead of the config's `chatbot:`.
        mutants: chatbots like `chatbot` that each break one rule on purpose, by name, as
            `Mutant(chatbot, breaks=...)`; the run plays them too and reports whether it caught them.
        output: the run folder (default `results/<config name>`); an earlier run there is resumed.
        scenarios_from: a frozen test set to take the scenarios and databases from (see `freeze`), or
            "tau:FOLDER", a τ-bench task set whose tasks the run plays and grades as τ-bench does.
        fresh: replace an earlier run in the output folder instead of resuming it (its LLM cache is kept).
        replay: every LLM call must be answered from the cache (a miss aborts the run).
        progress: show the live progress bars.
        script: the scripted test double, for configs whose provider is `scripted`.
        label: what to call the run in run.json and in the run viewer (a build number, a branch).
        **overrides: `llm`, `chatbot_llm` (SPECs), `samples`, `seed`, `workers`, `max_cost`,
            `fail_under`, `baseline`, `min_category`, `min_policy`, `min_persona`, `gate_on`, `trials`, `calibrate`,
            `min_detection`, `min_outcome`, `tau_tasks`, `executor`, `rollouts`, `red_team`, `max_attack_success`,
            `transcripts` (a JSONL file of production conversations) — as in `apply_overrides`.
    """
    frozen, tau_data = scenario_source(scenarios_from)
    settings = apply_overrides(load_config(config), tau_data=tau_data, **overrides)
    return await execute(
        settings,
        output=Path(output) if output is not None else None,
        fresh=fresh,
        replay=replay,
        stages=stages,
        scenarios_from=frozen,
        script=script,
        chatbot=chatbot,
        mutants=mutants,
        progress=progress,
        label=label,
    )


async def aevaluate(config: ConfigSource, **options: Any) -> Report:
    """Run the whole evaluation (or, with a frozen test set as `scenarios_from`, simulate + report) and return
    its report.

    The gate's verdict is in `report.gate` (`passed`, `failures`); nothing is raised for it. Options
    are those of `arun`.
    """
    if scenario_source(options.get("scenarios_from"))[0] is not None:
        options.setdefault("stages", FROZEN_STAGES)
    result = await arun(config, **options)
    return result.report


def evaluate(config: ConfigSource, **options: Any) -> Report:
    """`aevaluate` for code without an event loop."""
    return _without_loop(lambda: aevaluate(config, **options), instead="await intellagent.aevaluate(...)")


async def afreeze(config: ConfigSource, *, output: str | Path, **options: Any) -> list[Event]:
    """Make a frozen test set: run describe and populate into `output` and return its events.

    Commit the folder (it is small: JSON, SQLite files and the LLM cache) and pass it as
    `scenarios_from` to every later evaluation.
    """
    result = await arun(config, stages=(DESCRIBE.name, POPULATE.name), output=output, **options)
    return made_by(result, POPULATE)


def freeze(config: ConfigSource, *, output: str | Path, **options: Any) -> list[Event]:
    """`afreeze` for code without an event loop."""
    return _without_loop(lambda: afreeze(config, output=output, **options), instead="await intellagent.afreeze(...)")


def describe(config: ConfigSource, *, output: str | Path, **options: Any) -> Described:
    """Run the describe stage into `output`: policies, policy graph and scenarios."""
    return _stage(DESCRIBE, config, output, options)


def populate(config: ConfigSource, *, output: str | Path, **options: Any) -> list[Event]:
    """Run the populate stage on the scenarios in `output`; return the events (their worlds in events/)."""
    return _stage(POPULATE, config, output, options)


def simulate(config: ConfigSource, *, output: str | Path, **options: Any) -> list[Dialog]:
    """Run the simulate stage on the events in `output` (pass `chatbot=` to test an object); return dialogs."""
    return _stage(SIMULATE, config, output, options)


def report(config: ConfigSource, *, output: str | Path, **options: Any) -> Report:
    """Run the report stage on the dialogs in `output`; return the report."""
    return _stage(REPORT, config, output, options)


def made_by(result: RunResult, stage: Stage[T]) -> T:
    """What a stage of a run returned (see `Stage.run`)."""
    made: T = result.made[stage.name]
    return made


def _stage(stage: Stage[T], config: ConfigSource, output: str | Path, options: dict[str, Any]) -> T:
    result = _without_loop(
        lambda: arun(config, stages=(stage.name,), output=output, **options),
        instead=f'await intellagent.api.arun(config, stages=("{stage.name}",), output=...)',
    )
    return made_by(result, stage)


def _without_loop(call: Callable[[], Coroutine[Any, Any, T]], *, instead: str) -> T:
    """Run an async call from code without an event loop; inside one (a notebook), say what to await."""
    if _loop_running():
        raise UsageError(f"an event loop is already running here (a notebook, an async app); use `{instead}`")
    return asyncio.run(call())


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
