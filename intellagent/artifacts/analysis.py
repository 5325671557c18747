"""analysis.jsonl: for every dialog, which of its policies were put to the test and which were broken."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

AnalysisStatus = Literal["pass", "fail", "user_fault", "incomplete", "error"]


class Violation(BaseModel):
    """A policy the chatbot broke, where, why in one line, and who found it."""

    policy: str
    turn: int | None = Field(default=None, description="Index of the message in the transcript, if one is at fault.")
    reason: str = Field(description="One line, quoting the chatbot's words or call.")
    source: Literal["judge", "check"] = Field(default="judge", description="The LLM judge, or a deterministic check.")
    check: str | None = Field(default=None, description="check: the check that found it.")
    call: str | None = Field(default=None, description="check: the tool call at fault, as name(arguments).")
    row: str | None = Field(default=None, description="check: the database row at fault.")


class Analysis(BaseModel):
    """The verdict on one dialog, per policy.

    `pass`/`fail` dialogs were judged and count towards adherence, whether the user reached their
    goal or the dialog ran out of turns; `user_fault` ones were judged, but their simulated user was at
    fault before the chatbot broke any rule (see `UserAudit`), so the verdict says nothing of the chatbot;
    `incomplete` ones could not be judged (the judge's answer failed and no check found a breach, or the
    simulated user never spoke), `error` ones could not go on. None of these three is ever counted as a
    pass or a failure of the chatbot.

    A verdict per policy comes from the deterministic checks where one enforces the policy, and from
    the LLM judge; both are kept, and where they disagree the policy is `disputed`.
    """

    id: str = Field(description="The dialog's id.")
    status: AnalysisStatus
    error: str | None = Field(default=None, description="user_fault/incomplete/error: what happened.")
    tested: list[str] = Field(default_factory=list, description="Ids of the policies the conversation tested.")
    violations: list[Violation] = Field(default_factory=list, description="Per source, at most one per policy.")
    checked: list[str] = Field(default_factory=list, description="Policies a deterministic check enforced here.")
    disputed: list[str] = Field(default_factory=list, description="Policies on which the judge and a check disagree.")
    agreed: list[str] = Field(default_factory=list, description="Policies on which the judge and a check agree.")
    judge_error: str | None = Field(default=None, description="Why the judge gave no verdict (the others stand).")
    source: str = Field(description="Digest of the dialog analysed; a changed dialog is analysed again.")
