"""The report's dual-control figures: each way a run played its dialogs, side by side, with the gap."""

from __future__ import annotations

from intellagent.artifacts import Analysis, Dialog, Message, OutcomeGrade, TauGrade, ToolCall
from intellagent.artifacts.run_report import DialogOutcome
from intellagent.reports.dialog_analysis import conversation_text
from intellagent.reports.sections.dual_control import dual_control, dual_control_line, dual_control_panel


def graded(passed: bool, sides: dict[str, list[int]]) -> OutcomeGrade:
    return OutcomeGrade(reward=float(passed), state_match=passed, expected_calls=2, made_calls=2,
                        matched_calls=2 if passed else 1, progress=1.0, sides=sides)


def played(dialog_id: str, control: str | None, passed: bool, sides: dict[str, list[int]], *,
           event: str | None = None) -> tuple[Dialog, Analysis, DialogOutcome]:
    """A graded dialog of the run's own way, or (`event` given) a solo one played beside the event's dual one."""
    grade = graded(passed, sides)
    dialog = Dialog(id=dialog_id, event=event or dialog_id, role="solo" if event else "chatbot",
                    status="pass" if passed else "fail", control=control, grade=grade)
    analysis = Analysis(id=dialog_id, status="pass" if passed else "fail", source="x")
    return dialog, analysis, DialogOutcome(counted=True, grade=grade)


def figures(*runs: tuple[Dialog, Analysis, DialogOutcome]):
    dialogs = [d for d, _, _ in runs if d.role == "chatbot"]
    solo = [d for d, _, _ in runs if d.role == "solo"]
    return dual_control(dialogs, solo, {a.id: a for _, a, _ in runs}, {d.id: o for d, _, o in runs})


GUIDED = {"company": [1, 1, 1], "user": [1, 1, 1]}
UNGUIDED = {"company": [1, 1, 1], "user": [1, 1, 0]}


def test_dual_and_solo_are_set_side_by_side_with_the_solo_minus_dual_gap() -> None:
    result = figures(played("S1", "dual", False, UNGUIDED), played("S2", "dual", True, GUIDED),
                     played("S1-solo", "solo", True, GUIDED, event="S1"),
                     played("S2-solo", "solo", True, GUIDED, event="S2"))
    dual, solo = result.results
    assert (dual.control, dual.dialogs) == ("dual", 2)
    assert (dual.outcome_pass_rate.passed, dual.outcome_pass_rate.total) == (1, 2)
    assert (solo.control, solo.outcome_pass_rate.passed, solo.outcome_pass_rate.total) == ("solo", 2, 2)
    assert result.gap == 0.5 and result.gap_of == "outcome"
    # Newcombe's interval of 2/2 minus 1/2, worked by hand from the Wilson intervals (0.3424, 1) and (0.0945, 0.9055).
    assert (result.gap_low, result.gap_high) == (-0.2726, 0.9055)


def test_where_both_ways_played_published_tasks_the_gap_is_of_their_reward() -> None:
    dialogs = [played("T1", "dual", True, GUIDED), played("T1-solo", "solo", True, GUIDED)]
    for dialog, _, _ in dialogs:
        dialog.tau = TauGrade(task=1, reward=0.0 if dialog.id == "T1-solo" else 1.0, basis=["ENV_ASSERTION"])
    result = figures(*dialogs)
    assert result.gap_of == "tau" and result.gap == -1.0
    assert [r.tau_pass_rate.passed for r in result.results] == [1, 0]


def test_calls_are_summed_per_side_of_the_world() -> None:
    (dual,) = figures(played("S1", "dual", False, UNGUIDED), played("S2", "dual", True, GUIDED)).results
    assert (dual.user_calls.precision.count, dual.user_calls.precision.total) == (1, 2)
    assert (dual.company_calls.recall.count, dual.company_calls.recall.total) == (2, 2)


def test_one_way_played_has_no_gap() -> None:
    result = figures(played("S1", "solo", True, GUIDED))
    assert [r.control for r in result.results] == ["solo"] and result.gap is None


def test_a_run_whose_user_has_no_tools_has_no_dual_control_figures() -> None:
    assert figures(played("S1", None, True, {})) is None


def test_the_summary_and_the_page_name_each_way_and_the_gap() -> None:
    result = figures(played("S1", "dual", False, UNGUIDED), played("S1-solo", "solo", True, GUIDED, event="S1"))
    assert dual_control_line(result) == ("dual control: dual 0 of 1 (0%) passed, outcome 0 of 1 (0%); solo 1 of 1 "
                                         "(100%) passed, outcome 1 of 1 (100%); solo minus dual outcome: +100 pts "
                                         "(95% CI -12 to +100 pts)")
    panel = dual_control_panel(result)
    assert "<h2>Dual control</h2>" in panel and panel.count("<tr><td>") == 2 and "+100 pts" in panel


def test_the_judge_reads_the_users_own_calls_as_the_users() -> None:
    dialog = Dialog(id="S1", status="pass", transcript=[
        Message(role="chatbot", content="Please switch online payments on."),
        Message(role="user", content="", tool_calls=[ToolCall(id="call_1", name="switch_online_payments",
                                                              arguments={"on": True}, result="online payments: on")])])
    assert conversation_text(dialog) == ("[0] chatbot: Please switch online payments on.\n"
                                         '[1] user uses switch_online_payments({"on": true}) on their side -> '
                                         "online payments: on")
