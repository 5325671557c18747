"""The passages of the policy document no policy came from are shown to the reader: in the summary, report.json
and report.html; a run whose every passage is some policy's source says so."""

from __future__ import annotations

import json

from shop_run import report_run

from intellagent.artifacts import Passage
from intellagent.reports.summary import summary_text

MISSED = [Passage(first_line=5, last_line=5, text="- Ask for the order number and the customer's name first."),
          Passage(first_line=12, last_line=13, text="- Hand the customer over to a person\n  when they <insist>.")]


def with_passages(run_folder, uncovered: list[Passage]) -> None:
    catalog = run_folder.policies.require()
    run_folder.policies.save(catalog.model_copy(update={"passages": 14, "uncovered": uncovered}))


def test_the_passages_no_policy_came_from_are_in_the_summary_the_report_and_the_page(
    config, run_folder, analysis_script
):
    with_passages(run_folder, MISSED)
    result = report_run(config, run_folder, analysis_script)

    assert ("policy document: 2 of 14 passages are the source of no policy, so nothing tests them (lines 5, 12-13; "
            "listed in policies.json)") in summary_text(result).splitlines()
    coverage = json.loads(run_folder.path("report.json").read_text())["coverage"]
    assert coverage["passages"] == 14 and [p["first_line"] for p in coverage["uncovered"]] == [5, 12]
    page = run_folder.path("report.html").read_text()
    assert "2 of the policy document's 14 passages are the source of no policy" in page
    assert "line 12–13</span> - Hand the customer over to a person when they &lt;insist&gt;." in page


def test_a_document_every_passage_of_which_is_some_policys_source_says_so(config, run_folder, analysis_script):
    with_passages(run_folder, [])
    result = report_run(config, run_folder, analysis_script)

    assert not any(line.startswith("policy document:") for line in summary_text(result).splitlines())
    assert "Each of its 14 passages is the source of some policy." in run_folder.path("report.html").read_text()
