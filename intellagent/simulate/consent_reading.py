"""A model's reading of the user's yes before each write, in any language.

The checks decide whether the user agreed to a write by an explicit lexicon (`checks.consent`), which knows a
few languages' words for yes. Where a model is there to ask (`simulate.consent_question`), each user answer
that a write came right after is put to it instead, with the chatbot turn it answered: one question with a
yes-or-no answer, and its reading (`Trace.agreed`) decides. A question the model fails leaves that answer to
the lexicon.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from intellagent.artifacts import Message
from intellagent.environment import Environment
from intellagent.llm import LLM, LLMError
from intellagent.prompt_files import render

STEP = "simulate/consent"


class Agreement(BaseModel):
    """Whether the user's answer agrees to what the agent proposed."""

    model_config = ConfigDict(extra="forbid")
    agrees: bool


def answered_before_writes(environment: Environment, transcript: list[Message]) -> dict[int, int]:
    """Each user answer a write of the chatbot came right after (its index), with the chatbot turn it answered."""
    writes = {tool.name for tool in environment.tools if tool.writes}
    found: dict[int, int] = {}
    for turn, message in enumerate(transcript):
        if message.role != "chatbot" or not any(call.name in writes for call in message.tool_calls):
            continue
        answer = next((i for i in range(turn - 1, -1, -1) if transcript[i].role == "user"), None)
        asked = None if answer is None else next(
            (i for i in range(answer - 1, 0, -1) if transcript[i].role == "chatbot" and transcript[i].content), None)
        if answer is not None and asked is not None:
            found[answer] = asked
    return found


async def agreements(llm: LLM, environment: Environment, transcript: list[Message]) -> dict[int, bool]:
    """The model's reading of each user answer a write came right after, by the answer's index (one call each)."""
    readings: dict[int, bool] = {}
    for answer, asked in answered_before_writes(environment, transcript).items():
        messages = render("simulate/consent", proposed=transcript[asked].content, answer=transcript[answer].content)
        try:
            reading = await llm.answer(messages, Agreement, step=STEP)
        except LLMError:
            continue  # the lexicon reads this one
        readings[answer] = reading.agrees
    return readings
