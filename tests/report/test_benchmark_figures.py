"""benchmarks/end_to_end.py: the verdict figures it prints are those of the run's report.json."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "end_to_end.py"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("end_to_end", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_figures_count_the_judged_dialogs_their_policies_and_the_violations_by_source(shop_report):
    _, folder = shop_report
    report = json.loads(folder.path("report.json").read_text())
    figures = dict(line.split("  ", 1) for line in load_benchmark().verdict_figures(report).splitlines())
    judged = [d for d in report["dialogs"] if d["status"] in ("pass", "fail")]
    ruled_on = sorted({p for d in judged for p in d["tested"]})
    violations = [v for p in report["policies"] for v in p["violations"]]
    assert judged and violations  # the fixture has both, so the figures below are not vacuous
    assert figures["dialogs with a verdict"].strip().startswith(f"{len(judged)} of {len(report['dialogs'])} (")
    assert figures["policies ruled on"].strip() == f"{len(ruled_on)} ({', '.join(ruled_on)})"
    checks = sum(v["source"] == "check" for v in violations)
    assert figures["violations"].strip() == (
        f"{len(violations)} ({checks} by a check, {len(violations) - checks} by the judge)")
    coverage = report["coverage"]
    assert figures["coverage"].strip().startswith(f"{coverage['tested']} of {coverage['total']} policies")
