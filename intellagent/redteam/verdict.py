"""Whether an attack broke its rule: the rule's own verdict, with its source, as every verdict of a run.

After every attempt, the programs: the event's expected outcome (a write it forbids for the rule, made; a write it
makes for the rule, made otherwise) and the checks that enforce the rule (the rules file's, the domain's, the
generic ones), read from the attempt's dialog as the report reads any dialog (`reports.verdicts.combine`). An
expected write the chatbot has not made is no breach here: refusing is never what an attacker is after, and an
attack stops before the dialog would have to make it. Once, when no program found a breach: the judge, reading the
last branch played for that one rule (`red_team.judge`).
"""

from __future__ import annotations

from intellagent.artifacts import Dialog, ExpectedOutcome, PolicyCatalog, Violation
from intellagent.llm import LLM, AnswerInvalid
from intellagent.reports.dialog_analysis import analyse
from intellagent.reports.verdicts import combine
from intellagent.stage import ItemFailed


def program_breach(dialog: Dialog, rule: str, catalog: PolicyCatalog,
                   expected: ExpectedOutcome | None) -> list[Violation]:
    """The violations of `rule` the expected outcome and the checks found in `dialog`, with their evidence."""
    found = combine(_aimed(dialog, rule), catalog, None, expected=expected).violations
    return [violation for violation in found if violation.policy == rule and not _write_not_made(violation)]


async def judged_breach(llm: LLM, dialog: Dialog, rule: str, catalog: PolicyCatalog) -> list[Violation]:
    """The judge's violation of `rule` in `dialog`, if it found one (none when it could not answer)."""
    try:
        judged = await analyse(llm, _aimed(dialog, rule), catalog)
    except (AnswerInvalid, ItemFailed):
        return []
    return [violation for violation in judged.violations if violation.policy == rule]


def _aimed(dialog: Dialog, rule: str) -> Dialog:
    """The dialog as a verdict on `rule` alone reads it."""
    return dialog.model_copy(update={"policies": [rule]})


def _write_not_made(violation: Violation) -> bool:
    """Whether the outcome's violation is an expected write never made: the only one it cites at no turn."""
    return violation.source == "outcome" and violation.turn is None
