"""report.json: adherence per policy, category, flow and challenge level, and coverage (see shop_run)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from shop_run import answer_for, report_run

from intellagent.artifacts import RunInfo, StageInfo
from intellagent.artifacts.run_report import Report
from intellagent.llm import ScriptedLLM, UsageReport
from intellagent.reports.metrics import run_usage


def by_id(items):
    return {item.id: item for item in items}


def counts(rate):
    return (rate.passed, rate.total)


def test_a_dialog_that_ran_out_of_turns_counts_and_an_error_dialog_is_left_out_of_the_pass_rate(shop_report):
    report = shop_report[0].report
    assert report.overall.by_status == {"pass": 1, "fail": 3, "user_fault": 0, "incomplete": 0, "error": 1}
    assert counts(report.overall.pass_rate) == (1, 4)
    assert {d.id for d in report.dialogs if d.status in ("incomplete", "error")} == {"S005"}


def test_no_policy_counts_a_test_from_an_error_dialog(shop_report):
    report = shop_report[0].report
    assert all("S005" not in {v.dialog for v in p.violations} for p in report.policies)
    assert sum(p.tested for p in report.policies) == 7  # S001: 2, S002: 2, S003: 2, S004: 1


def test_upstream_failures_are_counted(shop_report):
    overall = shop_report[0].report.overall
    assert (overall.dialogs, overall.scenario_errors, overall.event_errors) == (5, 1, 1)


def test_per_policy_numbers(shop_report):
    policies = by_id(shop_report[0].report.policies)
    table = {pid: (p.sampled, p.tested, p.passed, p.violated) for pid, p in policies.items()}
    assert table == {"P01": (4, 2, 2, 0), "P02": (3, 2, 1, 1), "P03": (4, 2, 0, 2), "P04": (2, 1, 1, 0),
                     "P05": (1, 0, 0, 0)}
    assert [(v.dialog, v.turn) for v in policies["P03"].violations] == [("S002", 4), ("S004", 4)]
    assert policies["P02"].pass_rate.model_dump() == {"passed": 1, "total": 2, "rate": 0.5, "low": 0.0945,
                                                      "high": 0.9055}
    assert policies["P05"].pass_rate.rate is None


def test_per_category_numbers(shop_report):
    categories = {c.id: (c.policies, c.tests, c.passed, c.violated) for c in shop_report[0].report.categories}
    assert categories == {"authentication": (1, 2, 2, 0), "data_privacy": (1, 0, 0, 0), "payment": (1, 2, 1, 1),
                          "user_consent": (1, 2, 0, 2), "escalation": (1, 1, 1, 0)}


def test_per_flow_numbers(shop_report):
    flows = by_id(shop_report[0].report.flows)
    assert (flows["F1"].policies, counts(flows["F1"].pass_rate)) == (3, (3, 6))
    assert (flows["F2"].policies, counts(flows["F2"].pass_rate)) == (4, (3, 5))


def test_challenge_levels_count_the_dialogs_at_or_above_each_level(shop_report):
    levels = {level.level: counts(level.pass_rate) for level in shop_report[0].report.challenge_levels}
    assert levels == {3: (1, 4), 4: (1, 3), 5: (0, 2), 6: (0, 2), 7: (0, 1), 8: (0, 1), 9: (0, 1)}


def test_coverage_overall_per_flow_and_per_category(shop_report):
    coverage = shop_report[0].report.coverage
    assert (coverage.tested, coverage.total, coverage.share, coverage.never_tested) == (4, 5, 0.8, ["P05"])
    flows = {f.id: (f.tested, f.total, f.never_tested) for f in coverage.flows}
    assert flows == {"F1": (3, 3, []), "F2": (3, 4, ["P05"])}
    categories = {c.id: c.share for c in coverage.categories}
    assert categories["data_privacy"] == 0.0 and categories["payment"] == 1.0


def test_strong_pairs_tested_together(shop_report):
    pairs = shop_report[0].report.coverage.strong_pairs
    assert (pairs.threshold, pairs.total, pairs.tested, pairs.share) == (6.0, 4, 2, 0.5)
    marked = {p.policies: p.tested_together for p in pairs.pairs}
    assert marked == {("P01", "P02"): True, ("P01", "P03"): True, ("P02", "P03"): False, ("P04", "P05"): False}


def test_the_strong_edge_setting_moves_the_threshold(config, run_folder, analysis_script):
    report = report_run(config, run_folder, analysis_script, strong_edge=8).report
    assert [p.policies for p in report.coverage.strong_pairs.pairs] == [("P01", "P02"), ("P04", "P05")]


def test_report_json_has_the_documented_keys_in_order(shop_report):
    _, folder = shop_report
    data = json.loads(folder.path("report.json").read_text())
    assert list(data) == ["name", "overall", "gate", "policies", "categories", "flows", "challenge_levels",
                          "coverage", "tau", "outcomes", "floor", "dual_control", "personas", "baseline", "trials",
                          "calibration", "programs", "rollouts", "red_team", "simulator", "production", "agreement",
                          "labels",
                          "dialogs"]
    assert list(data["overall"]) == ["dialogs", "by_status", "pass_rate", "scenario_errors", "event_errors", "usage"]
    assert Report.model_validate(data) == shop_report[0].report


def test_report_json_is_the_same_on_a_second_run_but_for_usage(config, reported, analysis_script):
    _, folder = reported

    def without_usage():
        data = json.loads(folder.path("report.json").read_text())
        del data["overall"]["usage"]
        return data

    first = without_usage()
    report_run(config, folder, analysis_script)
    assert without_usage() == first


def test_usage_holds_the_calls_tokens_and_time_of_each_stage(shop_report):
    usage = shop_report[0].report.overall.usage
    assert usage.calls == 4 and usage.input_tokens > 0 and usage.output_tokens > 0
    assert list(usage.stages) == ["report"] and usage.stages["report"].calls == 4
    assert usage.duration_s is not None and usage.duration_s >= 0


def test_durations_count_every_invocation_and_say_what_this_one_took():
    info = RunInfo(name="r", seed=1, config={}, fingerprint="f", started_at="2026-01-01T10:00:00+00:00", stages={
        "describe": StageInfo(status="done", started_at="2026-01-01T09:00:00+00:00",
                              finished_at="2026-01-01T09:01:40+00:00"),
        "simulate": StageInfo(status="done", started_at="2026-01-01T10:00:00+00:00",
                              finished_at="2026-01-01T10:00:30+00:00", earlier_s=50),
        "report": StageInfo(started_at="2026-01-01T10:00:30+00:00"),
    })
    usage = run_usage(UsageReport(), info, now=datetime(2026, 1, 1, 10, 0, 32, tzinfo=UTC))
    assert {name: (s.duration_s, s.invocation_s) for name, s in usage.stages.items()} == {
        "describe": (100, 0), "simulate": (80, 30), "report": (2, 2)}
    assert (usage.duration_s, usage.invocation_s) == (182, 32)


def test_a_resumed_run_adds_its_time_to_the_earlier_invocations(config, reported):
    _, folder = reported
    info = json.loads(folder.path("run.json").read_text())
    info["stages"]["report"]["started_at"] = "2020-01-01T00:00:00+00:00"  # as if it had run for years
    info["stages"]["report"]["finished_at"] = "2020-01-01T01:00:00+00:00"
    folder.path("run.json").write_text(json.dumps(info))

    result = report_run(config, folder, ScriptedLLM().on(role="analysis", reply=answer_for))

    usage = result.report.overall.usage
    assert usage.stages["report"].duration_s >= 3600 > usage.stages["report"].invocation_s
    assert json.loads(folder.path("run.json").read_text())["stages"]["report"]["earlier_s"] == 3600
