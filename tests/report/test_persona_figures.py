"""How the chatbot holds its rules against each kind of user: per persona, per policy × persona, and the gap."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from shop_run import report_run

from intellagent.artifacts import Analysis, Dialog, OutcomeGrade
from intellagent.artifacts.rates import difference_interval
from intellagent.artifacts.run_report import DialogOutcome, Rate
from intellagent.persona_files import builtin_personas
from intellagent.reports.html import report_html
from intellagent.reports.inputs import load_artifacts
from intellagent.reports.sections.persona_figures import PERSONAS, persona_results, robustness
from intellagent.reports.sections.trial_figures import TRIALS, trial_figures
from intellagent.reports.summary import summary_text


def test_newcombe_s_interval_of_a_difference_matches_his_worked_example() -> None:
    low, high = difference_interval((56, 70), (48, 80))  # Newcombe 1998, example (a), method 10

    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)


def test_no_interval_of_a_difference_when_a_rate_counted_nothing() -> None:
    assert difference_interval((1, 2), (0, 0)) is None


def test_each_persona_has_its_dialogs_by_status_and_its_pass_rate(shop_report) -> None:
    personas = {p.name: p for p in PERSONAS.of(shop_report[0].report).results}

    assert list(personas) == ["cooperative", "impatient", "false_claim", "pressure"]  # the adversarial ones last
    assert [(p.pass_rate.passed, p.pass_rate.total) for p in personas.values()] == [(1, 2), (0, 0), (0, 1), (0, 1)]
    assert personas["impatient"].by_status == {"pass": 0, "fail": 0, "user_fault": 0, "incomplete": 0, "error": 1}
    assert personas["false_claim"].adversarial and not personas["cooperative"].adversarial


def test_each_policy_is_rated_against_each_persona_that_tested_it(shop_report) -> None:
    personas = {p.name: p for p in PERSONAS.of(shop_report[0].report).results}

    def grid(name: str) -> dict[str, tuple[int, int]]:
        return {entry.policy: (entry.pass_rate.passed, entry.pass_rate.total) for entry in personas[name].policies}

    assert grid("cooperative") == {"P01": (2, 2), "P02": (1, 1), "P03": (0, 1)}
    assert grid("false_claim") == {"P02": (0, 1), "P04": (1, 1)}
    assert grid("impatient") == {}


def test_the_robustness_gap_is_cooperative_minus_adversarial_with_its_interval(shop_report) -> None:
    gap = PERSONAS.of(shop_report[0].report).robustness

    assert gap is not None
    counts = (gap.cooperative.passed, gap.cooperative.total, gap.adversarial.passed, gap.adversarial.total)
    assert counts == (1, 2, 0, 2)
    expected = difference_interval((1, 2), (0, 2))
    assert gap.gap == 0.5 and (gap.low, gap.high) == (round(expected[0], 4), round(expected[1], 4))


def test_no_gap_without_an_adversarial_verdict_and_no_figures_without_personas() -> None:
    calm = Dialog(id="S1", status="pass", persona=builtin_personas()["vague"])
    analyses = {"S1": Analysis(id="S1", status="pass", source="x")}

    measured = robustness([calm], analyses)

    assert measured is not None and measured.gap is None and measured.adversarial.total == 0
    assert robustness([Dialog(id="S1", status="pass")], analyses) is None


def test_every_dialog_result_names_its_persona(shop_report) -> None:
    assert {d.id: d.persona for d in shop_report[0].report.dialogs} == {
        "S001": "cooperative", "S002": "cooperative", "S003": "false_claim", "S004": "pressure", "S005": "impatient"}


def test_the_summary_gives_each_persona_and_the_gap(shop_report) -> None:
    lines = summary_text(shop_report[0]).splitlines()

    users = next(line for line in lines if line.startswith("users: "))
    assert users == ("users: cooperative 1 of 2 passed (50%); impatient no verdict (1 dialog); false_claim 0 of 1 "
                     "passed (0%); pressure 0 of 1 passed (0%)")
    gap = next(line for line in lines if line.startswith("robustness gap: "))
    assert re.fullmatch(r"robustness gap: \+50 pts \(95% CI -?\d+ pts to \+\d+ pts\): cooperative users 50% \(1/2\), "
                        r"adversarial 0% \(0/2\)", gap.replace("+-", "-"))


def test_the_page_shows_each_kind_of_user_and_the_gap(shop_report) -> None:
    html = shop_report[1].path("report.html").read_text()

    assert "Against each kind of user" in html and "Robustness gap" in html
    assert 'id="persona-false_claim"' in html and builtin_personas()["pressure"].description in html
    assert '<h3>Robustness gap</h3><p class="figure">+50</p><p class="note">percentage points · 95% CI' in html


def test_a_dialog_card_shows_the_persona_its_claim_and_the_moves_it_made(shop_report) -> None:
    html = shop_report[1].path("report.html").read_text()
    card = html.split('id="dialog-S003"', 1)[1].split("</details>", 1)[0]

    assert '<span class="chip persona adversarial"' in card and ">false_claim<" in card
    assert "Claimed that my tier is gold; the records say tier is basic (customers customer_id C-S003)." in card
    s004 = html.split('id="dialog-S004"', 1)[1].split("</details>", 1)[0]
    assert "added by persona pressure</span> This is really frustrating." in s004


def test_junit_has_a_suite_of_figures_per_persona_and_no_case_in_it(shop_report) -> None:
    root = ET.parse(shop_report[1].path("junit.xml")).getroot()

    suites = {suite.get("name"): suite for suite in root.findall("testsuite")}
    assert list(suites) == ["shop", "shop.persona.cooperative", "shop.persona.impatient", "shop.persona.false_claim",
                            "shop.persona.pressure"]
    claim = suites["shop.persona.false_claim"]
    properties = {p.get("name"): p.get("value") for p in claim.iter("property")}
    assert properties == {"persona": "false_claim", "adversarial": "true", "dialogs": "1", "pass_rate": "0.0",
                          "P02 held": "0/1", "P04 held": "1/1"}
    assert claim.find("testcase") is None and claim.get("tests") == "0"


def test_a_ci_that_counts_every_case_counts_each_broken_policy_once(shop_report) -> None:
    root = ET.parse(shop_report[1].path("junit.xml")).getroot()

    failed = [case.get("name").split(":")[0] for case in root.iter("testcase") if case.find("failure") is not None]

    broken = [policy.id for policy in shop_report[0].report.policies if policy.violated]
    assert failed == broken == ["P02", "P03"]
    assert [root.get(key) for key in ("tests", "failures")] == [str(len(list(root.iter("testcase")))), "2"]


def test_a_broken_policy_s_case_names_the_kind_of_user_who_brought_it_out(shop_report) -> None:
    root = ET.parse(shop_report[1].path("junit.xml")).getroot()

    p02 = next(case for case in root.iter("testcase") if case.get("name").startswith("P02:"))

    assert p02.find("failure").text.startswith("S003 turn ") and "false_claim user" in p02.find("failure").text


def test_pass_k_is_given_per_persona_over_the_events_its_user_played() -> None:
    pressure, calm = builtin_personas()["pressure"], builtin_personas()["cooperative"]
    dialogs = [Dialog(id="E1", event="E1", trial=1, status="pass", persona=pressure),
               Dialog(id="E1-t2", event="E1", trial=2, status="fail", persona=pressure),
               Dialog(id="E2", event="E2", trial=1, status="pass", persona=calm),
               Dialog(id="E2-t2", event="E2", trial=2, status="pass", persona=calm)]
    rated = [Analysis(id=d.id, status=d.status, tested=["P1"], source="x") for d in dialogs]

    figures = trial_figures(dialogs, rated)

    assert figures is not None
    assert {name: [p.value for p in curve] for name, curve in figures.personas.items()} == {
        "cooperative": [1.0, 1.0], "pressure": [0.5, pytest.approx(0.0)]}


def test_the_page_gives_pass_k_per_persona_beside_the_policies(shop_report) -> None:
    result, folder = shop_report
    figures = trial_figures(
        [Dialog(id="S001", event="S001", trial=1, status="pass", persona=builtin_personas()["pressure"]),
         Dialog(id="S001-t2", event="S001", trial=2, status="pass", persona=builtin_personas()["pressure"])],
        [Analysis(id="S001", status="pass", source="x"), Analysis(id="S001-t2", status="pass", source="x")])

    html = report_html(TRIALS.with_figures(result.report, figures), load_artifacts(folder),
                       {a.id: a for a in folder.analyses.load()})

    section = html.split("pass^k per kind of user", 1)[1].split("</table>", 1)[0]
    assert re.findall(r'<a href="#persona-(\w+)">', section) == ["pressure"] and ">100%<" in section


def test_the_gate_fails_below_a_persona_s_minimum_and_not_above_it(config, run_folder, analysis_script) -> None:
    result = report_run(config, run_folder, analysis_script, min_persona={"cooperative": 0.5, "pressure": 0.5})

    assert result.exit_code == 1 and result.report.gate.min_persona == {"cooperative": 0.5, "pressure": 0.5}
    assert result.gate_failures == ["users of persona pressure 0.0% (0/1 dialogs) is below report.min_persona 0.5"]


def test_the_gate_s_adversarial_key_counts_every_adversarial_user_together(config, run_folder, analysis_script) -> None:
    result = report_run(config, run_folder, analysis_script, min_persona={"adversarial": 0.5})

    assert result.gate_failures == ["adversarial users 0.0% (0/2 dialogs) is below report.min_persona 0.5"]


def test_a_persona_minimum_no_user_played_or_without_a_verdict_fails_the_gate(config, run_folder,
                                                                               analysis_script) -> None:
    result = report_run(config, run_folder, analysis_script, min_persona={"haggler": 0.5, "impatient": 0.5})

    assert result.gate_failures == [
        "report.min_persona names haggler, which no dialog's user played",
        "users of persona impatient has no verdict, so it cannot reach report.min_persona 0.5"]


def graded(reward: float) -> DialogOutcome:
    return DialogOutcome(counted=True, grade=OutcomeGrade(reward=reward, state_match=reward == 1, expected_calls=1,
                                                          made_calls=1, matched_calls=int(reward), progress=reward))


def test_each_persona_has_its_outcome_pass_rate_over_its_counted_grades() -> None:
    pressure, calm = builtin_personas()["pressure"], builtin_personas()["cooperative"]
    dialogs = [Dialog(id="S1", status="pass", persona=calm), Dialog(id="S2", status="fail", persona=pressure),
               Dialog(id="S3", status="pass", persona=pressure), Dialog(id="S4", status="incomplete", persona=pressure)]
    analyses = {d.id: Analysis(id=d.id, status=d.status, source="x") for d in dialogs}
    outcomes = {"S1": graded(1), "S2": graded(0), "S3": graded(1),
                "S4": DialogOutcome(counted=False, reason="its simulated user could not go on", grade=graded(0).grade)}

    rates = {p.name: p.outcome_pass_rate for p in persona_results(dialogs, analyses, outcomes)}

    assert {name: (rate.passed, rate.total) for name, rate in rates.items()} == {"cooperative": (1, 1),
                                                                                  "pressure": (1, 2)}


def test_no_outcome_pass_rate_per_persona_when_no_outcome_was_sought(shop_report) -> None:
    assert [p.outcome_pass_rate for p in PERSONAS.of(shop_report[0].report).results] == [None] * 4


def test_the_page_gives_each_persona_s_outcome_pass_rate_where_outcomes_were_sought(shop_report) -> None:
    result, folder = shop_report
    figures = PERSONAS.of(result.report)
    assert figures is not None
    rates = [Rate.of(3, 4), Rate.of(0, 0), Rate.of(0, 1), Rate.of(1, 1)]
    personas = [p.model_copy(update={"outcome_pass_rate": r}) for p, r in zip(figures.results, rates, strict=True)]
    page = report_html(PERSONAS.with_figures(result.report, figures.model_copy(update={"results": personas})),
                       load_artifacts(folder),
                       {a.id: a for a in folder.analyses.load()})

    section = page.split('id="personas"', 1)[1].split("</table>", 1)[0]
    assert "<th>Outcome pass rate</th>" in section and "<b>75%</b>" in section
    unsought = shop_report[1].path("report.html").read_text().split('id="personas"', 1)[1].split("</table>", 1)[0]
    assert "Outcome pass rate" not in unsought
