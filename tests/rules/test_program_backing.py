"""A policy is backed by a program only where one ruled on it in a dialog with a verdict: a check, a rule or a
compiled assertion merely mapped to it backs nothing."""

from __future__ import annotations

from intellagent.artifacts import Analysis, Policy, PolicyCatalog
from intellagent.reports.policy_backing import backing

CATALOG = PolicyCatalog(
    task_description="A store.", flows=[],
    policies=[Policy(id=pid, text=f"Rule {pid}.", flows=[], category="company_policy", challenge=1)
              for pid in ("P01", "P02", "P03")],
    checks={"rule refund-to-original-method": ["P01"], "confirmed_before_write": ["P03"]},
)


def test_only_the_policies_a_program_or_an_outcome_ruled_on_are_backed() -> None:
    rated = [Analysis(id="S001", status="pass", checked=["P01"], decided=["P02"], source="x")]

    assert backing(CATALOG, rated) == {"P01": ["program"], "P02": ["outcome"], "P03": []}
