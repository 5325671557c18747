"""The audit of a dialog's simulated user, recorded with the dialog (`Dialog.audit`) once it ended.

A program reads the transcript for the faults it can tell (`user_faults`). Whether the user pursued its
scenario's goal at all is a question only a model can answer: it is asked once per dialog in which the user
spoke, of the `critique` model, the simulate stage's judge of the simulated user, in a schema whose `turn` can
only name one of the user's messages. It is asked here rather than in the report's analysis because the
question is about the simulation, not about the chatbot: the audit is then whole in dialogs.jsonl, made once
with the dialog and kept with it by a resumed run, the analysis's question and its recorded answers stay as
they are, and the judge of the chatbot is never asked to weigh the user's faults against the chatbot's. The
prompt holds the scenario and the messages alone (no policy, no tool results), so the call is a short one.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model, model_validator

from intellagent import text_limits
from intellagent.artifacts import Dialog, Event, UserAudit, UserFault
from intellagent.checks import Trace
from intellagent.checks.grounding import WorldFacts
from intellagent.checks.sentences import quote
from intellagent.environment import Environment
from intellagent.errors import failure_reason
from intellagent.llm import LLM, LLMError
from intellagent.prompt_files import render
from intellagent.simulate.user_faults import last_work, program_faults

STEP = "simulate/user_goal"


class GoalPursuit(BaseModel):
    """The judge's answer: whether the customer pursued its goal, and if not, where it left it."""

    reason: str = Field(max_length=text_limits.REASON, description="One sentence on the customer's messages.")
    pursued: bool = Field(description="true if the customer's messages pursued the goal it was given.")
    turn: int | None = Field(description="When false: the number in brackets of the first customer message that "
                             "left the goal; when true: null.")

    @model_validator(mode="after")
    def _turn_when_left(self) -> GoalPursuit:
        if not self.pursued and self.turn is None:
            raise ValueError("name the first customer message that left the goal in `turn`")
        return self


@lru_cache(maxsize=64)
def pursuit_schema(user_turns: tuple[int, ...]) -> type[GoalPursuit]:
    """The answer schema of a dialog: `turn` names one of its user messages, or nothing."""
    turn: Any = Literal[user_turns]  # type: ignore[valid-type]
    described = Field(description=GoalPursuit.model_fields["turn"].description)
    return create_model("GoalPursuit", __base__=GoalPursuit, turn=(turn | None, described))


def read_faults(environment: Environment, event: Event, dialog: Dialog, *, world: Path | None) -> list[UserFault]:
    """The faults a program tells in the dialog's user; the ids and codes of `world` (the event's world, a
    complete database) are learnt as the chatbot's grounding check learns them."""
    trace = Trace(messages=dialog.transcript, environment=environment, start=world)
    said = [message.content for message in dialog.transcript if message.role == "user"]
    return program_faults(event, dialog, WorldFacts.said_in(trace, said))


def program_audit(environment: Environment, event: Event, dialog: Dialog, *, world: Path | None) -> UserAudit:
    """The program's audit of the dialog's user: its faults (`read_faults`), and where the chatbot's work on the
    request ended, after which a fault decides nothing."""
    faults = read_faults(environment, event, dialog, world=world)
    return UserAudit(faults=faults, work_ends=last_work(dialog.transcript))


async def audited(event: Event, dialog: Dialog, audit: UserAudit, judge: LLM | None) -> UserAudit:
    """The audit of a dialog: the program's faults as `audit` holds them (confirmed or not, see `fault_question`),
    and the judge's answer on the user's goal when the user spoke and a judge is asked (a call that fails, or an
    answer that never parses, is recorded, and the program's faults stand)."""
    user_turns = tuple(turn for turn, message in enumerate(dialog.transcript) if message.role == "user")
    if not user_turns or judge is None:
        return audit
    messages = render(STEP, scenario=event.scenario, conversation=conversation_text(dialog))
    try:
        answer = await judge.answer(messages, pursuit_schema(user_turns), step=STEP)
    except LLMError as error:  # the dialog stands without the answer; an outage or a refused key stops the run
        audit.judge_error = failure_reason(error)
        return audit
    audit.judged = True
    if not answer.pursued and answer.turn is not None:
        said = quote(dialog.transcript[answer.turn].content)
        audit.faults.append(UserFault(kind="left_goal", turn=answer.turn, source="judge",
                                      evidence=f'"{said}" ({" ".join(answer.reason.split())})'))
        audit.faults.sort(key=lambda fault: fault.turn)
    return audit


def conversation_text(dialog: Dialog) -> str:
    """The messages alone, numbered by their place in the transcript: the customer saw no tool call."""
    return "\n".join(f"[{turn}] {'customer' if message.role == 'user' else 'agent'}: {message.content}"
                     for turn, message in enumerate(dialog.transcript))
