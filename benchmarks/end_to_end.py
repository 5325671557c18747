#!/usr/bin/env python3
"""Time the main job end to end: `run.py --config airline.yml` into a fresh temporary folder.

Prints the wall time of each stage and in total, with the LLM calls, prompt and output tokens each stage used
and the share of prompt tokens the server's prefix cache served, as recorded in the run's run.json; then the
same per step, the costliest first (the profile of the run, call by call); then what the run found, from its
report.json: the dialogs with a verdict, the policies they ruled on, the violations (by a check or the judge)
and the coverage; and the dialogs in which the chatbot called a tool with an id the user had
given. The embedded model is used unless --llm gives another SPEC.

    python benchmarks/end_to_end.py                      # the embedded model, the example's size
    python benchmarks/end_to_end.py --llm openai:gpt-4o-mini --samples 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from intellagent.artifacts import Dialog
from intellagent.outcomes.facts import leaves
from intellagent.run_folder import RunFolder
from intellagent.value_shapes import id_pattern, named_in

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    """Run the job once and print its timings; returns the job's exit code."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="airline.yml", help="config file or example name (default airline.yml)")
    parser.add_argument("--llm", metavar="SPEC", help="model of every role, the chatbot included (default: local)")
    parser.add_argument("--samples", type=int, metavar="N", help="override the config's samples")
    parser.add_argument("--keep", action="store_true", help="keep the run folder and print where it is")
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="intellagent-bench-")) / "run"
    command = [sys.executable, str(ROOT / "run.py"), "--config", args.config, "--output", str(folder), "--no-progress"]
    if args.llm:
        command += ["--llm", args.llm, "--chatbot-llm", args.llm]
    if args.samples:
        command += ["--samples", str(args.samples)]
    print("$ " + " ".join(command[1:]), flush=True)
    started = time.monotonic()
    job = subprocess.run(command, cwd=ROOT, check=False)
    wall = time.monotonic() - started

    info_path = folder / RunFolder.run_info.name
    if not info_path.exists():
        print(f"no run.json: the job exited {job.returncode} before starting", file=sys.stderr)
        return job.returncode or 1
    info = json.loads(info_path.read_text(encoding="utf-8"))
    print()
    print(timing_table(info, wall))
    print()
    print(step_table(info))
    report_path = folder / RunFolder.report.name
    if report_path.exists():
        print()
        print(verdict_figures(json.loads(report_path.read_text(encoding="utf-8"))))
        print(given_ids_figure(RunFolder(folder).dialogs.load()))
    if args.keep:
        print(f"\nrun folder: {folder}")
    else:
        shutil.rmtree(folder.parent, ignore_errors=True)
    return job.returncode


HEADER = ("LLM calls", "prompt tok", "from cache", "output tok")


def timing_table(info: dict[str, Any], wall: float) -> str:
    """The per-stage and total figures of a run.json, as a text table."""
    usage = info.get("usage", {})
    per_stage = usage.get("stages", {})
    rows = [("stage", "wall time", *HEADER)]
    for name, stage in info.get("stages", {}).items():
        rows.append((name, _seconds(_duration(stage)), *_counts(per_stage.get(name, {}))))
    rows.append(("total", _seconds(wall), *_counts(usage.get("total", {}))))
    lines = _aligned(rows)
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    cpus = os.cpu_count() or 0
    lines.append(f"status {info.get('status')}, {cpus} CPU cores, Python {platform.python_version()}; "
                 "total wall time includes start-up and loading the model")
    return "\n".join(lines)


def step_table(info: dict[str, Any]) -> str:
    """The figures of each step of a run.json (stage/step), the most prompt and output tokens first."""
    steps = info.get("usage", {}).get("steps", {})
    ordered = sorted(steps.items(), key=lambda item: -(item[1].get("input_tokens", 0)
                                                       + 8 * item[1].get("output_tokens", 0)))
    return "\n".join(_aligned([("step", *HEADER), *((name, *_counts(tally)) for name, tally in ordered)]))


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as lines of aligned columns, the first left-aligned, a rule under the header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths,
                                                                                                 strict=True)))
             for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return lines


def verdict_figures(report: dict[str, Any]) -> str:
    """What the run found, from its report.json: dialogs with a verdict, the policies they ruled on,
    the violations and who found them, and the coverage."""
    dialogs = report.get("dialogs", [])
    judged = [dialog for dialog in dialogs if dialog["status"] in ("pass", "fail")]
    ruled_on = {policy for dialog in judged for policy in dialog["tested"]}
    violations = [v for policy in report.get("policies", []) for v in policy.get("violations", [])]
    by_source = {source: sum(v.get("source") == source for v in violations) for source in ("check", "judge")}
    coverage = report.get("coverage", {})
    pairs = coverage.get("strong_pairs", {})
    statuses = ", ".join(f"{count} {status}" for status, count in report["overall"]["by_status"].items() if count)
    return "\n".join([
        f"dialogs with a verdict  {len(judged)} of {len(dialogs)} ({statuses or 'none'})",
        f"policies ruled on       {len(ruled_on)} ({', '.join(sorted(ruled_on)) or '-'})",
        f"violations              {len(violations)} "
        f"({by_source['check']} by a check, {by_source['judge']} by the judge)",
        f"coverage                {coverage.get('tested', 0)} of {coverage.get('total', 0)} policies, "
        f"{pairs.get('tested', 0)} of {pairs.get('total', 0)} strongly linked pairs",
    ])


def given_ids_figure(dialogs: list[Dialog]) -> str:
    """The dialogs in which the chatbot called a tool with an id the user had given: the share that shows whether the
    chatbot acts on what it is told (an id it made up, or took from a tool's description, does not count)."""
    acted = [dialog.id for dialog in dialogs if used_a_given_id(dialog)]
    return f"chatbot used a given id {len(acted)} of {len(dialogs)} dialogs ({', '.join(acted) or '-'})"


def used_a_given_id(dialog: Dialog) -> bool:
    """Whether a tool call of the chatbot has an argument with an identifier's shape that the user's words before it
    name (a cabin the user named is no id)."""
    said = ""
    for message in dialog.transcript:
        if message.role == "user":
            said += "\n" + message.content
            continue
        for call in message.tool_calls:
            if any(isinstance(value, str) and id_pattern(value) and named_in(said, value)
                   for _, value in leaves(call.arguments)):
                return True
    return False


def _duration(stage: dict[str, Any]) -> float | None:
    if not stage.get("finished_at"):
        return None
    start, end = (datetime.fromisoformat(stage[key]) for key in ("started_at", "finished_at"))
    return (end - start).total_seconds()


def _counts(tally: dict[str, Any]) -> tuple[str, str, str, str]:
    calls = f"{tally.get('calls', 0)}" + (f" (+{tally['cached']} cached)" if tally.get("cached") else "")
    prompt = tally.get("input_tokens", 0)
    served = f"{tally.get('cache_read_tokens', 0) / prompt:.0%}" if prompt else "–"
    return calls, f"{prompt:,}", served, f"{tally.get('output_tokens', 0):,}"


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    minutes, seconds = divmod(value, 60)
    return f"{int(minutes)} min {seconds:04.1f} s" if minutes else f"{seconds:.1f} s"


if __name__ == "__main__":
    sys.exit(main())
