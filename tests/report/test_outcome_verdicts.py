"""The expected outcome's verdicts on a dialog's policies: a forbidden write made, an expected write made otherwise
or never made (only where the chatbot had its chance), and the judge disagreeing with it."""

from __future__ import annotations

from intellagent.artifacts import (
    Analysis,
    Dialog,
    ExpectedCall,
    ExpectedOutcome,
    Finding,
    Flow,
    ForbiddenCall,
    Message,
    MutantRecord,
    OutcomeGrade,
    Policy,
    PolicyCatalog,
    ToolCall,
    Violation,
)
from intellagent.artifacts.outcomes import call_text
from intellagent.reports.outcome_verdicts import outcome_ruling, outcome_speaks
from intellagent.reports.sections.seeded_violations import calibration
from intellagent.reports.verdicts import combine, judge_agreement

CATALOG = PolicyCatalog(
    task_description="A shop.", flows=[Flow(id="F1", name="Orders")],
    policies=[Policy(id="P01", text="Change an order only as asked.", flows=["F1"], category="user_consent",
                     challenge=2),
              Policy(id="P02", text="Never cancel a shipped order.", flows=["F1"], category="enforcement",
                     challenge=3),
              Policy(id="P03", text="Verify the customer first.", flows=["F1"], category="authentication",
                     challenge=1)],
    checks={"confirmed_before_write": ["P01"]},
)
LOOKUP = ExpectedCall(tool="find_order", arguments={"order_id": "1024"}, writes=False, policies=["P03"])
CHANGE = ExpectedCall(tool="change_order", arguments={"order_id": "1024", "size": "M"}, writes=True,
                      policies=["P01"])
NO_CANCEL = ForbiddenCall(tool="cancel_order", arguments={"order_id": "1024"}, policies=["P02"],
                          reason="order 1024 has shipped")
EXPECTED = ExpectedOutcome(calls=[LOOKUP, CHANGE], forbidden=[NO_CANCEL])
CANCEL = call_text("cancel_order", {"order_id": "1024", "reason": "late"})
CHANGE_L = call_text("change_order", {"order_id": "1024", "size": "L"})
CUT_SHORT = "the simulated user could not go on: its message repeats the agent's words"


def dialog(*calls: ToolCall, status: str = "fail", reason: str = "the user judged", **grade: object) -> Dialog:
    """A dialog whose chatbot made `calls` at transcript index 2, graded as `grade` says (a missed change by
    default)."""
    fields: dict[str, object] = {"reward": 0.0, "state_match": False, "missed": [CHANGE.text()],
                                 "expected_calls": 2, "made_calls": len(calls), "matched_calls": 0, "progress": 0.0}
    return Dialog(
        id="S001", status=status, reason=reason, policies=["P01", "P02", "P03"], checks=["confirmed_before_write"],
        transcript=[Message(role="chatbot", content="Hello."), Message(role="user", content="Change my order."),
                    Message(role="chatbot", content="Done.", tool_calls=list(calls))],
        grade=OutcomeGrade.model_validate({**fields, **grade}),
    )


def ran(tool: str, result: str = "ok", **arguments: object) -> ToolCall:
    return ToolCall(id=f"c-{tool}", name=tool, arguments=arguments, result=result)


def judged(*, tested: list[str], violated: list[str]) -> Analysis:
    return Analysis(id="S001", status="fail" if violated else "pass", tested=tested, source="x",
                    violations=[Violation(policy=p, turn=2, reason="quoted") for p in violated])


def test_a_forbidden_write_made_breaks_the_policy_that_forbids_it_with_the_call_at_fault() -> None:
    made = dialog(ran("cancel_order", order_id="1024", reason="late"), forbidden_made=[CANCEL], breaking={0: [0]},
                  unexpected=[CANCEL])

    analysis = combine(made, CATALOG, judged(tested=["P02"], violated=["P02"]), expected=EXPECTED)

    outcome = [v for v in analysis.violations if v.source == "outcome"]
    assert [(v.policy, v.turn, v.call) for v in outcome] == [("P01", None, CHANGE.text()), ("P02", 2, CANCEL)]
    assert "order 1024 has shipped" in outcome[1].reason and analysis.status == "fail"


def test_a_forbidden_write_breaks_only_the_policies_of_the_forbidden_writes_its_grade_found_it_to_be() -> None:
    other_order = ForbiddenCall(tool="cancel_order", arguments={"order_id": "2048"}, policies=["P01"])
    expected = EXPECTED.model_copy(update={"calls": [], "forbidden": [other_order, NO_CANCEL]})
    made = dialog(ran("cancel_order", order_id="1024", reason="late"), forbidden_made=[CANCEL], breaking={0: [1]},
                  missed=[])

    decided, violations = outcome_ruling(made, expected)

    assert decided == ["P01", "P02"] and [(v.policy, v.call, v.turn) for v in violations] == [("P02", CANCEL, 2)]


def test_an_expected_write_made_with_other_arguments_breaks_its_policy_with_the_call_made_and_the_record() -> None:
    made = dialog(ran("change_order", order_id="1024", size="L"), unexpected=[CHANGE_L], diff=["orders 1024: size"])

    _, (violation,) = outcome_ruling(made, EXPECTED)

    assert (violation.policy, violation.source, violation.turn, violation.call) == ("P01", "outcome", 2, CHANGE_L)
    assert violation.row == "orders 1024: size" and CHANGE.text() in violation.reason


def test_an_expected_write_never_made_breaks_its_policy_where_the_user_gave_a_verdict() -> None:
    _, (violation,) = outcome_ruling(dialog(), EXPECTED)

    assert (violation.policy, violation.turn, violation.call) == ("P01", None, CHANGE.text())
    assert violation.reason.startswith("never made change_order(")


def test_an_expected_write_never_made_breaks_its_policy_when_the_dialog_ran_out_of_turns() -> None:
    out_of_turns = dialog(status="incomplete", reason="no verdict after 4 user turns (simulate.max_turns)")

    decided, violations = outcome_ruling(out_of_turns, EXPECTED)

    assert decided == ["P01", "P02"] and [v.policy for v in violations] == ["P01"]


def test_a_dialog_the_simulated_user_cut_short_is_not_charged_with_a_write_never_made() -> None:
    cut_short = dialog(status="incomplete", reason=CUT_SHORT)

    assert not outcome_speaks(cut_short)
    assert outcome_ruling(cut_short, EXPECTED) == ([], [])


def test_what_the_chatbot_did_before_the_user_cut_the_dialog_short_still_counts() -> None:
    cut_short = dialog(ran("cancel_order", order_id="1024", reason="late"), status="incomplete", reason=CUT_SHORT,
                       forbidden_made=[CANCEL], breaking={0: [0]}, unexpected=[CANCEL])

    decided, violations = outcome_ruling(cut_short, EXPECTED)

    assert decided == ["P02"] and [(v.policy, v.call) for v in violations] == [("P02", CANCEL)]


def test_a_dialog_whose_user_never_spoke_or_that_failed_to_run_is_never_decided_by_what_was_not_done() -> None:
    silent = dialog().model_copy(update={"transcript": [Message(role="chatbot", content="Hello.")]})
    broken = dialog(status="error", reason="chatbot: timeout")

    assert outcome_ruling(silent, EXPECTED) == ([], []) and outcome_ruling(broken, EXPECTED) == ([], [])


def test_a_write_missed_while_the_world_ended_as_expected_breaks_nothing() -> None:
    same_world = dialog(state_match=True, reward=1.0)

    decided, violations = outcome_ruling(same_world, EXPECTED)

    assert decided == ["P01", "P02"] and violations == []


def test_the_policies_of_writes_made_right_and_forbidden_writes_not_made_held_and_count_as_tested() -> None:
    right = dialog(ran("change_order", order_id="1024", size="M"), missed=[], state_match=True, reward=1.0,
                   matched_calls=1)

    analysis = combine(right, CATALOG, judged(tested=[], violated=[]), expected=EXPECTED)

    assert analysis.decided == ["P01", "P02"] and analysis.violations == []
    assert analysis.tested == ["P01", "P02"] and analysis.status == "pass"


def test_a_read_is_never_decided_by_the_outcome() -> None:
    assert "P03" not in outcome_ruling(dialog(missed_reads=[LOOKUP.text()]), EXPECTED).decided


def test_a_policy_the_scenario_did_not_sample_is_not_decided() -> None:
    unsampled = dialog(ran("cancel_order", order_id="1024", reason="late"), forbidden_made=[CANCEL], breaking={0: [0]})
    unsampled = unsampled.model_copy(update={"policies": ["P01"]})

    decided, violations = outcome_ruling(unsampled, EXPECTED)

    assert decided == ["P01"] and [v.policy for v in violations] == ["P01"]


def test_a_dialog_without_an_expected_outcome_or_a_grade_is_left_to_the_checks_and_the_judge() -> None:
    assert outcome_ruling(dialog(), None) == ([], [])
    assert outcome_ruling(dialog().model_copy(update={"grade": None}), EXPECTED) == ([], [])


def test_a_judge_that_calls_held_what_the_outcome_found_broken_marks_the_policy_disputed() -> None:
    analysis = combine(dialog(), CATALOG, judged(tested=["P01", "P02"], violated=[]), expected=EXPECTED)

    assert analysis.disputed == ["P01"] and analysis.agreed == ["P02"]
    assert [(v.policy, v.source) for v in analysis.violations] == [("P01", "outcome")]


def test_a_judge_that_finds_a_breach_the_outcome_saw_held_marks_the_policy_disputed() -> None:
    analysis = combine(dialog(), CATALOG, judged(tested=["P02"], violated=["P02"]), expected=EXPECTED)

    assert analysis.disputed == ["P02"] and [(v.policy, v.source) for v in analysis.violations] == [
        ("P01", "outcome"), ("P02", "judge")]


def test_an_outcome_and_a_check_that_disagree_are_both_kept_without_a_dispute() -> None:
    unconfirmed = Finding(check="confirmed_before_write", message="change_order without an explicit yes", turn=2)
    right = dialog(ran("change_order", order_id="1024", size="M"), missed=[], state_match=True, reward=1.0)

    analysis = combine(right.model_copy(update={"findings": [unconfirmed]}), CATALOG, None, judge_error="no answer",
                       expected=EXPECTED)

    assert [(v.policy, v.source) for v in analysis.violations] == [("P01", "check")]
    assert analysis.disputed == [] and analysis.status == "fail"


def test_a_policys_violations_are_listed_strongest_source_first() -> None:
    unconfirmed = Finding(check="confirmed_before_write", message="change_order without an explicit yes", turn=2)
    made = dialog(ran("change_order", order_id="1024", size="L"), unexpected=[CHANGE_L])

    analysis = combine(made.model_copy(update={"findings": [unconfirmed]}), CATALOG,
                       judged(tested=["P01"], violated=["P01"]), expected=EXPECTED)

    assert [v.source for v in analysis.violations] == ["outcome", "check", "judge"]


def test_when_the_judge_gave_no_verdict_the_outcomes_breach_fails_the_dialog() -> None:
    analysis = combine(dialog(status="pass"), CATALOG, None, judge_error="the answer did not match", expected=EXPECTED)

    assert analysis.status == "fail" and [v.source for v in analysis.violations] == ["outcome"]
    assert analysis.judge_error == "the answer did not match"


def test_a_mutant_whose_breach_only_its_outcome_found_counts_as_caught_by_the_outcome() -> None:
    mutant = dialog().model_copy(update={"id": "S001~skips-change", "mutant": "skips-change"})
    analysis = combine(mutant, CATALOG, judged(tested=["P01"], violated=[]), expected=EXPECTED)
    record = MutantRecord(name="skips-change", kind="supplied", breaks="P01", policies=["P01"])

    figures = calibration([record], [mutant], [], {mutant.id: analysis})

    assert figures is not None and [(m.outcome, m.caught_by) for m in figures.mutants] == [("caught", ["outcome"])]
    assert (figures.detection.passed, figures.detection.total) == (1, 1)


def test_agreement_is_counted_apart_for_the_checks_and_for_the_outcome() -> None:
    unconfirmed = Finding(check="confirmed_before_write", message="change_order without an explicit yes", turn=2)
    made = dialog(ran("change_order", order_id="1024", size="L"), unexpected=[CHANGE_L])
    # P01: the outcome and the check found a breach, the judge none; P02: the outcome and the judge saw it held.
    analysis = combine(made.model_copy(update={"findings": [unconfirmed]}), CATALOG,
                       judged(tested=["P01", "P02"], violated=[]), expected=EXPECTED)
    kept = dialog(ran("change_order", order_id="1024", size="M"), missed=[], state_match=True)
    # The confirmation check had a write to rule on, and found it confirmed.
    held = combine(kept.model_copy(update={"ruled": ["confirmed_before_write"]}), CATALOG,
                   judged(tested=["P01"], violated=[]), expected=EXPECTED)

    with_checks, with_outcome = judge_agreement([analysis, held]), judge_agreement([analysis, held], "outcome")

    assert with_checks is not None and (with_checks.count, with_checks.total) == (1, 2)
    assert with_outcome is not None and (with_outcome.count, with_outcome.total) == (2, 3)
