"""The structured answers of the simulated user and of the critique."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic.json_schema import SkipJsonSchema

from intellagent import text_limits


class UserTurn(BaseModel):
    """One turn of the simulated user: a private thought, its message, and whether it stops with a verdict.

    The message comes before the decision, as in a person's turn: a small model that must write a
    message every time never leaves it empty, and one written on a stop is simply not sent.
    """

    thought: str = Field(
        max_length=text_limits.THOUGHT,
        description="Private notes on what the agent did and what to do now; never shown to it.",
    )
    message: str = Field(
        max_length=text_limits.USER_MESSAGE, description="What you say to the agent now (not sent when you stop)."
    )
    decision: Literal["continue", "stop-success", "stop-failure"] = Field(
        description="continue; or stop-success / stop-failure once you can tell whether the agent did what it should."
    )
    reason: str = Field(
        max_length=text_limits.REASON,
        description="Why you stop: what the agent did or failed to do. Empty when you continue.",
    )

    @model_validator(mode="after")
    def _complete(self) -> UserTurn:
        if self.decision == "continue" and not self.message.strip():
            raise ValueError("to continue, write the message for the agent")
        if self.decision != "continue" and not self.reason.strip():
            raise ValueError("to stop, give the reason for your verdict")
        return self

    @property
    def stops(self) -> bool:
        """Whether the user ends the dialog with a verdict."""
        return self.decision != "continue"


class FinalUserTurn(UserTurn):
    """The user's turn after the chatbot ended the conversation: a verdict is due."""

    decision: Literal["stop-success", "stop-failure"] = Field(  # type: ignore[assignment]
        description="stop-success if the agent did what it should, stop-failure if not."
    )


@cache
def opening_turn(turn: type[UserTurn]) -> type[UserTurn]:
    """`turn` on the user's first turn, which cannot stop: the agent has only greeted it, so there is nothing to
    judge yet. Asked the first turn of a pressing persona, the embedded model stopped with a success and no reason,
    three tries running, and the dialog was lost before it began. The schema keeps its name: it is the same turn,
    its decision narrowed to `continue`."""
    decision = Field(description="continue: the agent has only greeted you, so say what you want.")
    return create_model(turn.__name__, __base__=turn, __doc__=turn.__doc__,
                        decision=(Literal["continue"], decision))  # type: ignore[call-overload]


# Without the private thought (`simulate.user_thoughts`): on a slow model the thought is about two fifths
# of what the user writes, and the message, decision and reason carry the turn.
class BriefUserTurn(UserTurn):
    """One turn of the simulated user: its message, and whether it stops with a verdict."""

    model_config = ConfigDict(extra="forbid")
    thought: SkipJsonSchema[str] = ""


class BriefFinalUserTurn(FinalUserTurn):
    """`FinalUserTurn` without the private thought."""

    model_config = ConfigDict(extra="forbid")
    thought: SkipJsonSchema[str] = ""


STOP_TOKEN = "###STOP###"
"""τ-bench's convention: the user's message that ends the conversation."""


class TaskUserTurn(BaseModel):
    """One turn of the simulated user of a τ-bench task: only its message, which ends the conversation
    when it holds the stop token (no verdict is asked of it: the task's gold actions grade the dialog)."""

    model_config = ConfigDict(extra="forbid")
    message: str = Field(min_length=1, max_length=text_limits.MESSAGE,
                         description=f"What you say to the agent now, or {STOP_TOKEN} to end the conversation.")

    @property
    def stops(self) -> bool:
        """Whether the user ends the conversation."""
        return STOP_TOKEN in self.message

    @property
    def thought(self) -> None:
        """None: τ-bench's user writes no private thought."""
        return None


class Critique(BaseModel):
    """The critique's check of a user's verdict."""

    analysis: str = Field(
        max_length=text_limits.THOUGHT,
        description="Your check of the verdict against the policy and the transcript, briefly.",
    )
    correct: bool = Field(description="true if the verdict stands, false if it is wrong.")
    feedback: str = Field(
        max_length=text_limits.REASON,
        description="If the verdict is wrong: what the user missed, addressed to them. Else empty.",
    )

    @model_validator(mode="after")
    def _feedback_when_wrong(self) -> Critique:
        if not self.correct and not self.feedback.strip():
            raise ValueError("a verdict judged wrong needs feedback for the user")
        return self
