"""LLM calls, tokens and wall time of the populate stage, per event.

Each scenario is populated alone, in a run folder of its own, so that the run's accounting is exactly
that event's cost. The last lines sum up: calls per event (the common case is plan, constraints, values
and the expected outcome: 4), events within 4 calls, the facts given up, and the share of valid events
with a verified expected outcome. Usage:

    python benchmarks/populate_calls.py results/airline/scenarios.jsonl --limit 3
    python benchmarks/populate_calls.py scenarios.jsonl --config configs/airline.yml --llm openai:gpt-4o-mini
    python benchmarks/populate_calls.py scenarios.jsonl --llm careless --limit 40   # a careless model
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intellagent.artifacts import Event, RunInfo, Scenario
from intellagent.config import apply_overrides, load_config
from intellagent.llm import ScriptedLLM
from intellagent.run_folder import RunFolder
from intellagent.runner import execute

COMMON_CASE_CALLS = 4


async def measure(scenario: Scenario, *, config_path: str, llm: str, folder: Path) -> tuple[Event, RunInfo, float]:
    """Populate one scenario in `folder`; return its event, the run's record and the stage's wall time."""
    script = None
    if llm == "careless":  # answers valid against each schema, arbitrary in content (needs the dev extra)
        from intellagent.llm.careless import careless_answers

        script, llm = ScriptedLLM().on(reply=careless_answers(seed=0)), "scripted"
    config = apply_overrides(load_config(config_path), llm=llm)
    await execute(config, output=folder, stages=(), progress=False)
    RunFolder(folder).scenarios.append(scenario)
    started = time.monotonic()
    await execute(config, output=folder, stages=("populate",), script=script, progress=False)
    elapsed = time.monotonic() - started
    run_folder = RunFolder(folder)
    (event,) = run_folder.events.load()
    info = run_folder.run_info.load()
    assert info is not None
    return event, info, elapsed


def main() -> None:
    """Print one line per event: status, repairs, calls per step, tokens in and out, seconds, whether its expected
    outcome was verified."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", type=Path, help="a scenarios.jsonl (e.g. a describe run's)")
    parser.add_argument("--config", default="configs/airline.yml", help="the domain's config")
    parser.add_argument("--llm", default="local", help="model SPEC of every role (default: the embedded model)")
    parser.add_argument("--limit", type=int, default=3, help="scenarios to populate, from the top")
    parser.add_argument("--output", type=Path, help="keep the run folders here (default: a temporary folder)")
    args = parser.parse_args()
    scenarios = [Scenario.model_validate_json(line) for line in args.scenarios.read_text(encoding="utf-8").splitlines()]
    scenarios = [s for s in scenarios if s.status == "ok"][: args.limit]
    with tempfile.TemporaryDirectory() as scratch:
        # One event loop for every scenario: the model clients are bound to the loop they start on.
        asyncio.run(report(scenarios, config_path=args.config, llm=args.llm, root=args.output or Path(scratch)))


async def report(scenarios: list[Scenario], *, config_path: str, llm: str, root: Path) -> None:
    """Populate each scenario alone, print its line, then the summary."""
    print(f"{'event':<8}{'status':<8}{'repairs':>8}{'calls':>7}{'in tok':>9}{'out tok':>9}{'seconds':>9}"
          f"{'given up':>9}{'outcome':>10}  steps")
    calls, valid, given_up, verified = [], 0, 0, 0
    for scenario in scenarios:
        event, info, elapsed = await measure(scenario, config_path=config_path, llm=llm, folder=root / scenario.id)
        usage = info.usage
        steps = ", ".join(f"{step.split('/')[-1]} {tally.calls}" for step, tally in usage.steps.items())
        print(f"{event.id:<8}{event.status:<8}{event.repairs:>8}{usage.total.calls:>7}{usage.total.input_tokens:>9}"
              f"{usage.total.output_tokens:>9}{elapsed:>9.1f}{len(event.dropped):>9}"
              f"{'verified' if event.expected else 'none':>10}  {steps}", flush=True)
        for why in (event.error, event.expected_error):
            if why:
                print(f"        {why}", flush=True)
        calls.append(usage.total.calls)
        valid += event.status == "ok"
        given_up += len(event.dropped)
        verified += event.expected is not None
    if calls:
        common = sum(count <= COMMON_CASE_CALLS for count in calls)
        print(f"\nvalid events: {valid}/{len(calls)}   calls per event: mean {sum(calls) / len(calls):.2f}, "
              f"median {sorted(calls)[len(calls) // 2]}, max {max(calls)}   within {COMMON_CASE_CALLS} calls: "
              f"{common}/{len(calls)}   facts given up: {given_up}   verified outcomes: {verified}/{valid}")


if __name__ == "__main__":
    main()
