"""A policy is backed by a program only where one ruled on it in a dialog with a verdict: a check, a rule or a
compiled assertion merely mapped to it backs nothing."""

from __future__ import annotations

from intellagent.artifacts import Analysis, Dialog, Finding, Policy, PolicyCatalog
from intellagent.artifacts.rules import ConfirmationRule, RuleInForce
from intellagent.reports.policy_backing import backing
from intellagent.reports.sections.program_figures import program_figures

CATALOG = PolicyCatalog(
    task_description="A store.", flows=[],
    policies=[Policy(id=pid, text=f"Rule {pid}.", flows=[], category="company_policy", challenge=1)
              for pid in ("P01", "P02", "P03")],
    checks={"rule refund-to-original-method": ["P01"], "confirmed_before_write": ["P03"]},
)


def test_only_the_policies_a_program_or_an_outcome_ruled_on_are_backed() -> None:
    rated = [Analysis(id="S001", status="pass", checked=["P01"], decided=["P02"], source="x")]

    assert backing(CATALOG, rated) == {"P01": ["program"], "P02": ["outcome"], "P03": []}


def test_a_reviewed_rule_counts_the_dialogs_it_ruled_in_and_broke_whatever_their_scenario_sampled() -> None:
    rule = ConfirmationRule.model_validate({
        "id": "refund-to-original-method", "kind": "confirmation", "tool": "return_item",
        "cite": {"passage": "L19", "words": "The refund must go to the original payment method"},
        "examples": {"keeps": [{"dialog": [{"call": "return_item", "args": {}}]}],
                     "breaks": [{"dialog": [{"call": "return_item", "args": {}}]}]}})
    catalog = CATALOG.model_copy(update={"rules": [RuleInForce(rule=rule, policies=["P01"])]})
    check = "rule refund-to-original-method"
    played = [Dialog(id="S001", status="fail", policies=["P02"], checks=[check], ruled=[check],
                     findings=[Finding(check=check, message="returned without a yes")]),
              Dialog(id="S002", status="pass", policies=["P03"], checks=[check])]

    (result,) = program_figures(catalog, {}, played, [Analysis(id=d.id, status=d.status, source="x") for d in played]
                                ).assertions

    assert (result.dialogs, result.breached) == (1, 1)
