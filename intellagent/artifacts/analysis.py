"""analysis.jsonl: for every dialog, which of its policies were put to the test and which were broken."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

AnalysisStatus = Literal["pass", "fail", "incomplete", "error"]


class Violation(BaseModel):
    """A policy the chatbot broke, where, and why in one line."""

    policy: str
    turn: int = Field(description="Index of the chatbot message in the transcript.")
    reason: str = Field(description="One line, quoting the chatbot's words or call.")


class Analysis(BaseModel):
    """The verdict on one dialog, per policy.

    `pass`/`fail` dialogs were analysed and count towards adherence; `incomplete` and `error`
    ones (the dialog ended without a verdict, or it or its analysis failed) are reported but never
    counted as a pass or a failure of the chatbot.
    """

    id: str = Field(description="The dialog's id.")
    status: AnalysisStatus
    error: str | None = Field(default=None, description="incomplete/error: what happened.")
    tested: list[str] = Field(default_factory=list, description="Ids of the policies the conversation tested.")
    violations: list[Violation] = Field(default_factory=list)
    source: str = Field(description="Digest of the dialog analysed; a changed dialog is analysed again.")
