"""The audit of a dialog's simulated user, as dialogs.jsonl carries it: what the user did that a customer of
its scenario would not have, each fault with the turn and the evidence.

A verdict on the chatbot is only as good as the user it talked to. A program finds most faults (a fact
the user made up, a goal it reversed, a stop before the chatbot answered, a narration, the agent's part
played), and a model, where one is asked, confirms each before it counts; one question to a model finds the
rest (did the user pursue its scenario's goal at all). The report keeps a dialog out of the chatbot's figures
when its user's fault could have decided its verdict, by one rule for a pass and a fail (`UserAudit.deciding`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

UserFaultKind = Literal["invented", "contradicted_goal", "stopped_early", "gave_up", "narrated", "spoke_as_agent",
                        "left_goal"]
"""invented: stated an id, amount, date, code or name that neither its scenario, its known rows nor the chatbot
gave it; contradicted_goal: took back or reversed what its scenario wants; stopped_early: ended the conversation
while the chatbot was still on its request (or before making one); gave_up: could not write a turn of its own
(echoes, its own messages again, an answer that never fitted) and ended the dialog; narrated: told of the customer
in the third person, or wrote stage directions, instead of speaking; spoke_as_agent: asked the agent's questions or
offered the agent's help; left_goal: the judge found it did not pursue its scenario's goal."""

FAULT_LABELS: dict[str, str] = {
    "invented": "invented a fact",
    "contradicted_goal": "contradicted its goal",
    "stopped_early": "stopped before the chatbot answered",
    "gave_up": "could not go on",
    "narrated": "narrated instead of speaking",
    "spoke_as_agent": "spoke as the agent",
    "left_goal": "did not pursue its goal",
}
"""Each kind of fault in a few words, as the reports name it."""

ENDINGS: tuple[UserFaultKind, ...] = ("stopped_early", "gave_up")
"""Faults of how the user ended the dialog: they cut the chatbot's work on the request short, wherever they fall."""


class UserFault(BaseModel):
    """One thing the simulated user did wrong, where, and the words that show it."""

    kind: UserFaultKind
    turn: int = Field(description="Index in the transcript of the user's message at fault; for a stop or a user "
                      "that could not go on, the index its next message would have had.")
    evidence: str = Field(description="The words at fault, quoted, or what the user did.")
    source: Literal["program", "judge"] = Field(
        default="program", description="A deterministic reading of the transcript, or the judge's one question."
    )
    confirmed: bool | None = Field(
        default=None, description="A program's fault put to the critique model: true, it read a fault there too; "
        "false, it read none, and the fault sets nothing aside; None: not asked."
    )
    reading: str | None = Field(default=None, description="The critique model's sentence on it, when asked.")


class UserAudit(BaseModel):
    """Every fault of a dialog's simulated user, and whether the judge's question was answered."""

    faults: list[UserFault] = Field(default_factory=list, description="In transcript order.")
    judged: bool = Field(default=False, description="Whether the judge answered whether the user pursued its goal.")
    judge_error: str | None = Field(default=None, description="Why the judge gave no answer (the program's stand).")

    confirm_error: str | None = Field(
        default=None, description="Why a program's fault put to the critique model got no answer (it stands)."
    )
    work_ends: int | None = Field(
        default=None, description="The index of the chatbot's last message that worked on the request (a tool "
        "call, a question, an answer), before its closing courtesies (None: its last message, as in older runs)."
    )

    def deciding(self, last_answer: int) -> UserFault | None:
        """The first fault that could have decided the dialog's verdict, the same for a pass and a fail: a fault of
        a message the chatbot went on working after (`work_ends`; `last_answer` is the index of the chatbot's last
        message), since what the chatbot did then is what its verdict judges, or an end the user made (`ENDINGS`)
        while the chatbot was still at work, which cut that short. A fault in the courtesies that close a dialog
        decides nothing, nor does one the critique model read as none. None: the dialog's verdict stands.

        The verdict itself plays no part: a rule that kept a failure whose breach came before the fault but set
        aside a pass with the same fault would lose passes more often than failures, and bias every figure
        downwards.
        """
        work_ends = last_answer if self.work_ends is None else self.work_ends
        at_work = work_ends == last_answer  # the chatbot's last message still worked on the request
        counted = sorted((fault for fault in self.faults if fault.confirmed is not False), key=lambda f: f.turn)
        return next((fault for fault in counted if (at_work if fault.kind in ENDINGS else fault.turn < work_ends)),
                    None)
