"""A dialog whose simulated user was at fault before the chatbot broke a rule (`user_fault`) is in no figure of the
chatbot and never fails the gate, yet every report lists it with its fault and counts it in the reliability line."""

from __future__ import annotations

import pytest
from shop_run import make_run, report_run

from intellagent.artifacts import Dialog, UserAudit, UserFault
from intellagent.reports.dialog_outcomes import KEPT_OUT
from intellagent.reports.sections.outcome_grade import OUTCOMES
from intellagent.reports.sections.simulator_faults import SIMULATOR, simulator_faults
from intellagent.reports.sections.trial_figures import TRIALS
from intellagent.reports.summary import reliability_line

# S002 broke P03 at turn 4; its user spoke as the agent at turn 1, before it.
FAULT = UserFault(kind="spoke_as_agent", turn=1, evidence="what's the order ID you want to update?")
FIGURES = ("policies", "categories", "flows", "challenge_levels", "coverage")


def rewrite_dialogs(folder, change) -> None:
    dialogs = folder.dialogs.load()
    folder.dialogs.path.write_text("".join(d.model_dump_json() + "\n" for d in change(dialogs)))


def audit_s002(dialogs, fault=FAULT):
    """Every dialog that ran audited; S002's user at `fault`."""
    for dialog in dialogs:
        if dialog.status == "error":  # a dialog that failed to run is never audited
            continue
        dialog.audit = UserAudit(faults=[fault] if dialog.id == "S002" else [], judged=True)
    return dialogs


def audit_s001(dialogs):
    """Every dialog that ran audited; S001, which earned the outcome's reward, with a user that narrated at turn 1."""
    for dialog in dialogs:
        faults = [FAULT.model_copy(update={"kind": "narrated"})] if dialog.id == "S001" else []
        dialog.audit = UserAudit(faults=faults, judged=True) if dialog.status != "error" else None
    return dialogs


@pytest.fixture
def faulted(config, run_folder, analysis_script):
    """The shop run reported with S002's user at fault first."""
    rewrite_dialogs(run_folder, audit_s002)
    return report_run(config, run_folder, analysis_script, fail_under=0.3), run_folder


def test_a_dialog_whose_user_faulted_first_is_user_fault(faulted):
    report = faulted[0].report
    (s002,) = [d for d in report.dialogs if d.id == "S002"]
    assert s002.status == "user_fault" and s002.user_faults == [FAULT]
    assert "spoke as the agent at turn 1" in s002.error
    assert report.overall.by_status["user_fault"] == 1 and SIMULATOR.of(report).kept_out == ["S002"]


def test_every_figure_is_that_of_the_run_without_the_user_fault_dialog(faulted, config, tmp_path, analysis_script):
    without = make_run(config, tmp_path / "without")
    rewrite_dialogs(without, lambda dialogs: [d for d in audit_s002(dialogs) if d.id != "S002"])
    clean = report_run(config, without, analysis_script, fail_under=0.3).report
    report = faulted[0].report
    assert report.overall.pass_rate == clean.overall.pass_rate
    for figure in FIGURES:
        assert getattr(report, figure) == getattr(clean, figure), figure
    assert TRIALS.of(report) == TRIALS.of(clean)


def test_the_gate_does_not_fail_on_a_user_fault_dialog(faulted):
    result = faulted[0]
    # With S002 counted as a failure the pass rate would be 1 of 4, under fail_under 0.3; without it, 1 of 3.
    assert result.exit_code == 0 and result.report.gate.passed


def test_the_reliability_line_counts_the_dialogs_whose_user_faulted(faulted):
    line = reliability_line(faulted[0].report)
    assert "simulator faults in 1 of 4 dialogs (25%): spoke as the agent 1; 1 kept out of the figures" in line


def test_junit_skips_a_user_fault_dialog_with_its_fault(faulted):
    xml = faulted[1].path("junit.xml").read_text()
    case = xml.split('name="S002"')[1].split("</testcase>")[0]
    assert "<skipped" in case and "spoke as the agent at turn 1" in case and "<failure" not in case


def test_the_html_shows_a_badge_on_the_card_and_a_section_of_faults(faulted):
    html = faulted[1].path("report.html").read_text()
    card = html.split('id="dialog-S002"')[1].split("</details>")[0]
    assert '<span class="badge user_fault">user fault</span>' in card and "Simulated user's faults" in card
    section = html.split('id="simulated-user"')[1].split("</section>")[0]
    assert "1 of 4 dialogs" in section and "S002" in section and "what&#x27;s the order ID" in section


def test_a_run_of_unaudited_dialogs_has_no_simulator_figures(config, run_folder, analysis_script):
    report = report_run(config, run_folder, analysis_script).report
    assert SIMULATOR.of(report) is None and "simulator faults" not in reliability_line(report)


def test_a_user_fault_card_is_headed_by_the_fault_and_marks_its_breaches_uncounted(faulted):
    html = faulted[1].path("report.html").read_text()
    card = html.split('id="dialog-S002"')[1].split("</details>")[0]
    gist = card.split('<span class="gist">')[1].split("</span>")[0]
    assert gist.startswith("the simulated user spoke as the agent at turn 1")
    assert "listed and counted in no figure: the fault came before the chatbot's work" in card
    assert 'class="msg user faulted" id="turn-S002-1"' in card


def late_faults(dialogs):
    """S001 (a pass) and S002 (a fail) with the same fault after the chatbot's last message, which never answered."""
    late = FAULT.model_copy(update={"turn": 5})
    for dialog in dialogs:
        if dialog.status != "error":
            dialog.audit = UserAudit(faults=[late] if dialog.id in ("S001", "S002") else [], judged=True)
    return dialogs


def test_a_pass_and_a_fail_with_the_same_late_fault_both_keep_their_verdicts(config, run_folder, analysis_script):
    rewrite_dialogs(run_folder, late_faults)
    report = report_run(config, run_folder, analysis_script).report
    statuses = {d.id: d.status for d in report.dialogs}
    assert (statuses["S001"], statuses["S002"]) == ("pass", "fail")
    assert (report.overall.pass_rate.passed, report.overall.pass_rate.total) == (1, 4)
    simulator = SIMULATOR.of(report)
    assert simulator.kept_out == [] and simulator.faulted.count == 2


def early_faults(dialogs):
    """S001 (a pass) and S002 (a fail) with the same fault in the first message, which the chatbot answered."""
    for dialog in dialogs:
        if dialog.status != "error":
            dialog.audit = UserAudit(faults=[FAULT] if dialog.id in ("S001", "S002") else [], judged=True)
    return dialogs


def test_a_pass_and_a_fail_with_the_same_answered_fault_are_both_kept_out_and_counted(config, run_folder,
                                                                                      analysis_script):
    rewrite_dialogs(run_folder, early_faults)
    report = report_run(config, run_folder, analysis_script).report
    simulator = SIMULATOR.of(report)
    assert simulator.kept_out == ["S001", "S002"] and simulator.kept_out_verdicts == {"pass": 1, "fail": 1}
    assert "2 kept out of the figures (1 pass, 1 fail)" in reliability_line(report)


def test_a_user_fault_dialog_is_out_of_the_outcome_figures_too(config, outcome_folder, outcome_script):
    rewrite_dialogs(outcome_folder, audit_s001)
    report = report_run(config, outcome_folder, outcome_script).report
    (s001,) = [d for d in report.dialogs if d.id == "S001"]
    assert s001.status == "user_fault" and not s001.outcome.counted and s001.outcome.reason == KEPT_OUT
    outcomes = OUTCOMES.of(report)
    assert (outcomes.pass_rate.passed, outcomes.pass_rate.total) == (1, 4)  # (2, 5) with S001


def test_a_user_fault_dialogs_card_marks_its_outcome_grade_as_not_counted(config, outcome_folder, outcome_script):
    rewrite_dialogs(outcome_folder, audit_s001)
    report_run(config, outcome_folder, outcome_script)
    card = outcome_folder.path("report.html").read_text().split('id="dialog-S001"')[1].split("</details>")[0]
    heading = card.split('<section class="outcome-check')[1].split("</h4>")[0]
    assert "Expected outcome: reached" in heading
    assert "(not counted: its simulated user&#x27;s fault could have decided" in heading


def test_each_kind_counts_the_dialogs_with_that_fault_not_the_faults():
    twice = [FAULT, FAULT.model_copy(update={"turn": 3}), FAULT.model_copy(update={"kind": "narrated"})]
    audited = [Dialog(id="S001", status="pass", audit=UserAudit(faults=twice, judged=True)),
               Dialog(id="S002", status="pass", audit=UserAudit(faults=[FAULT], judge_error="no answer")),
               Dialog(id="S003", status="pass", audit=UserAudit()), Dialog(id="S004", status="error")]
    figures = simulator_faults(audited, {})
    assert figures.kinds == {"narrated": 1, "spoke_as_agent": 2}
    assert list(figures.kinds) == ["narrated", "spoke_as_agent"]  # in the labels' order
    assert (figures.audited, figures.faulted.count, figures.judge_errors) == (3, 2, 1)
