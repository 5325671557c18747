"""A program's fault of the simulated user, confirmed by a model before it sets a dialog aside.

The program's detectors (`user_faults`) read words; a negation, a persona's planned move or a customer's own
question can look like a fault to them. Where a model is there to ask, each fault that would set the dialog aside
(`UserAudit.deciding`) is put to the critique model, in transcript order, as one short question whose answer is a
yes or a no with a sentence: the flagged message, the chatbot's message before it, the scenario, and what the
program saw. A fault read as none stays in the audit, marked, and sets nothing aside; the questions stop at the
first fault confirmed, which sets the dialog aside whatever the others are. A fault no model confirmed, or that
never got an answer, stands as the program found it.

The question is short by design: on the embedded model it is asked only under `SHORT_QUESTION` characters, so
that a long scenario never costs the small model a slow call (`simulate.fault_question`).
"""

from __future__ import annotations

import sys

from pydantic import BaseModel, Field

from intellagent import text_limits
from intellagent.artifacts import Dialog, Event, UserAudit, UserFault
from intellagent.artifacts.audit import ENDINGS
from intellagent.config import Switch
from intellagent.errors import failure_reason
from intellagent.llm import LLM, LLMError
from intellagent.prompt_files import prompt_text, render

STEP = "simulate/user_fault"
KINDS = "simulate/user_fault_kinds"
"""Where each kind's definition is, one prompt file per kind: the question names only the kind flagged."""

ASKED = ("invented", "contradicted_goal", "narrated", "spoke_as_agent", "stopped_early")
"""The kinds put to the model: a user that could not go on is a fact of the dialog, and a goal left is a model's
reading already."""
SHORT_QUESTION = 2500
"""The longest question, in characters of its messages, asked of the embedded model."""


def longest_question(setting: Switch, provider: str) -> int | None:
    """The longest question, in characters, that puts a program's fault to a critique model of `provider`; None
    when none is asked (`simulate.fault_question`; auto: any on a hosted model, a short one on the embedded one)."""
    if setting == "no":
        return None
    return SHORT_QUESTION if setting == "auto" and provider == "local" else sys.maxsize


class FaultReading(BaseModel):
    """The model's reading of one flagged message."""

    reason: str = Field(max_length=text_limits.REASON, description="One sentence on the flagged message.")
    fault: bool = Field(description="true if the message is a fault of the kind named; false if not.")


async def confirmed(event: Event, dialog: Dialog, program: UserAudit, judge: LLM, *, longest: int) -> UserAudit:
    """The program's audit with each fault that would set the dialog aside put to `judge` in turn, until one is
    confirmed (a question longer than `longest` characters is not asked; a call that fails is recorded, and the
    faults not yet read stand)."""
    audit = program.model_copy(deep=True)
    while (fault := _unread(dialog, audit)) is not None:
        messages = render(STEP, **question_parts(event, dialog, fault))
        if sum(len(str(message.content)) for message in messages) > longest:
            break  # too long for this model: the program's reading stands
        try:
            answer = await judge.answer(messages, FaultReading, step=STEP)
        except LLMError as error:  # the fault stands; an outage or a refused key stops the run
            audit.confirm_error = failure_reason(error)
            break
        fault.confirmed, fault.reading = answer.fault, " ".join(answer.reason.split())
        if answer.fault:
            break
    return audit


def _unread(dialog: Dialog, audit: UserAudit) -> UserFault | None:
    """The fault that would set the dialog aside now, when the model has not read it yet."""
    deciding = dialog.model_copy(update={"audit": audit}).deciding_fault
    if deciding is None or deciding.confirmed is not None or deciding.kind not in ASKED:
        return None
    return deciding


def question_parts(event: Event, dialog: Dialog, fault: UserFault) -> dict[str, str]:
    """The question's parts for one fault: the scenario, the chatbot's message before the flagged one, the flagged
    message (for an end the user made, the words that it left there), the kind flagged and what the program saw."""
    transcript = dialog.transcript
    ending = fault.kind in ENDINGS
    at = len(transcript) if ending else fault.turn
    before = next((m.content for m in reversed(transcript[:at]) if m.role == "chatbot"), "")
    message = ("(The customer ended the conversation here, without another message.)" if ending
               else transcript[at].content)
    return {"scenario": event.scenario, "before": before or "(nothing yet)", "message": message, "kind": fault.kind,
            "definition": prompt_text(f"{KINDS}/{fault.kind}"), "evidence": fault.evidence}
