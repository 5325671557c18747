"""Graphviz DOT flowcharts are read into steps, questions and labelled branches with no model, as Mermaid ones are:
τ²-bench's three troubleshooting flowcharts (no service, mobile data, MMS) are the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.describe.workflows import chart_steps, flowcharts, parse_dot, parse_flowchart, reading

REPO = Path(__file__).resolve().parents[2]
CHARTS = REPO.parent / "shared/data/tau2_telecom/workflows"
NO_SERVICE = CHARTS / "tech_support_path1_no_service.dot"
MOBILE_DATA = CHARTS / "tech_support_path2_mobile_data.dot"
MMS = CHARTS / "tech_support_path3_mms.dot"


@pytest.mark.parametrize(("chart", "steps", "questions", "branches"), [
    (NO_SERVICE, 33, 11, 42), (MOBILE_DATA, 60, 21, 84), (MMS, 32, 9, 39)],
    ids=["no-service", "mobile-data", "mms"])
def test_each_flowchart_gives_every_step_question_and_branch(chart: Path, steps: int, questions: int,
                                                             branches: int) -> None:
    (read,) = flowcharts(chart.read_text())
    assert (len(read.nodes), len(read.questions), len(read.links)) == (steps, questions, branches)
    assert "node" not in read.nodes and "edge" not in read.nodes  # default attributes are layout, not steps
    assert {"Start", "End_Resolve", "End_Escalate_Tech"} <= read.nodes.keys()


def test_the_no_service_chart_branches_on_the_sim_card() -> None:
    (read,) = flowcharts(NO_SERVICE.read_text())
    assert read.nodes["P1_S2_Decision_SIMLocked"] == "SIM Locked (PIN/PUK)?"
    assert "P1_S2_Decision_SIMLocked" in read.questions and "P1_S2_Action_ReseatSIM" not in read.questions
    assert ("P1_S2_Decision_SIMLocked", "End_Escalate_Tech", "Yes") in read.links
    assert ("P1_S2_Decision_SIMLocked", "P1_S3_ResetAPN", "No (SIM Active)") in read.links
    assert ("P1_S4_Decision_SuspensionType", "End_Escalate_Tech", "Due to Contract End") in read.links


def test_the_mobile_data_chart_leads_from_roaming_to_refuelling() -> None:
    (read,) = flowcharts(MOBILE_DATA.read_text())
    assert read.nodes["P2_1_S2_Action_EnableRoaming"] == "Enable roaming for user (no cost)"
    assert read.nodes["P2_S0_Decision_NoConnection"] == "Speed Test shows 'no connection'?"  # a line break is a space
    labelled = {(start, to) for start, to, label in read.links if label}
    assert ("P2_1_S2_Decision_LineRoamingNotEnabled", "P2_1_S2_Action_EnableRoaming") in labelled


def test_the_mms_chart_asks_about_wifi_calling_then_the_app_permissions() -> None:
    shown = chart_steps(flowcharts(MMS.read_text())[0])
    assert "- P3_S0_Decision_MMSWorks (a question): Can send MMS? → if 'Yes (Not an MMS issue)': End_Resolve; " \
           "if 'No': P3_S1_VerifyNetworkService" in shown
    assert "- End_Resolve: Issue Resolved (the end)" in shown


def test_a_dot_chart_fenced_in_markdown_is_read_like_the_file() -> None:
    fenced = f"# MMS\n\nFollow this chart.\n\n```dot\n{MMS.read_text()}\n```\n"
    (read,) = flowcharts(fenced)
    assert chart_steps(read) == chart_steps(parse_dot(MMS.read_text()))
    assert reading(fenced).startswith(fenced.rstrip()) and "read step by step" in reading(fenced)


def test_a_mermaid_graph_header_is_not_taken_for_dot() -> None:
    (read,) = flowcharts("graph TD\n  A[Ask] --> B{Done?}\n")
    assert read.nodes == {"A": "Ask", "B": "Done?"} and read.links == [("A", "B", "")]


def test_an_unreadable_dot_chart_is_empty_and_the_document_shown_as_given() -> None:
    broken = "digraph G {\n  A -> \n"
    assert parse_dot(broken).nodes == {} and reading(broken) == broken


def test_the_same_chart_in_dot_and_mermaid_reads_step_by_step_alike() -> None:
    dot = parse_dot((REPO / "policies/airline_change_flight.dot").read_text())
    mermaid = parse_flowchart((REPO / "policies/airline_change_flight.mmd").read_text())
    assert dot.nodes == mermaid.nodes and dot.questions == mermaid.questions
    assert sorted(dot.links) == sorted(mermaid.links)
