"""analysis.jsonl: for every dialog, which of its policies were put to the test and which were broken."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

AnalysisStatus = Literal["pass", "fail", "user_fault", "incomplete", "error"]

VerdictSource = Literal["outcome", "check", "judge"]
"""Who found a violation, strongest first: the event's verified expected outcome, a deterministic check, the
LLM judge."""


class Violation(BaseModel):
    """A policy the chatbot broke, where, why in one line, and who found it."""

    policy: str
    turn: int | None = Field(default=None, description="Index of the message in the transcript, if one is at fault.")
    reason: str = Field(description="One line, quoting the chatbot's words or call.")
    source: VerdictSource = Field(
        default="judge", description="The event's expected outcome, a deterministic check, or the LLM judge."
    )
    check: str | None = Field(default=None, description="check: the check that found it.")
    call: str | None = Field(
        default=None, description="check, outcome: the tool call at fault, as name(arguments) (outcome: the call "
        "made, or the expected call never made)."
    )
    row: str | None = Field(
        default=None, description="check: the database row at fault; outcome: the records that differ from the "
        "expected end state."
    )


class Analysis(BaseModel):
    """The verdict on one dialog, per policy.

    `pass`/`fail` dialogs were judged and count towards adherence, whether the user reached their
    goal or the dialog ran out of turns; `user_fault` ones were judged, but their simulated user's fault
    could have decided the verdict (see `UserAudit.deciding`), so it says nothing of the chatbot;
    `incomplete` ones could not be judged (the judge's answer failed and no check found a breach, or the
    simulated user never spoke), `error` ones could not go on. None of these three is ever counted as a
    pass or a failure of the chatbot.

    A verdict per policy comes from the event's expected outcome where it requires or forbids a write
    for the policy, from the deterministic checks where one enforces the policy, and from the LLM judge;
    all are kept, and where the judge disagrees with the outcome or a check the policy is `disputed`.
    """

    id: str = Field(description="The dialog's id.")
    status: AnalysisStatus
    error: str | None = Field(default=None, description="user_fault/incomplete/error: what happened.")
    tested: list[str] = Field(default_factory=list, description="Ids of the policies the conversation tested.")
    violations: list[Violation] = Field(default_factory=list, description="Per source, at most one per policy.")
    checked: list[str] = Field(default_factory=list, description="Policies a deterministic check enforced here.")
    decided: list[str] = Field(
        default_factory=list, description="Policies the event's expected outcome ruled on here (see "
        "`intellagent.reports.outcome_verdicts`)."
    )
    disputed: list[str] = Field(
        default_factory=list, description="Policies on which the judge disagrees with a check or the outcome."
    )
    agreed: list[str] = Field(
        default_factory=list, description="Policies on which the judge agrees with every check and outcome that ruled."
    )
    judge_error: str | None = Field(default=None, description="Why the judge gave no verdict (the others stand).")
    source: str = Field(description="Digest of the dialog analysed; a changed dialog is analysed again.")
