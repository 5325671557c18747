"""Which paths of a search are positives: those every verdict source passes.

A path is a positive when it ended and:

1. **outcome**: its grade against the event's expected outcome passed;
2. **programs**: no check, rule or compiled assertion found anything on it;
3. **user**: its simulated user made no fault a program can read (a path that worked because the user misplayed
   teaches the chatbot nothing);
4. **floor**: it scored better than doing nothing. Where the empty trace (no call, no word) reaches the outcome
   too (`ExpectedOutcome.floor.nothing`, a refusal a chatbot that does nothing also "keeps"), the outcome's pass
   says nothing of the path: it must also have made a call the outcome expects, which the empty trace never does;
5. **judge**: the LLM judge, asked of the paths the four above passed (only those, so that it costs a call per
   candidate positive, within the rollouts' budget), found no violation of the event's sampled rules.

Each source's reason for turning a path away is a line of the data card (`SHORTFALLS`).
"""

from __future__ import annotations

from dataclasses import dataclass

from intellagent.artifacts import Analysis, Dialog, OutcomeGrade, PolicyCatalog, RolloutTree, RolloutTurn
from intellagent.llm import LLM, AnswerInvalid, Usage
from intellagent.llm.dialog_models import counted
from intellagent.reports.dialog_analysis import analyse, failed
from intellagent.stage import ItemFailed

FAILED = "its outcome failed"
FOUND = "a program found a breach on it"
USER_FAULT = "its simulated user was at fault"
FLOOR = "it scored no better than doing nothing (the outcome's floor)"
UNJUDGED = "the judge was not asked (the budget ran out first)"
JUDGE_ERROR = "the judge gave no usable verdict"
VIOLATED = "the judge found a sampled rule broken"
SHORTFALLS = (FAILED, FOUND, USER_FAULT, FLOOR, UNJUDGED, JUDGE_ERROR, VIOLATED)
"""Why an ended path is no positive, in the order the sources are asked."""


def positives(tree: RolloutTree) -> list[RolloutTurn]:
    """The last turn of every positive path of `tree`."""
    return [turn for turn in tree.ended() if shortfall(tree, turn) is None]


def shortfall(tree: RolloutTree, leaf: RolloutTurn) -> str | None:
    """Why the path that ended with `leaf` is no positive (one of `SHORTFALLS`), or None when it is one."""
    unjudged = candidate_shortfall(tree, leaf)
    if unjudged is not None:
        return unjudged
    judged = leaf.judged
    if judged is None:
        return UNJUDGED
    if judged.status == "error":
        return JUDGE_ERROR
    return VIOLATED if judged.violations else None


def candidate_shortfall(tree: RolloutTree, leaf: RolloutTurn) -> str | None:
    """Why the path that ended with `leaf` fails a source other than the judge, or None (a candidate positive, which
    the judge is asked about)."""
    grade = leaf.grade
    if grade is None or not grade.passed:
        return FAILED
    if leaf.findings:
        return FOUND
    if leaf.user_faults:
        return USER_FAULT
    return None if above_floor(tree, grade) else FLOOR


def above_floor(tree: RolloutTree, grade: OutcomeGrade) -> bool:
    """Whether a passed grade is better than the empty trace's: the empty trace fails the outcome, or the path made
    a call the outcome expects, which the empty trace never does."""
    return tree.floor is None or not tree.floor.nothing or grade.matched_calls > 0


@dataclass(frozen=True)
class PathJudge:
    """The run's judge (the `analysis` role), asked about candidate positives.

    Attributes:
        llm: the judge's model.
        catalog: the run's policies (None: describe wrote none, and no path can be judged).
    """

    llm: LLM
    catalog: PolicyCatalog | None

    async def judged(self, dialog: Dialog, usage: Usage) -> Analysis:
        """The judge's analysis of a path played as `dialog`, its calls counted in `usage` (which the rollouts'
        budget bounds); a judge that gave no usable answer is an `error`, never a pass.

        Raises:
            BudgetExhausted: the budget ran out before the judge was asked.
        """
        if self.catalog is None:
            return failed(dialog, "the run has no policies.json to judge by")
        try:
            return await analyse(counted(self.llm, usage), dialog, self.catalog)
        except (AnswerInvalid, ItemFailed) as error:
            return failed(dialog, str(error))
