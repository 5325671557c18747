"""benchmarks/end_to_end.py: the verdict figures it prints are those of the run's report.json."""

from __future__ import annotations

import json

from tests.conftest import load_benchmark


def figures(report: dict) -> dict[str, str]:
    lines = load_benchmark("end_to_end").verdict_figures(report).splitlines()
    return {name.strip(): value.strip() for name, value in (line.split("  ", 1) for line in lines)}


def test_the_figures_are_the_fixture_runs_judged_dialogs_policies_violations_and_coverage(shop_report):
    _, folder = shop_report
    report = json.loads(folder.path("report.json").read_text())
    # The fixture (shop_run.py): S001 pass, S002–S004 fail with one judge's violation each, S005 an error.
    assert figures(report) == {
        "dialogs with a verdict": "4 of 5 (1 pass, 3 fail, 1 error)",
        "policies ruled on": "4 (P01, P02, P03, P04)",
        "violations": "3 (0 by a check, 3 by the judge)",
        "coverage": "4 of 5 policies, 2 of 4 strongly linked pairs",
    }


def test_violations_are_counted_by_who_found_them(shop_report):
    _, folder = shop_report
    report = json.loads(folder.path("report.json").read_text())
    next(p for p in report["policies"] if p["violations"])["violations"][0]["source"] = "check"
    assert figures(report)["violations"] == "3 (1 by a check, 2 by the judge)"
