"""τ-bench's simulated user: it plays by τ-bench's conventions, not a sampled scenario's.

It has only the task's private instruction, which the chatbot never sees, and no reminders: its prompt
holds τ-bench's conventions whole. It asks for no critique and gives no verdict; it ends the
conversation with τ-bench's stop token, and, as in τ-bench, a chatbot's transfer to a human ends the
task. The simulate stage then grades the dialog by the task's gold actions (`tau.grading`).
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import BaseMessage

from intellagent.artifacts import Event, PlayedMove
from intellagent.llm import LLM
from intellagent.prompt_files import render
from intellagent.simulate.turns import STOP_TOKEN, TaskUserTurn, UserTurn
from intellagent.simulate.users import USER_ENDED, Outcome, Update


@dataclass(frozen=True)
class TaskUser:
    """The user of a τ-bench task's event (its scenario is the task's instruction).

    Args:
        event: the event played out.
        llm: its model.
    """

    event: Event
    llm: LLM

    @property
    def private(self) -> str:
        """The instruction: its messages must not paste it, which would hand the chatbot the task's details."""
        return self.event.scenario

    def reminders(self, number: int, max_turns: int) -> list[str]:
        """None: τ-bench's conventions are all in its prompt."""
        return []

    async def answer(self, view: list[str], *, ending: bool, warmer: bool, may_act: bool = False) -> TaskUserTurn:
        """Its message alone (a published task's user has no tools of its own here)."""
        return await self.llm.answer(task_user_prompt(self.event, view), TaskUserTurn, step="simulate/user",
                                     warmer=warmer)

    def stopped(self, turn: UserTurn | TaskUserTurn, number: int) -> Update:
        """The dialog is over, to be graded."""
        return {"outcome": Outcome("incomplete", USER_ENDED)}

    def chatbot_ended(self, view: list[str]) -> Update:
        """As in τ-bench, a transfer to a human ends the task."""
        return {"outcome": Outcome("incomplete", "the chatbot ended the conversation")}

    def moved(self, message: str, number: int) -> tuple[str, list[PlayedMove]]:
        """The message as it is: a published task's user plays no persona."""
        return message, []


def task_user_prompt(event: Event, view: list[str]) -> list[BaseMessage]:
    """The user agent's instructions for a τ-bench task: the task's private instruction alone, as τ-bench
    gives it, and the conversation so far."""
    return render("simulate/task_user", instruction=event.scenario, conversation="\n".join(view), stop_token=STOP_TOKEN)
