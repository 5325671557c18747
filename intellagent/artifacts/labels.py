"""labels.jsonl: a person's reading of dialogs, which the report holds its judge and its audit to; and the figures
of that agreement (`report.json`'s `labels`).

A label is one line: a dialog, one of its policies and whether the chatbot held or broke it there, whether the
simulated user was at fault (and in what ways), and a note. A person writes them from the report page (each dialog
card has a form that copies its lines) or by hand; a line may give a policy's verdict, the user's fault, or both.
A label names the dialog it was read on by its digest when it can (the card's form writes it): a dialog played
anew under the same id is another conversation, and its old labels no longer apply.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from intellagent.artifacts.audit import UserFaultKind
from intellagent.artifacts.rates import Kappa, Share

LabelVerdict = Literal["held", "broken"]


class Label(BaseModel):
    """One line of labels.jsonl: a person's reading of one dialog, for one of its policies or for its user."""

    model_config = ConfigDict(extra="forbid")
    dialog: str = Field(min_length=1, description="The dialog's id, as dialogs.jsonl has it.")
    policy: str | None = Field(default=None, description="The policy read (with `verdict`), or none for a line "
                               "that labels the user only.")
    verdict: LabelVerdict | None = Field(default=None, description="Whether the chatbot held or broke the policy "
                                         "in this dialog.")
    user_at_fault: bool | None = Field(default=None, description="Whether the simulated user did something a "
                                       "customer of its scenario would not have (None: not read).")
    faults: list[UserFaultKind] = Field(default_factory=list, description="The kinds of fault the person saw, when "
                                        "the user was at fault (empty: not said).")
    note: str = Field(default="", description="Why, in the person's words.")
    digest: str | None = Field(default=None, description="The digest of the dialog read (analysis.jsonl's `source`): "
                               "a dialog since played anew is another conversation (None: whatever dialog has the id).")

    @model_validator(mode="after")
    def _says_something(self) -> Label:
        if (self.policy is None) != (self.verdict is None):
            raise ValueError("a policy's label needs both `policy` and `verdict` (held or broken)")
        if self.verdict is None and self.user_at_fault is None:
            raise ValueError("a label says a policy's `verdict`, whether the `user_at_fault`, or both")
        if self.faults and self.user_at_fault is not True:
            raise ValueError("`faults` are the kinds of a user at fault: set `user_at_fault: true`")
        return self


class Agreement(BaseModel):
    """How far an instrument (the judge, the report's verdict, the audit) agreed with the labels on the items both
    read: the share agreed, Cohen's kappa, and the table of the two readings."""

    agreed: Share
    kappa: Kappa
    table: dict[str, dict[str, int]] = Field(description="The person's answer → the instrument's answer → items, "
                                             "every answer a key (held/broken, or yes/no).")
    unread: int = Field(default=0, description="Labelled items the instrument gave no answer on (a policy the judge "
                        "did not rule on, a dialog not audited).")


class Disagreement(BaseModel):
    """One item on which an instrument and the person disagreed."""

    dialog: str
    policy: str | None = None
    fault: UserFaultKind | None = None
    instrument: Literal["judge", "verdict", "audit"]
    label: str = Field(description="What the person said: held/broken, or at fault / not at fault.")
    said: str = Field(description="What the instrument said.")
    note: str = Field(default="", description="The person's note.")
    evidence: str = Field(default="", description="The instrument's words: the judge's reason, the fault's evidence.")


class LabelFigures(BaseModel):
    """The judge's and the audit's agreement with a person's labels (`--labels`)."""

    source: str = Field(description="The labels file read.")
    lines: int = Field(description="Labels read.")
    applied: int = Field(description="Labels of a dialog of the run, as it was read.")
    stale: int = Field(default=0, description="Labels whose dialog was since played anew (its digest differs): not "
                       "counted.")
    unknown: int = Field(default=0, description="Labels of a dialog or policy the run does not have: not counted.")
    judge: Agreement | None = Field(default=None, description="The judge's verdict on each labelled policy.")
    verdict: Agreement | None = Field(default=None, description="The report's verdict (outcome, checks and judge) "
                                      "on each labelled policy.")
    audit: Agreement | None = Field(default=None, description="Whether the audit found the user at fault (a fault "
                                    "not read as none).")
    policies: dict[str, Agreement] = Field(default_factory=dict, description="The judge's agreement per policy.")
    faults: dict[str, Agreement] = Field(
        default_factory=dict, description="Per kind of fault: the audit's finding it against the person's, on the "
        "dialogs whose label says whether the user was at fault (a fault a model read as none counts as not found).")
    worst: list[Disagreement] = Field(default_factory=list, description="The disagreements that matter most: a "
                                      "breach the instrument missed, then a breach it made up, then the audit's.")
