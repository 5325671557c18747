"""The comparison with a baseline run and the quality gate: exit 1 when the run got worse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shop_run import report_run

from intellagent.artifacts.run_report import Rate, Report
from intellagent.cli import main
from intellagent.reports.minimums import shortfall
from intellagent.reports.sections.baseline_comparison import compare


def with_counts(report: Report, counts: dict[str, tuple[int, int]], **texts: str) -> Report:
    """A copy of `report` whose policies passed/tested the given counts (and have the given texts)."""
    policies = []
    for policy in report.policies:
        passed, tested = counts.get(policy.id, (policy.passed, policy.tested))
        policies.append(policy.model_copy(update={
            "passed": passed, "tested": tested, "violated": tested - passed, "pass_rate": Rate.of(passed, tested),
            "text": texts.get(policy.id, policy.text),
        }))
    return report.model_copy(update={"policies": policies})


def save_baseline(folder: Path, report: Report) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.json").write_text(report.model_dump_json(indent=2))
    return folder


def changes(report: Report, baseline: Report):
    return compare(report, baseline, folder=Path("earlier"), alpha=0.05)


def test_a_policy_that_fell_from_5_of_5_to_0_of_5_is_significantly_worse(shop_report):
    report = shop_report[0].report
    comparison = changes(with_counts(report, {"P01": (0, 5)}), with_counts(report, {"P01": (5, 5)}))
    p01 = next(c for c in comparison.policies if c.id == "P01")
    assert (p01.change, p01.p_value, p01.significantly_worse) == (-1.0, pytest.approx(1 / 252, abs=1e-6), True)
    assert comparison.significantly_worse == ["P01"]


def test_one_new_violation_in_few_tests_is_reported_but_not_significant(shop_report):
    report = shop_report[0].report
    comparison = changes(report, with_counts(report, {"P02": (2, 2)}))
    assert comparison.new_violations == ["P02"] and comparison.significantly_worse == []


def test_newly_covered_and_no_longer_covered_policies(shop_report):
    report = shop_report[0].report
    comparison = changes(report, with_counts(report, {"P04": (0, 0), "P05": (3, 3)}))
    assert (comparison.newly_covered, comparison.no_longer_covered) == (["P04"], ["P05"])


def test_a_policy_with_another_text_is_not_compared(shop_report):
    report = shop_report[0].report
    comparison = changes(with_counts(report, {"P01": (0, 5)}),
                         with_counts(report, {"P01": (5, 5)}, P01="Another rule entirely."))
    assert "P01" in comparison.not_comparable and "P01" not in [c.id for c in comparison.policies]


def test_the_report_states_the_test_used(shop_report):
    assert "one-sided Fisher exact test" in changes(shop_report[0].report, shop_report[0].report).test


def test_fail_under_above_the_pass_rate_fails_the_gate(config, run_folder, analysis_script):
    result = report_run(config, run_folder, analysis_script, fail_under=0.5)
    assert result.exit_code == 1 and result.info.status == "gate_failed"
    assert result.gate_failures == ["pass rate 25.0% (1/4 dialogs) is below --fail-under 0.5"]


def test_fail_under_at_or_below_the_pass_rate_passes(config, run_folder, analysis_script):
    result = report_run(config, run_folder, analysis_script, fail_under=0.25)
    assert (result.exit_code, result.gate_failures, result.report.gate.passed) == (0, [], True)


def test_a_significantly_worse_policy_fails_the_gate_against_a_baseline(config, reported, analysis_script, tmp_path):
    result, folder = reported
    baseline = save_baseline(tmp_path / "earlier", with_counts(result.report, {"P03": (19, 19)}))
    again = report_run(config, folder, analysis_script, baseline=baseline)
    assert again.exit_code == 1
    assert again.gate_failures == ["P03 got significantly worse than the baseline: passed 19/19 before, 0/2 now "
                                   "(one-sided Fisher exact p=0.005 <= 0.05)"]
    data = json.loads(folder.path("report.json").read_text())
    assert data["baseline"]["significantly_worse"] == ["P03"] and data["gate"]["passed"] is False
    assert 'id="baseline"' in folder.path("report.html").read_text()


def test_the_same_run_as_baseline_passes_the_gate(config, reported, analysis_script, tmp_path):
    result, folder = reported
    baseline = save_baseline(tmp_path / "earlier", result.report)
    assert report_run(config, folder, analysis_script, baseline=baseline).exit_code == 0


def test_the_command_line_exits_1_when_the_gate_fails(config_file, reported, capsys):
    _, folder = reported  # analysed already: this run is answered without any model
    code = main(["--config", str(config_file), "--output", str(folder.root), "--stages", "report",
                 "--fail-under", "0.9", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "1 of 4 dialogs passed" in out and "quality gate: FAILED" in out
    assert "gate: pass rate 25.0% (1/4 dialogs) is below --fail-under 0.9" in err


def test_the_command_line_exits_0_when_the_gate_passes(config_file, reported, capsys):
    _, folder = reported
    code = main(["--config", str(config_file), "--output", str(folder.root), "--stages", "report",
                 "--fail-under", "0.2", "--no-progress"])
    assert code == 0 and "quality gate: passed" in capsys.readouterr().out


def test_a_baseline_without_a_report_is_a_usage_error(config_file, reported, tmp_path, capsys):
    _, folder = reported
    (tmp_path / "empty").mkdir()
    code = main(["--config", str(config_file), "--output", str(folder.root), "--stages", "report",
                 "--baseline", str(tmp_path / "empty"), "--no-progress"])
    assert code == 2 and "no report.json there" in capsys.readouterr().err


def test_a_category_below_its_minimum_fails_the_gate(config, run_folder, analysis_script):
    result = report_run(config, run_folder, analysis_script, min_category={"payment": 1.0, "authentication": 0.0})
    payment = next(c for c in result.report.categories if c.id == "payment")
    assert payment.pass_rate.rate is not None and payment.pass_rate.rate < 1.0
    assert result.exit_code == 1
    assert [f for f in result.gate_failures if "category" in f] == [
        f"category payment {payment.pass_rate.rate:.1%} ({payment.pass_rate.passed}/{payment.pass_rate.total} tests) "
        "is below report.min_category 1"
    ]


def test_a_policy_minimum_names_the_policy_and_an_unknown_id_is_a_failure(config, run_folder, analysis_script):
    result = report_run(config, run_folder, analysis_script, min_policy={"P99": 0.5})
    assert result.exit_code == 1
    assert result.gate_failures == ["report.min_policy names P99, which is not a policy of this run"]
    worst = next(p for p in result.report.policies if p.violated)
    result = report_run(config, run_folder, analysis_script, min_policy={worst.id: 1.0})
    assert len(result.gate_failures) == 1 and result.gate_failures[0].startswith(f"{worst.id} (")
    assert result.report.gate.min_policy == {worst.id: 1.0}


@pytest.mark.parametrize(("passed", "total", "failures"), [
    (3, 3, ["pass rate 100.0% (3/3 dialogs) has a 95% lower bound of 43.9%, below --fail-under 0.9 "
            "(report.gate_on: lower_bound)"]),
    (60, 60, []),
    (0, 0, ["pass rate has no verdict, so it cannot reach --fail-under 0.9"]),
])
def test_gating_on_the_lower_bound_takes_many_clean_dialogs_to_pass_a_high_bar(passed, total, failures):
    assert shortfall("pass rate", Rate.of(passed, total), 0.9, setting="--fail-under", unit="dialogs",
                     gate_on="lower_bound") == failures
    point = shortfall("pass rate", Rate.of(passed, total), 0.9, setting="--fail-under", unit="dialogs")
    assert point == ([] if total else failures)  # on the rate itself, 3 of 3 pass


def test_gate_on_lower_bound_from_the_config_applies_to_the_policy_minimums(config, run_folder, analysis_script):
    on_rate = report_run(config, run_folder, analysis_script, min_policy={"P01": 0.5})
    on_bound = report_run(config, run_folder, analysis_script, min_policy={"P01": 0.5}, gate_on="lower_bound")
    p01 = next(policy for policy in on_bound.report.policies if policy.id == "P01")
    assert p01.pass_rate.rate >= 0.5 > p01.pass_rate.low  # passes on its rate, not on its lower bound
    assert on_rate.gate_failures == []
    (failure,) = on_bound.gate_failures
    assert failure.startswith("P01 (") and failure.endswith(
        f"has a 95% lower bound of {p01.pass_rate.low:.1%}, below report.min_policy 0.5 (report.gate_on: lower_bound)"
    )
    assert on_bound.report.gate.gate_on == "lower_bound"
