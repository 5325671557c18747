"""The text summary printed at the end of a run."""

from __future__ import annotations

from intellagent.reports.summary import dialogs_apart, summary_text


def test_the_summary_gives_the_overall_result_the_worst_policies_and_the_report_paths(shop_report):
    result, folder = shop_report
    lines = summary_text(result).splitlines()
    assert lines[0] == ("shop: 1 of 4 dialogs passed (25%, 95% CI 5%–70%); "
                        "1 ended early (incomplete), judged all the same; 1 failed to run (error), not counted")
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


def with_counts(report, *, unjudged: int, errors: int, ended_early: bool):
    """The report with these dialogs left out of the rate, and its judged dialogs ended early or not."""
    status = {**report.overall.by_status, "incomplete": unjudged, "error": errors}
    dialogs = [d.model_copy(update={"simulated": "incomplete" if ended_early else d.status})
               if d.status in ("pass", "fail") else d for d in report.dialogs]
    return report.model_copy(update={"overall": report.overall.model_copy(update={"by_status": status}),
                                     "dialogs": dialogs})


def test_a_run_whose_every_dialog_got_its_verdict_says_nothing_more(shop_report):
    result, _ = shop_report
    report = with_counts(result.report, unjudged=0, errors=0, ended_early=False)
    assert dialogs_apart(report) == []


def test_dialogs_not_judged_are_told_apart_from_those_that_failed_to_run(shop_report):
    result, _ = shop_report
    report = with_counts(result.report, unjudged=2, errors=1, ended_early=True)
    assert dialogs_apart(report) == ["4 ended early (incomplete), judged all the same",
                                     "2 not judged and 1 failed to run (error), not counted"]
