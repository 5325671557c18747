#!/usr/bin/env python3
"""Populate's memory as the number of events grows: flat is the goal.

Populates N synthetic scenarios of the airline domain in one process, after a small warm-up run, with
the careless double (answers valid against each schema, arbitrary in content: no model is needed), and
prints the Python memory still held once the stage is done and its peak (tracemalloc), per size and
its growth per added event.

    python benchmarks/populate_memory.py                  # 20 and 80 events
    python benchmarks/populate_memory.py --sizes 50 200
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intellagent.artifacts import Scenario
from intellagent.config import apply_overrides, load_config
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.run_folder import RunFolder
from intellagent.runner import execute


def populate(size: int, root: Path) -> tuple[int, int]:
    """Bytes still held after populating `size` scenarios, and the peak while doing it."""
    config = apply_overrides(load_config("airline"), llm="scripted", workers=4)
    folder = root / f"run-{size}"
    asyncio.run(execute(config, output=folder, stages=(), progress=False))
    scenarios = RunFolder(folder).scenarios
    for number in range(1, size + 1):
        scenarios.append(Scenario(id=f"S{number:03d}", policies=["P01"], target_challenge=3, challenge=3,
                                  description=f"Customer {number} wants a booking changed."))
    gc.collect()
    tracemalloc.start()
    # The double is made inside the measure and dropped before it is read: it records every request it
    # answers, and that record is the test's memory, not populate's.
    script = ScriptedLLM().on(reply=careless_answers(seed=1))
    asyncio.run(execute(config, output=folder, stages=("populate",), script=script, progress=False))
    del script
    gc.collect()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return held, peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 80], help="event counts to populate")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        populate(3, Path(scratch) / "warm-up")  # the first run also loads modules: kept out of the figures
        figures = {size: populate(size, Path(scratch)) for size in sorted(args.sizes)}
    for size, (held, peak) in figures.items():
        print(f"{size:>5} events: {held / 1e6:7.1f} MB held after the stage, peak {peak / 1e6:7.1f} MB")
    small, large = min(figures), max(figures)
    held_growth, peak_growth = ((figures[large][i] - figures[small][i]) / (large - small) for i in (0, 1))
    print(f"per added event: {held_growth / 1e3:.0f} KB held; {peak_growth / 1e3:.0f} KB at the peak, which "
          "includes the double's record of the requests it answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
