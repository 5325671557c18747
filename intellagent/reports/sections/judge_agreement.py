"""The judge's agreement with the checks (`agreement`): of the policies a deterministic check enforced and the judge
tested in one dialog, how often the two gave the same verdict.

It counts over every dialog with a verdict, the mutants' too, since it measures the instrument and not the
chatbot. The reliability line states it beside the judge's agreement with the expected outcome, which the
outcome grade counts (`outcomes.judge_agreement`), so that the two agreements read together.
"""

from __future__ import annotations

from intellagent.artifacts.rates import Share
from intellagent.artifacts.run_report import Report
from intellagent.reports.section import Section
from intellagent.reports.sections.outcome_grade import OUTCOMES
from intellagent.reports.text import agreement_text
from intellagent.reports.verdicts import judge_agreement


def agreements(checks: Share | None, report: Report) -> list[str]:
    """The reliability line's part: the judge against the checks, then against the expected outcome, where each
    both ruled."""
    outcomes = OUTCOMES.of(report)
    measured = [("checks", checks), ("outcome", outcomes.judge_agreement if outcomes else None)]
    return [agreement_text(source, agreement) for source, agreement in measured if agreement is not None]


AGREEMENT = Section(
    key="agreement",
    figures=Share,
    measure=lambda run: judge_agreement(list(run.analyses.values())),
    reliability=agreements,
)
"""How often the judge agreed with the checks where both ruled."""
