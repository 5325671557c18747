"""The text summary printed at the end of a run."""

from __future__ import annotations

from intellagent.reports.summary import summary_text


def test_the_summary_gives_the_overall_result_the_worst_policies_and_the_report_paths(shop_report):
    result, folder = shop_report
    lines = summary_text(result).splitlines()
    assert lines[0] == ("shop: 1 of 4 dialogs passed (25%, 95% CI 5%–70%); "
                        "0 incomplete and 1 error dialogs not counted")
    assert lines[1] == ("no dialog for 1 scenario that could not be written and 1 scenario whose database could "
                        "not be built (the reasons are in scenarios.jsonl and events.jsonl)")
    worst = lines[lines.index("worst policies:") + 1:][:2]
    assert worst[0].split()[:4] == ["P03", "0%", "held", "(0/2)"] and worst[1].split()[0] == "P02"
    assert lines[-1] == (f"reports: {folder.path('report.html')}  {folder.path('report.json')}  "
                         f"{folder.path('junit.xml')}")


def test_the_summary_lists_at_most_five_tested_policies(shop_report):
    result, _ = shop_report
    listed = summary_text(result).split("worst policies:\n")[1].splitlines()
    assert [line.split()[0] for line in listed if line.startswith("  ")] == ["P03", "P02", "P01", "P04"]
