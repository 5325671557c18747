"""The benchmarks' figures: end_to_end.py prints those of the run's report.json; report_scale.py's synthetic
runs make real reports."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from intellagent.artifacts import Dialog, Message, ToolCall
from intellagent.config import ReportConfig
from intellagent.llm import UsageReport
from intellagent.reports import build_report, load_artifacts, run_usage
from intellagent.run_folder import RunFolder
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


def test_the_profile_lists_each_step_costliest_first_with_the_share_its_prompt_cache_served():
    info = {"usage": {"steps": {
        "describe/policies": {"calls": 1, "input_tokens": 2000, "output_tokens": 900},
        "populate/outcome": {"calls": 3, "input_tokens": 30000, "cache_read_tokens": 21000, "output_tokens": 600},
        "simulate/user": {"calls": 9, "input_tokens": 9000, "cache_read_tokens": 0, "output_tokens": 300},
    }}}

    header, _rule, *rows = load_benchmark("end_to_end").step_table(info).splitlines()

    assert header.split() == ["step", "LLM", "calls", "prompt", "tok", "from", "cache", "output", "tok"]
    assert [row.split()[0] for row in rows] == ["populate/outcome", "simulate/user", "describe/policies"]
    assert rows[0].split()[1:] == ["3", "30,000", "70%", "600"] and rows[2].split()[3] == "0%"


def test_a_report_of_1200_dialogs_lists_them_in_number_order(tmp_path):
    folder = RunFolder(tmp_path)
    analyses = load_benchmark("report_scale").synthetic_run(folder, 1200)
    artifacts = load_artifacts(folder)
    usage = run_usage(UsageReport(), None, now=datetime.now(UTC))
    report = build_report(artifacts, analyses, name="scale", usage=usage, settings=ReportConfig())
    listed = [dialog.id for dialog in report.dialogs]
    assert len(listed) == 1200 and listed.index("S999") + 1 == listed.index("S1000")
    assert report.overall.by_status["fail"] == 400  # one dialog in three broke a rule


def test_the_scale_benchmark_bounds_simulate_by_its_longest_dialog(tmp_path):
    from intellagent.artifacts import Dialog
    from intellagent.llm.accounting import Tally

    dialogs = RunFolder(tmp_path).dialogs
    for dialog_id, usage in (("S001", {"user": Tally(calls=3), "chatbot": Tally(calls=4)}),
                             ("S002", {"user": Tally(calls=5), "critique": Tally(calls=1)})):
        dialogs.append(Dialog(id=dialog_id, event=dialog_id, status="pass", usage=usage))
    scale = load_benchmark("scale")
    assert scale.longest_dialog(tmp_path) == 7
    assert scale.efficiency(60.0, 20.0, 4) == 0.75


def given_ids(*transcript: Message) -> str:
    dialog = Dialog(id="S001", event="S001", status="pass", transcript=[Message(role="chatbot", content="Hi!"),
                                                                        *transcript])
    return load_benchmark("end_to_end").given_ids_figure([dialog])


def test_a_chatbot_counts_as_acting_on_a_given_id_only_with_an_id_the_user_said_before_the_call():
    look_up = ToolCall(id="c1", name="get_order", arguments={"order_id": "1000000042", "cabin": "economy"})
    example = ToolCall(id="c1", name="get_order", arguments={"order_id": "9999999999"})
    word = ToolCall(id="c1", name="get_order", arguments={"status": "economy"})

    acted = given_ids(Message(role="user", content="Order 1000000042 please, in economy."),
                      Message(role="chatbot", content="", tool_calls=[look_up]))

    assert acted == "chatbot used a given id 1 of 1 dialogs (S001)"
    assert given_ids(Message(role="user", content="Order 1000000042 please."),
                     Message(role="chatbot", content="", tool_calls=[example])).startswith("chatbot used a given id 0")
    assert given_ids(Message(role="user", content="In economy."),
                     Message(role="chatbot", content="", tool_calls=[word])).startswith("chatbot used a given id 0")
    assert given_ids(Message(role="chatbot", content="", tool_calls=[look_up]),
                     Message(role="user", content="It was 1000000042.")).startswith("chatbot used a given id 0")
