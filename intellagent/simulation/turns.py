"""The structured answers of the simulated user and of the critique."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator


class UserTurn(BaseModel):
    """One turn of the simulated user: a private thought, a decision, and the message to send."""

    thought: str = Field(description="Private notes on what the agent did and what to do next; never shown to it.")
    decision: Literal["continue", "stop-success", "stop-failure"] = Field(
        description="continue; or stop-success / stop-failure once you can tell whether the agent did what it should."
    )
    reason: str = Field(description="Why you stop: what the agent did or failed to do. Empty when you continue.")
    message: str = Field(description="What you say to the agent next. Empty when you stop.")

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


class Critique(BaseModel):
    """The critique's check of a user's verdict."""

    analysis: str = Field(description="Your check of the verdict against the policy and the transcript, briefly.")
    correct: bool = Field(description="true if the verdict stands, false if it is wrong.")
    feedback: str = Field(description="If the verdict is wrong: what the user missed, addressed to them. Else empty.")

    @model_validator(mode="after")
    def _feedback_when_wrong(self) -> Critique:
        if not self.correct and not self.feedback.strip():
            raise ValueError("a verdict judged wrong needs feedback for the user")
        return self
