#!/usr/bin/env python3
"""What a large run costs besides the model: framework CPU per call, how the stages scale with workers,
memory, and disk per event and per dialog.

Describes the airline example with the careless double (answers valid against each schema, arbitrary
in content: no model is needed), then runs populate, simulate and report from those scenarios, the
double's every answer taking `--latency` seconds as a remote model's would. For each number of
scenarios it prints:

- at 0 s latency, one worker: wall time, calls per second and framework CPU milliseconds per call
  (the process's CPU time over the LLM calls sent, less the double's own time composing its answers,
  which a model server would spend; that is printed too), then per stage, with the part spent in the
  call path (`LLM.answer` and `LLM.complete`: the request, the cache, LangChain and the OpenAI library,
  the accounting and the answer's validation) apart from the stage's own work around its calls;
- at `--latency`, for each worker count: populate's, simulate's and report's wall time and their
  efficiency, T(1 worker) / (workers × T(workers)), 1.0 being perfect scaling, with the calls of the
  longest dialog, which bound simulate's time when there are about as many workers as dialogs;
- the framework CPU the expected outcome costs: verifying and storing it, per event (its calls run in
  a copy of the event's world, the domain's checks over them), and grading a dialog on it, per dialog;
- the peak resident memory of the process, and the bytes on disk: the background world, then per event and
  per dialog.

With `--ray N`, each worker count is also run with the Ray executor, on a local cluster of N worker
processes started once (each stage still starts its Ray workers: that is in its time), its efficiency
against the local executor's smallest worker count.

    python benchmarks/scale.py                                  # 16 scenarios; 1, 4 and 16 workers
    python benchmarks/scale.py --scenarios 16 200 --workers 1 4 16 64 --latency 0.2
    python benchmarks/scale.py --scenarios 200 --workers 4 16 --ray 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import intellagent.graphs.populate as populate_graph
from intellagent.artifacts import RunInfo
from intellagent.config import Config, ExecutorConfig, apply_overrides, load_config
from intellagent.llm import LLM, ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.populate.background import BACKGROUND
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from intellagent.simulate.graders import OutcomeGrader

STAGES = ("populate", "simulate", "report")


def configured(workers: int, *, samples: int | None = None, ray: int | None = None) -> Config:
    config = apply_overrides(load_config("airline"), llm="scripted", chatbot_llm="scripted", samples=samples,
                             workers=workers)
    executor = ExecutorConfig(type="ray", processes=ray) if ray else ExecutorConfig()
    # The careless double leaves some items in error: they are recorded, not fatal.
    return config.model_copy(update={"budget": config.budget.model_copy(update={"max_error_rate": 1.0}),
                                     "executor": executor})


def describe(scenarios: int, folder: Path) -> None:
    """The scenarios every timed run starts from, as the careless double describes the policy."""
    script = ScriptedLLM().on(reply=careless_answers(seed=1))
    asyncio.run(execute(configured(4, samples=scenarios), output=folder, stages=("describe",), script=script,
                        progress=False))


def longest_dialog(folder: Path) -> int:
    """The most calls one dialog made: they follow one another, so no number of workers plays the stage in
    less than that many answers' time."""
    return max((sum(tally.calls for tally in dialog.usage.values())
                for dialog in RunFolder(folder).dialogs.load()), default=0)


@dataclass
class StageCPU:
    """One stage's CPU seconds: the process's, the double's share of them (a model server's work), and those
    spent in the call path (the double's share included: it answers inside the call). The call path is
    timed only with one worker at 0 s latency: a call's CPU time is taken from its start to its end, which
    counts other calls' work too where calls overlap."""

    process: float = 0.0
    double: float = 0.0
    call_path: float = 0.0
    outcome: float = 0.0

    def per_call(self, calls: int) -> tuple[float, float]:
        """The framework's milliseconds per call, and the call path's, the double's share left out of both."""
        calls = max(calls, 1)
        return 1000 * (self.process - self.double) / calls, 1000 * (self.call_path - self.double) / calls


@contextlib.contextmanager
def call_path_timed(cpu: StageCPU) -> Iterator[None]:
    """Add to `cpu.call_path` the CPU time spent in `LLM.answer` and `LLM.complete` (one entered through the
    other is counted once: `answer` calls `complete`)."""
    doors = {name: LLM.__dict__[name] for name in ("answer", "complete")}
    depth = 0

    def timed(door: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(door)
        async def call(*args: Any, **kwargs: Any) -> Any:
            nonlocal depth
            depth += 1
            started = time.process_time()
            try:
                return await door(*args, **kwargs)
            finally:
                depth -= 1
                if not depth:
                    cpu.call_path += time.process_time() - started
        return call

    for name, door in doors.items():
        setattr(LLM, name, timed(door))
    try:
        yield
    finally:
        for name, door in doors.items():
            setattr(LLM, name, door)


@contextlib.contextmanager
def outcome_timed(cpu: StageCPU) -> Iterator[None]:
    """Add to `cpu.outcome` the CPU time spent verifying and storing expected outcomes (populate) and grading
    dialogs on them (simulate); neither awaits, so nothing else runs inside them."""
    def timed(work: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(work)
        def call(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return work(*args, **kwargs)
            finally:
                cpu.outcome += time.process_time() - started
        return call

    places = [(populate_graph, "verified"), (populate_graph, "with_outcome"), (OutcomeGrader, "grade")]
    originals = [getattr(owner, name) for owner, name in places]
    for (owner, name), work in zip(places, originals, strict=True):
        setattr(owner, name, timed(work))
    try:
        yield
    finally:
        for (owner, name), work in zip(places, originals, strict=True):
            setattr(owner, name, work)


def run(described: Path, workers: int, latency: float, folder: Path, *, ray: int | None = None
        ) -> tuple[RunInfo, dict[str, float], dict[str, StageCPU]]:
    """Populate, simulate and report from the described scenarios, one stage at a time: run.json, each
    stage's wall seconds and its CPU (with `ray` Ray workers, if given; their CPU is not this process's).

    Each stage has a double of its own, as each would have a server: one double's record of every request
    of a large run would weigh on the process (its garbage collector walks them all)."""
    shutil.copytree(described, folder)
    seconds, cpu = {}, {}
    for stage in STAGES:
        script = ScriptedLLM(latency=latency).on(reply=careless_answers(seed=1))
        cpu[stage] = StageCPU()
        wall, started = time.perf_counter(), time.process_time()
        alone = workers == 1 and not latency and not ray  # calls never overlap: each can be timed
        with call_path_timed(cpu[stage]) if alone else contextlib.nullcontext(), \
                outcome_timed(cpu[stage]) if alone else contextlib.nullcontext():
            asyncio.run(execute(configured(workers, ray=ray), output=folder, stages=(stage,), script=script,
                                progress=False))
        seconds[stage] = time.perf_counter() - wall
        cpu[stage].process, cpu[stage].double = time.process_time() - started, script.cpu_seconds
    info = RunFolder(folder).run_info.require()
    return info, seconds, cpu


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=int, nargs="+", default=[16], help="scenarios asked of describe")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4, 16], help="worker counts to compare")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds each answer takes")
    parser.add_argument("--ray", type=int, metavar="N", help="also run with the Ray executor, N local worker processes")
    args = parser.parse_args(argv)
    if args.ray:
        import ray

        ray.init(num_cpus=args.ray, include_dashboard=False, log_to_driver=False)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        describe(2, root / "warm-up-described")  # the first run also imports the modules: kept out of the figures
        run(root / "warm-up-described", 1, 0.0, root / "warm-up")
        for size in args.scenarios:
            described = root / f"described-{size}"
            describe(size, described)
            folder = root / f"cpu-{size}"
            info, seconds, cpu = run(described, 1, 0.0, folder)
            wall = sum(seconds.values())
            calls = {stage: info.usage.stages[stage].calls if stage in info.usage.stages else 0 for stage in STAGES}
            process = sum(stage_cpu.process for stage_cpu in cpu.values())
            double = sum(stage_cpu.double for stage_cpu in cpu.values())
            made, held = info.stages["populate"].items, info.stages["simulate"].items
            every = max(1, sum(calls.values()))
            print(f"{size} scenarios asked, {made} events, {held} dialogs; at 0 s latency, 1 worker: {wall:.1f} s, "
                  f"{every} calls, {every / wall:.1f} calls/s, {1000 * (process - double) / every:.1f} ms of "
                  f"framework CPU per call (and {1000 * double / every:.1f} ms of the double's answering)")
            shares = ["{} {:.1f} ms ({:.1f})".format(stage, *cpu[stage].per_call(calls[stage])) for stage in STAGES]
            print(f"  per call (of which in the call path): {', '.join(shares)}")
            per_event, per_dialog = cpu["populate"].outcome / max(made, 1), cpu["simulate"].outcome / max(held, 1)
            print(f"  expected outcome: {1000 * per_event:.2f} ms of CPU per event to verify and store it, "
                  f"{1000 * per_dialog:.2f} ms per dialog to grade it")
            background = (folder / BACKGROUND).stat().st_size
            events = folder_bytes(folder / RunFolder.event_worlds.name)
            dialogs = folder_bytes(folder / RunFolder.dialog_worlds.name)
            print(f"  disk: the background world {background / 1e3:.0f} KB once, then "
                  f"{(events - background) / max(made, 1) / 1e3:.1f} KB per event and "
                  f"{dialogs / max(held, 1) / 1e3:.1f} KB per dialog")
            times = {}
            for workers in args.workers:
                times[workers] = run(described, workers, args.latency, root / f"w{workers}-{size}")[1]
            on_ray = {workers: run(described, workers, args.latency, root / f"ray{workers}-{size}", ray=args.ray)[1]
                      for workers in (args.workers if args.ray else [])}
            first = min(times)
            longest = longest_dialog(folder)
            print(f"  at {args.latency} s latency (the longest dialog makes {longest} calls in a row: "
                  f"{longest * args.latency:.1f} s at least, whatever the workers):")
            rows = [(f"{workers:>3} workers", workers, seconds) for workers, seconds in times.items()]
            rows += [(f"{workers:>3} workers on Ray ({args.ray} processes)", workers, seconds)
                     for workers, seconds in on_ray.items()]
            for label, workers, seconds in rows:
                cells = [f"{name} {seconds[name]:6.1f} s (efficiency "
                         f"{efficiency(times[first][name], seconds[name], workers / first):.2f})" for name in STAGES]
                print(f"    {label}: " + "  ".join(cells))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    print(f"peak resident memory of the process: {peak:.0f} MB")
    return 0


def efficiency(base: float, seconds: float, scale: float) -> float:
    """Efficiency: the time at the smallest worker count over `scale` times this time."""
    return base / (scale * seconds) if seconds else float("nan")


if __name__ == "__main__":
    sys.exit(main())
