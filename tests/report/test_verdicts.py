"""One verdict per policy per dialog: a check's finding and the judge's ruling are both kept, never overruled."""

from __future__ import annotations

from intellagent.artifacts import Analysis, Dialog, Finding, Flow, Policy, PolicyCatalog, Violation
from intellagent.artifacts.rules import ConfirmationRule, RuleInForce
from intellagent.reports.verdicts import combine

CATALOG = PolicyCatalog(
    task_description="A shop.", flows=[Flow(id="F1", name="Orders")],
    policies=[Policy(id="P01", text="Ask before changing an order.", flows=["F1"], category="user_consent",
                     challenge=2),
              Policy(id="P02", text="Be polite.", flows=["F1"], category="company_policy", challenge=1)],
    checks={"confirmed_before_write": ["P01"]},
)
FINDING = Finding(check="confirmed_before_write", message="change_order was called without an explicit yes",
                  turn=2, call='change_order({"size": "M"})')


def dialog(status: str = "pass", findings: tuple[Finding, ...] = (), *, ruled: bool = True) -> Dialog:
    """A dialog the confirmation check ran on; `ruled`: a write came, so it had something to rule on."""
    return Dialog(id="S001", status=status, policies=["P01", "P02"], checks=["confirmed_before_write"],
                  ruled=["confirmed_before_write"] if ruled else [], findings=list(findings))


def judged(*, tested: list[str], violated: list[str]) -> Analysis:
    return Analysis(id="S001", status="fail" if violated else "pass", tested=tested, source="x",
                    violations=[Violation(policy=p, turn=2, reason="quoted") for p in violated])


def test_a_checks_finding_is_a_violation_of_the_policy_it_enforces_with_its_evidence() -> None:
    analysis = combine(dialog(findings=(FINDING,)), CATALOG, judged(tested=["P02"], violated=[]))

    (violation,) = analysis.violations
    assert (violation.policy, violation.source, violation.check, violation.turn) == ("P01", "check",
                                                                                    "confirmed_before_write", 2)
    assert violation.call == 'change_order({"size": "M"})' and analysis.status == "fail"
    assert analysis.tested == ["P01", "P02"] and analysis.checked == ["P01"] and analysis.disputed == []


def test_a_check_and_a_judge_that_disagree_are_both_kept_and_the_policy_is_disputed() -> None:
    analysis = combine(dialog(findings=(FINDING,)), CATALOG, judged(tested=["P01"], violated=[]))

    assert analysis.disputed == ["P01"] and [v.source for v in analysis.violations] == ["check"]
    reverse = combine(dialog(), CATALOG, judged(tested=["P01"], violated=["P01"]))
    assert reverse.disputed == ["P01"] and [v.source for v in reverse.violations] == ["judge"]


def test_a_check_that_had_nothing_to_rule_on_tests_no_policy_and_disputes_no_judge() -> None:
    analysis = combine(dialog(ruled=False), CATALOG, judged(tested=["P01"], violated=["P01"]))

    assert analysis.checked == [] and analysis.disputed == []


def test_a_judge_that_gave_no_verdict_leaves_the_simulations_verdict_and_the_findings() -> None:
    failed = combine(dialog("fail"), CATALOG, None, judge_error="the answer did not match")
    found = combine(dialog("pass", (FINDING,)), CATALOG, None, judge_error="the answer did not match")
    out_of_turns = combine(dialog("incomplete"), CATALOG, None, judge_error="the answer did not match")

    assert (failed.status, failed.judge_error) == ("fail", "the answer did not match")
    assert found.status == "fail" and [v.policy for v in found.violations] == ["P01"]
    assert (out_of_turns.status, out_of_turns.error) == ("incomplete", "the answer did not match")


def test_a_finding_of_a_check_mapped_to_no_policy_of_the_dialog_changes_no_verdict() -> None:
    unmapped = FINDING.model_copy(update={"check": "grounded_facts"})

    analysis = combine(dialog(findings=(unmapped,)), CATALOG, judged(tested=["P02"], violated=[]))

    assert analysis.status == "pass" and analysis.violations == []


GROUNDED = CATALOG.model_copy(update={
    "policies": [*CATALOG.policies, Policy(id="P03", text="Say only what the tools return.", flows=["F1"],
                                          category="knowledge_extraction", challenge=2)],
    "checks": {**CATALOG.checks, "grounded_facts": ["P03"]},
    "every_dialog": ["grounded_facts"],
})


def test_an_every_dialog_check_rules_on_its_policy_where_the_scenario_did_not_sample_it() -> None:
    made_up = Finding(check="grounded_facts", message="stated ORD123, found in no tool result", turn=2)
    ran = dialog().model_copy(update={"checks": ["confirmed_before_write", "grounded_facts"]})

    broken = combine(ran.model_copy(update={"findings": [made_up]}), GROUNDED, judged(tested=["P02"], violated=[]))
    held = combine(ran, GROUNDED, judged(tested=["P02"], violated=[]))

    assert broken.status == "fail" and [(v.policy, v.source) for v in broken.violations] == [("P03", "check")]
    assert broken.tested == ["P02", "P03"] and broken.checked == ["P01", "P03"]
    assert held.status == "pass" and held.tested == ["P02", "P03"]  # its silence is a pass: it read every message


def test_a_check_that_needs_an_action_rules_only_where_the_scenario_sampled_its_policy() -> None:
    narrow = CATALOG.model_copy(update={"checks": {"confirmed_before_write": ["P03"]}})
    elsewhere = dialog(findings=(FINDING,))

    analysis = combine(elsewhere, narrow, judged(tested=["P02"], violated=[]))

    assert analysis.status == "pass" and analysis.violations == [] and analysis.tested == ["P02"]


CANCEL_RULE = ConfirmationRule.model_validate({
    "id": "yes-before-cancelling", "kind": "confirmation", "tool": "cancel_order", "arguments": ["order_id"],
    "cite": {"passage": "L3", "words": "Ask before changing an order"},
    "examples": {"keeps": [{"dialog": [{"call": "cancel_order", "args": {"order_id": "1"}}]}],
                 "breaks": [{"dialog": [{"call": "cancel_order", "args": {"order_id": "1"}}]}]}})
REVIEWED = CATALOG.model_copy(update={"checks": {"rule yes-before-cancelling": ["P01"]},
                                      "rules": [RuleInForce(rule=CANCEL_RULE, policies=["P01"])]})
ELSEWHERE = Dialog(id="S001", status="pass", policies=["P02"], checks=["rule yes-before-cancelling"])


def test_a_reviewed_rule_rules_on_its_policy_wherever_it_ruled_sampled_or_not() -> None:
    breach = Finding(check="rule yes-before-cancelling", message="cancel_order was called without an explicit yes",
                     turn=2, call='cancel_order(order_id="1")')

    broken = combine(ELSEWHERE.model_copy(update={"findings": [breach]}), REVIEWED, judged(tested=["P02"], violated=[]))
    held = combine(ELSEWHERE.model_copy(update={"ruled": ["rule yes-before-cancelling"]}), REVIEWED,
                   judged(tested=["P02"], violated=[]))
    idle = combine(ELSEWHERE, REVIEWED, judged(tested=["P02"], violated=[]))

    assert broken.status == "fail" and [(v.policy, v.check) for v in broken.violations] == [
        ("P01", "rule yes-before-cancelling")]
    assert held.status == "pass" and held.tested == ["P02", "P01"] and held.checked == ["P01"]
    assert idle.tested == ["P02"] and idle.checked == []  # no cancellation: the rule had nothing to rule on
