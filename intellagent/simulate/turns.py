"""The structured answers of the simulated user and of the critique."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
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
        max_length=text_limits.MESSAGE, description="What you say to the agent now (not sent when you stop)."
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


# Shorter messages may well recur in the agent's words ("yes", "thank you") without being an echo.
ECHO_LENGTH = 20
# Words in a row a message may share with the user's private instruction before it is pasting it: a
# τ-bench user names the same airports and dates, but not in the instruction's own sentences.
COPIED_WORDS = 12


# What only the agent says: offering help, declining to assist, inviting more questions, asking the
# customer for their own records or doing the work on them. A small model playing the customer slips
# into the agent's part ("I'm sorry, but I don't have your user profile. Can you provide it?"), and a
# dialog in which both sides serve never reaches the customer's request.
AGENT_SPEAK = re.compile(
    r"\b(?:how (?:can|may) I (?:help|assist)|I(?:'m| am) here to (?:help|assist)|I can(?:not|'t)? assist|"
    r"(?:anything|something) else I can (?:help|do|assist)|feel free to (?:ask|reach out|contact)|"
    r"(?:happy|glad) to (?:help|assist) you|I (?:do not|don'?t) have your|"
    r"so (?:that )?I can (?:update|change|book|cancel|process|modify) (?:it|your|the)|"
    r"provide me with (?:the|your) (?:user|reservation|booking|account|profile))\b",
    re.IGNORECASE,
)


def redraft_reason(
    turn: UserTurn | TaskUserTurn, *, agent_said: Sequence[str], user_said: Sequence[str] = (), private: str = ""
) -> str | None:
    """What is wrong with a message that copies one of the agent's (`agent_said`), one the user already
    sent, or the user's private instruction (`private`), or speaks as the agent does, or None: small
    models tend to echo the agent, to repeat themselves once the conversation stalls, to paste their
    instruction instead of speaking, and to swap parts with the agent."""
    if turn.stops:
        return None
    agent_speak = AGENT_SPEAK.search(turn.message)
    if agent_speak:
        return f'speaks as the agent ("{agent_speak.group(0)}"), not as the customer'
    message = _words(turn.message)
    if len(message) < ECHO_LENGTH:
        return None
    if any(message in _words(said) for said in agent_said):
        return "repeats the agent's words"
    if message in {_words(said) for said in user_said}:
        return "repeats a message you already sent"
    if private and _runs(message) & _runs(_words(private)):
        return "copies your private instruction word for word"
    return None


def _runs(words: str) -> set[tuple[str, ...]]:
    """Every run of `COPIED_WORDS` words in a row."""
    tokens = words.split()
    return {tuple(tokens[i:i + COPIED_WORDS]) for i in range(len(tokens) - COPIED_WORDS + 1)}


def _words(text: str) -> str:
    return " ".join(text.lower().split())


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
