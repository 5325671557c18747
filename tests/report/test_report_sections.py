"""A report section is a value: one object, listed once, and it shows in report.json, the summary, the page, the
gate and junit.xml, with no other code touched.

The section here counts the calls a chatbot said it made and no tool ran (the shop run's S002 says it emailed
the customer); its gate fails on any such dialog.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html import escape

import pytest
from pydantic import BaseModel
from shop_run import report_run

from intellagent.artifacts.run_report import PolicyResult, Report
from intellagent.config import ReportConfig
from intellagent.reports import sections
from intellagent.reports.junit_cases import junit_case
from intellagent.reports.panels import card
from intellagent.reports.section import Durations, JudgedRun, PolicyColumn, Section
from intellagent.reports.summary import summary_text


class Claims(BaseModel):
    """The calls each dialog's chatbot claimed and no tool ran, by dialog id (the dialogs with none left out)."""

    dialogs: int
    claimed: dict[str, list[str]]


def measure(run: JudgedRun) -> Claims:
    ran = [dialog for dialog in run.artifacts.dialogs if dialog.transcript]
    claimed = {dialog.id: [call.name for message in dialog.transcript for call in message.tool_calls if call.reported]
               for dialog in ran}
    return Claims(dialogs=len(ran), claimed={dialog: calls for dialog, calls in claimed.items() if calls})


def summary(claims: Claims, report: Report) -> list[str]:
    return [f"claimed calls: {len(claims.claimed)} of {claims.dialogs} dialogs ({', '.join(claims.claimed)})"]


def panel(claims: Claims, page: object) -> str:
    items = "".join(f"<li>{escape(dialog)}: {escape(', '.join(calls))}</li>"
                    for dialog, calls in claims.claimed.items())
    return f'<section class="panel" id="claims"><h2>Claimed calls</h2><ul>{items}</ul></section>'


def column(claims: Claims) -> list[PolicyColumn]:
    def cell(policy: PolicyResult) -> tuple[object, str]:
        count = sum(note.dialog in claims.claimed for note in policy.violations)
        return count, str(count)

    return [PolicyColumn(key="claimed", label="Broken with a claimed call", cell=cell)]


def gate(claims: Claims | None, settings: ReportConfig, report: Report) -> list[str]:
    return [f"{dialog}'s chatbot claimed {', '.join(calls)}, which no tool ran"
            for dialog, calls in (claims.claimed.items() if claims else [])]


def cases(claims: Claims, report: Report, took: Durations) -> list[ET.Element]:
    made = []
    for dialog, calls in claims.claimed.items():
        case = junit_case(f"{report.name}.claims", dialog, took.get(dialog, 0.0))
        ET.SubElement(case, "failure", {"type": "ClaimedCall", "message": ", ".join(calls)})
        made.append(case)
    return made


CLAIMS = Section(
    key="claims",
    figures=Claims,
    measure=measure,
    summary=summary,
    cards=lambda claims, report: [card("Claimed calls", str(len(claims.claimed)), "calls no tool ran")],
    panel=panel,
    policy_columns=column,
    gate=gate,
    junit_properties=lambda claims: {"claimed_calls": len(claims.claimed)},
    junit_cases=cases,
)


@pytest.fixture
def claims_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The section listed after the others."""
    monkeypatch.setattr(sections, "SECTIONS", (*sections.SECTIONS, CLAIMS))


@pytest.fixture
def claimed(claims_listed, config, run_folder, analysis_script):
    """The shop run reported with the section listed: (result, folder)."""
    return report_run(config, run_folder, analysis_script), run_folder


def test_a_listed_section_writes_its_figures_under_its_key(claimed):
    result, folder = claimed

    data = json.loads(folder.path("report.json").read_text())

    assert data["claims"] == {"dialogs": 4, "claimed": {"S002": ["send_email"]}}
    assert list(data)[-2:] == ["claims", "dialogs"]
    assert CLAIMS.of(Report.model_validate(data)) == CLAIMS.of(result.report) == Claims(**data["claims"])


def test_a_listed_section_has_its_line_in_the_summary_after_the_others(claimed):
    lines = summary_text(claimed[0]).splitlines()

    reliability = next(i for i, line in enumerate(lines) if line.startswith("reliability: "))
    assert lines[reliability - 1] == "claimed calls: 1 of 4 dialogs (S002)"


def test_a_listed_section_has_its_card_panel_and_column_on_the_page(claimed):
    page = claimed[1].path("report.html").read_text()

    assert '<h3>Claimed calls</h3><p class="figure">1</p>' in page
    assert page.index('id="claims"') < page.index('id="policies"')
    assert '<th data-key="claimed" data-type="num" tabindex="0">Broken with a claimed call</th>' in page
    p03 = page.split('id="policy-P03"', 1)[1].split("</tr>", 1)[0]
    assert p03.endswith('<td data-v="1">1</td>')


def test_a_listed_section_s_gate_rule_fails_the_run(claimed):
    result, _ = claimed

    assert result.exit_code == 1
    assert result.gate_failures == ["S002's chatbot claimed send_email, which no tool ran"]


def test_a_listed_section_adds_its_property_and_cases_to_the_run_s_suite(claimed):
    run = ET.parse(claimed[1].path("junit.xml")).getroot().find("testsuite")

    assert {p.get("name"): p.get("value") for p in run.iter("property")}["claimed_calls"] == "1"
    (case,) = [case for case in run.iter("testcase") if case.get("classname") == "shop.claims"]
    assert case.get("name") == "S002" and case.find("failure").get("message") == "send_email"
    assert [case.get("name") for case in run.iter("testcase")][-1] == "quality gate"


def test_a_section_with_nothing_to_measure_is_null_in_report_json_and_nowhere_else(
        monkeypatch, config, run_folder, analysis_script):
    silent = Section(key="claims", figures=Claims, measure=lambda run: None, summary=summary, panel=panel, gate=gate)
    monkeypatch.setattr(sections, "SECTIONS", (*sections.SECTIONS, silent))

    result = report_run(config, run_folder, analysis_script)

    assert json.loads(run_folder.path("report.json").read_text())["claims"] is None
    assert not any(line.startswith("claimed calls") for line in summary_text(result).splitlines())
    assert 'id="claims"' not in run_folder.path("report.html").read_text() and result.exit_code == 0


def test_a_section_may_not_take_a_key_of_the_core_or_of_another_section():
    clash = Section(key="policies", figures=Claims, measure=measure)

    with pytest.raises(ValueError, match="policies"):
        sections.check_keys((*sections.SECTIONS, clash))
    with pytest.raises(ValueError, match="outcomes"):
        sections.check_keys((*sections.SECTIONS, Section(key="outcomes", figures=Claims, measure=measure)))
