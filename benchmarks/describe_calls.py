"""LLM calls and tokens of each step of the describe stage, for a policy document and a model.

    python benchmarks/describe_calls.py policies/airline.md --llm local
    python benchmarks/describe_calls.py my_policy.md --llm openai:gpt-4o-mini --samples 5 --block-size 4

Runs the describe stage alone with the settings of --config (the airline example by default) on the
given document, in a new run folder unless --output names one (an existing folder is resumed, and
what its cache answers is counted as cached, not as calls). Prints one row per step and the shape of
what was produced, so the cost of a document, a model or a block size can be compared.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intellagent.config import Config, apply_overrides, load_config, resolve_config_path
from intellagent.errors import IntellAgentError
from intellagent.llm import UsageReport
from intellagent.run_folder import RunFolder
from intellagent.runner import run

STEPS = ("task", "flows", "policies", "uncovered", "checks", "sop", "assertions", "graph", "scenario", "refine")


def benchmark_config(args: argparse.Namespace) -> Config:
    """The --config settings with the given document, model and describe options."""
    path = resolve_config_path(args.config)
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["environment"]["policy"] = str(Path(args.policy).resolve())
    describe = data.setdefault("describe", {})
    if args.block_size is not None:
        describe["edge_block_size"] = args.block_size
    if args.refine:
        describe["refine"] = True
    data.setdefault("name", path.stem)
    config = load_config(data, base_dir=path.parent)
    return apply_overrides(config, llm=args.llm, samples=args.samples, workers=args.workers)


def step_table(usage: UsageReport) -> str:
    """One row per describe step, in pipeline order, and the total."""
    rows: list[tuple[object, ...]] = [("step", "calls", "cached", "input tok", "output tok", "cost USD")]
    steps = {
        name.removeprefix("describe/"): tally for name, tally in usage.steps.items() if name.startswith("describe/")
    }
    for name in sorted(steps, key=lambda step: STEPS.index(step) if step in STEPS else len(STEPS)):
        tally = steps[name]
        rows.append((name, tally.calls, tally.cached, tally.input_tokens, tally.output_tokens, f"{tally.cost_usd:.4f}"))
    total = usage.stages.get("describe")
    if total is not None:
        rows.append(("total", total.calls, total.cached, total.input_tokens, total.output_tokens,
                     f"{total.cost_usd:.4f}"))
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            str(cell).ljust(w) if i == 0 else str(cell).rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    )


def outcome(folder: Path) -> str:
    """What the stage produced: flows, policies, graph calls, scenarios."""
    run_folder = RunFolder(folder)
    catalog, scenarios = run_folder.policies.require(), run_folder.scenarios.load()
    ok = sum(1 for scenario in scenarios if scenario.status == "ok")
    return (
        f"{len(catalog.flows)} flows, {len(catalog.policies)} policies "
        f"({len(catalog.errors)} flows failed), {ok} of {len(scenarios)} scenarios ok; artifacts in {folder}"
    )


def phase_times(folder: Path, started: float) -> str:
    """Seconds spent on extraction, scoring and scenarios, read from when each artifact was written."""
    marks = [("extraction", RunFolder.policies.name), ("graph", RunFolder.graph.name),
             ("scenarios", RunFolder.scenarios.name)]
    parts, previous = [], started
    for phase, name in marks:
        written = (folder / name).stat().st_mtime
        if written < started:  # written by an earlier run of this folder
            parts.append(f"{phase} (earlier run)")
            continue
        parts.append(f"{phase} {written - previous:.0f} s")
        previous = written
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="the policy document (Markdown or text)")
    parser.add_argument("--llm", default="local", metavar="SPEC", help="model of every framework role (default: local)")
    parser.add_argument("--config", default="airline.yml", help="settings to start from (default: airline.yml)")
    parser.add_argument("--samples", type=int, metavar="N", help="scenarios to write")
    parser.add_argument("--block-size", type=int, metavar="N", help="policies scored per graph call")
    parser.add_argument("--refine", action="store_true", help="add the refinement pass")
    parser.add_argument("--workers", type=int, metavar="N", help="calls made concurrently")
    parser.add_argument("--output", type=Path, metavar="DIR", help="run folder (default: a new temporary one)")
    args = parser.parse_args(argv)
    try:
        config = benchmark_config(args)
        folder = args.output or Path(tempfile.mkdtemp(prefix="describe-calls-")) / "run"
        started = time.time()
        result = run(config, output=folder, stages=("describe",), progress=sys.stderr.isatty())
    except IntellAgentError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    print(f"{args.policy} on {config.llm.default.label}: {time.time() - started:.0f} s wall time "
          f"({phase_times(folder, started)})")
    print(step_table(result.info.usage))
    print(outcome(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
