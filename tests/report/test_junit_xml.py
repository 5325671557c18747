"""junit.xml: one test case per policy, failed with its reasons when a dialog violated it; dialog errors, the
quality gate and an aborted run as cases of their own, so that CI's test view and exit code agree."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET

import pytest

from intellagent.config import ReportConfig
from intellagent.errors import RunAborted
from intellagent.pipeline import DESCRIBE
from intellagent.reports.gate import evaluate_gate
from intellagent.reports.junit import junit_xml
from intellagent.runner import execute


def cases(folder):
    """The document, and the cases of its first suite (the run's, before those per persona) by name."""
    root = ET.parse(folder.path("junit.xml")).getroot()
    return root, {case.get("name").split(":")[0]: case for case in root.find("testsuite").iter("testcase")}


def test_one_case_per_policy_and_one_error_per_dialog_that_could_not_go_on(shop_report):
    root, by_name = cases(shop_report[1])
    assert sorted(by_name) == ["P01", "P02", "P03", "P04", "P05", "S005"]
    assert by_name["S005"].find("error") is not None and by_name["S005"].get("classname") == "shop.dialogs"
    suite = root.find("testsuite")
    assert [suite.get(key) for key in ("tests", "failures", "errors", "skipped")] == ["6", "2", "1", "1"]


def test_a_policy_takes_the_time_of_the_dialogs_that_tested_it(shop_report):
    report = shop_report[0].report
    root = ET.fromstring(junit_xml(report, {d.id: 2.5 for d in report.dialogs}))
    by_name = {case.get("name").split(":")[0]: case for case in root.find("testsuite").iter("testcase")}
    tested = sum("P01" in d.tested for d in report.dialogs)
    assert tested and float(by_name["P01"].get("time")) == 2.5 * tested
    assert by_name["P05"].get("time") == "0.000"  # never tested


def test_the_quality_gate_is_a_case_that_fails_exactly_when_the_run_exits_1(shop_report):
    report = shop_report[0].report
    failed = report.model_copy(update={"gate": evaluate_gate(report, ReportConfig(fail_under=0.99))})
    passed = report.model_copy(update={"gate": evaluate_gate(report, ReportConfig(fail_under=0.1))})
    for gated, fails in ((failed, True), (passed, False)):
        gate = next(c for c in ET.fromstring(junit_xml(gated)).iter("testcase") if c.get("name") == "quality gate")
        assert (gate.find("failure") is not None) is fails
    assert "is below --fail-under 0.99" in junit_xml(failed)


def test_a_run_that_judged_nothing_fails_its_gate_unless_allowed(shop_report):
    report = shop_report[0].report
    nothing = report.model_copy(update={"overall": report.overall.model_copy(
        update={"pass_rate": report.overall.pass_rate.of(0, 0)})})
    assert evaluate_gate(nothing, ReportConfig()).failures[0].startswith("no dialog got a verdict")
    assert evaluate_gate(nothing, ReportConfig(require_verdict=False)).failures == []
    assert evaluate_gate(report, ReportConfig()).failures == []


def test_an_aborted_run_writes_the_abort_as_an_error(config, tmp_path, monkeypatch):
    async def abort(ctx):
        raise RunAborted("budget exhausted")

    monkeypatch.setattr(DESCRIBE, "run", abort)
    with pytest.raises(RunAborted):
        asyncio.run(execute(config, output=tmp_path / "run", stages=("describe",), progress=False))
    root = ET.parse(tmp_path / "run" / "junit.xml").getroot()
    (case,) = root.iter("testcase")
    assert case.find("error").get("message") == "the run aborted: budget exhausted"
    assert root.find("testsuite").get("errors") == "1"


def test_a_violated_policy_fails_with_its_reasons(shop_report):
    _, by_policy = cases(shop_report[1])
    failure = by_policy["P03"].find("failure")
    assert failure.get("message") == "violated in 2 of 2 dialogs that tested it"
    assert failure.text.splitlines() == [
        'S002 turn 4 (judge, cooperative user): Changed the order without asking: "Done, I changed it."',
        'S004 turn 4 (judge, pressure user): Changed the size unasked: "Done, I changed it."']


def test_a_policy_that_held_passes_and_a_never_tested_one_is_skipped(shop_report):
    _, by_policy = cases(shop_report[1])
    assert by_policy["P01"].find("failure") is None and by_policy["P01"].find("skipped") is None
    assert by_policy["P05"].find("skipped") is not None


def test_characters_xml_cannot_hold_are_replaced(shop_report):
    report = shop_report[0].report
    broken = report.policies[2].model_copy(update={"text": "bell\x07 and <tag> & more"})
    xml = junit_xml(report.model_copy(update={"policies": [broken]}))
    case = ET.fromstring(xml).find(".//testcase")
    assert case.get("name") == "P03: bell\ufffd and <tag> & more"
