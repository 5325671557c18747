"""The audit of a dialog's simulated user, as dialogs.jsonl carries it: what the user did that a customer of
its scenario would not have, each fault with the turn and the evidence.

A verdict on the chatbot is only as good as the user it talked to. A program finds most faults (a fact
the user made up, a goal it reversed, a stop before the chatbot answered, a narration, the agent's part
played); one question to a model finds the rest (did the user pursue its scenario's goal at all). The
report keeps a dialog whose user faulted before the chatbot broke a rule out of the chatbot's figures.
"""

from __future__ import annotations

from collections.abc import Iterable
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


class UserFault(BaseModel):
    """One thing the simulated user did wrong, where, and the words that show it."""

    kind: UserFaultKind
    turn: int = Field(description="Index in the transcript of the user's message at fault; for a stop or a user "
                      "that could not go on, the index its next message would have had.")
    evidence: str = Field(description="The words at fault, quoted, or what the user did.")
    source: Literal["program", "judge"] = Field(
        default="program", description="A deterministic reading of the transcript, or the judge's one question."
    )


class UserAudit(BaseModel):
    """Every fault of a dialog's simulated user, and whether the judge's question was answered."""

    faults: list[UserFault] = Field(default_factory=list, description="In transcript order.")
    judged: bool = Field(default=False, description="Whether the judge answered whether the user pursued its goal.")
    judge_error: str | None = Field(default=None, description="Why the judge gave no answer (the program's stand).")

    @property
    def first(self) -> UserFault | None:
        """The earliest fault, if any."""
        return min(self.faults, key=lambda fault: fault.turn, default=None)

    def excuses(self, breaches: Iterable[int | None]) -> bool:
        """Whether the user was at fault before every one of the chatbot's breaches (given by their turns), so
        that the dialog says nothing of the chatbot. A fault after a breach excuses nothing, and a breach of no
        known turn cannot be shown to come after the fault, so it stands."""
        first = self.first
        return first is not None and all(turn is not None and first.turn < turn for turn in breaches)
