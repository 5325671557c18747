#!/usr/bin/env python3
"""How the report stage's time grows with the number of dialogs: linear is the goal.

Makes synthetic run folders of N analysed dialogs (20 policies in 4 flows, scenarios of 3 policies,
transcripts of 8 messages, one violation in three dialogs), then times the report stage on each: with
every analysis already in analysis.jsonl it makes no LLM call, and what is timed is reading the
artifacts, computing report.json, and writing report.html and junit.xml. Prints seconds per size and
the growth between the smallest and the largest.

    python benchmarks/report_scale.py                 # 1,000 and 4,000 dialogs
    python benchmarks/report_scale.py --sizes 500 2000 8000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intellagent.artifacts import (
    Analysis,
    Dialog,
    Event,
    Flow,
    Message,
    Policy,
    PolicyCatalog,
    Scenario,
    Violation,
)
from intellagent.config import load_config
from intellagent.reports.dialog_analysis import dialog_digest
from intellagent.run_folder import RunFolder
from intellagent.runner import execute

POLICIES = 20


def synthetic_run(folder: RunFolder, dialogs: int, seed: int = 7) -> list[Analysis]:
    """A run folder of `dialogs` finished dialogs, analysed (analysis.jsonl); returns their analyses."""
    rng = random.Random(seed)
    policies = [Policy(id=f"P{n:02d}", text=f"Rule {n}: do the right thing in case {n}.", flows=[f"F{n % 4 + 1}"],
                       category="company_policy", challenge=n % 5 + 1) for n in range(1, POLICIES + 1)]
    flows = [Flow(id=f"F{n}", name=f"Flow {n}") for n in range(1, 5)]
    folder.policies.save(PolicyCatalog(task_description="A synthetic shop.", flows=flows, policies=policies))
    graph = nx.Graph()
    graph.add_weighted_edges_from((a.id, b.id, rng.randint(0, 10)) for a in policies for b in policies if a.id < b.id)
    folder.graph.save(graph)
    scenarios, events, dialog_file = folder.scenarios, folder.events, folder.dialogs
    analyses = []
    for number in range(1, dialogs + 1):
        item = f"S{number:03d}"
        sampled = sorted(rng.sample([p.id for p in policies], 3))
        scenarios.append(Scenario(id=item, policies=sampled, target_challenge=6, challenge=6, description="A user."))
        events.append(Event(id=item, scenario="A user wants help.", expected_behaviour="Help.", policies=sampled,
                            challenge=6))
        transcript = [Message(role="chatbot" if turn % 2 == 0 else "user", content=f"Message {turn} of {item}.")
                      for turn in range(8)]
        dialog = Dialog(id=item, status="pass", policies=sampled, challenge=6, transcript=transcript, turns=4)
        dialog_file.append(dialog)
        broke = [Violation(policy=sampled[0], turn=2, reason="it did not")] if number % 3 == 0 else []
        analyses.append(Analysis(id=item, status="fail" if broke else "pass", tested=sampled, violations=broke,
                                 source=dialog_digest(dialog)))
    analysis_file = folder.analyses
    for analysis in analyses:
        analysis_file.append(analysis)
    return analyses


def build_once(size: int) -> float:
    """Seconds the report stage takes on a run of `size` analysed dialogs."""
    config = load_config("airline")
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "run"
        asyncio.run(execute(config, output=folder, stages=(), progress=False))  # an empty run folder
        synthetic_run(RunFolder(folder), size)
        started = time.perf_counter()
        asyncio.run(execute(config, output=folder, stages=("report",), progress=False))
        return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000], help="dialog counts to time")
    args = parser.parse_args(argv)
    times = {size: build_once(size) for size in sorted(args.sizes)}
    for size, seconds in times.items():
        print(f"{size:>6} dialogs: {seconds:6.2f} s  ({seconds / size * 1000:.2f} ms per dialog)")
    small, large = min(times), max(times)
    print(f"growth {times[large] / times[small]:.1f}× for {large / small:.0f}× the dialogs (linear: "
          f"{large / small:.0f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
