"""The critique: it checks a simulated user's verdict against the whole policy and every tool call.

Its prompt opens as the JSON-choice chatbot's does (the policy, then the tools): on a server with a prefix cache,
the closing critique of a dialog then leaves the next dialog's chatbot its opening already read.
"""

from __future__ import annotations

from intellagent.artifacts import CritiqueExchange, Message
from intellagent.context import log
from intellagent.errors import failure_reason
from intellagent.llm import LLM, AnswerInvalid
from intellagent.prompt_files import render
from intellagent.simulate.transcript import transcript_text
from intellagent.simulate.turns import Critique
from intellagent.simulate.users import Stop


async def checked_verdict(
    llm: LLM, policy: str, tools: str, transcript: list[Message], stop: Stop, *, dialog: str
) -> Critique | None:
    """The critique's answer on a verdict; None when it gives no usable one (the verdict then stands
    unchecked, as when the send-backs are used up).

    Args:
        tools: the chatbot's tools, as `describe_tools` lists them.
        dialog: the dialog's id, for the log.
    """
    messages = render("simulate/critique", policy=policy, tools=tools, transcript=transcript_text(transcript),
                      verdict=stop.verdict, reason=stop.reason)
    try:
        return await llm.answer(messages, Critique, step="simulate/critique")
    except AnswerInvalid as error:
        log.info("dialog %s: the critique could not answer (%s)", dialog, failure_reason(error))
        return None


def exchange(stop: Stop, *, confirmed: bool, feedback: str = "", checked: bool = True) -> CritiqueExchange:
    """The record of a verdict and what became of it."""
    return CritiqueExchange(turn=stop.turn, verdict=stop.verdict, reason=stop.reason, thought=stop.thought,
                            confirmed=confirmed, checked=checked, feedback=feedback)
