"""mutants.json: the chatbot's mutants a calibrated run played, each breaking one rule on purpose."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

MutantKind = Literal["omit", "opposite", "supplied"]


class MutantRecord(BaseModel):
    """One mutant: which rule it breaks, how it was made, and whether it could be played."""

    name: str = Field(description="omit-P03, opposite-P03, or the name the user gave it.")
    kind: MutantKind = Field(
        description="omit: the rule's passage removed from the llm_agent's prompt; opposite: replaced by the rule "
        "reversed; supplied: a chatbot the user gave."
    )
    breaks: str = Field(description="What it was declared to break: a policy id, a check's name or a rule's words.")
    policies: list[str] = Field(default_factory=list, description="Ids of the policies it breaks.")
    status: Literal["ok", "error"] = "ok"
    reason: str = Field(default="", description="error: why it was not played.")
    removed: str | None = Field(default=None, description="omit/opposite: the policy document's passage taken out.")
    inserted: str | None = Field(default=None, description="opposite: the reversed rule put in its place.")


class MutantList(BaseModel):
    """The file's content."""

    mutants: list[MutantRecord]
