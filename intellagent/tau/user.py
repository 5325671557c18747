"""τ-bench's simulated user: it plays by τ-bench's conventions, not a sampled scenario's.

It has only the task's private instruction, which the chatbot never sees, and no reminders: its prompt
holds τ-bench's conventions whole. It asks for no critique and gives no verdict; it ends the
conversation with τ-bench's stop token, and, as in τ-bench, a chatbot's transfer to a human ends the
task. Where the domain gives the user tools of its own (τ²-bench's dual control), it calls them as the agent
asks, before its message, and grounds what it says on what they showed. The simulate stage then grades the
dialog by the task's gold actions (`tau.task_grading`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from langchain_core.messages import BaseMessage

from intellagent.artifacts import Event, PlayedMove
from intellagent.chatbots.selection import NATIVE_TOOL_PROVIDERS
from intellagent.llm import LLM
from intellagent.prompt_files import prompt_text, render
from intellagent.simulate.turns import STOP_TOKEN, TaskUserTurn, UserTurn
from intellagent.simulate.users import USER_ENDED, Outcome, Update, UserToolStep, own_tools_text, tool_step

if TYPE_CHECKING:
    from intellagent.environment import Tool


@dataclass(frozen=True)
class TaskUser:
    """The user of a τ-bench task's event (its scenario is the task's instruction).

    Args:
        event: the event played out.
        llm: its model.
        tools: its own tools on its side of the world (τ²-bench's dual control; none in a solo dialog).
    """

    event: Event
    llm: LLM
    tools: Sequence[Tool] = ()
    request_ids: tuple[str, ...] = ()  # a task's instruction says what to give, and when

    @property
    def private(self) -> str:
        """The instruction: its messages must not paste it, which would hand the chatbot the task's details. A
        ticket is no secret: τ²-bench hands it to its solo agent whole."""
        return "" if self.ticket else self.event.scenario

    @property
    def ticket(self) -> str:
        """The task's ticket, which a τ²-bench task's user with no tools of its own (a solo dialog) plays from, as
        τ²-bench's solo agent works from it; empty otherwise."""
        task = self.event.task
        return task.ticket if task is not None and task.dual and not self.tools else ""

    def reminders(self, number: int, max_turns: int) -> list[str]:
        """None: τ-bench's conventions are all in its prompt."""
        return []

    async def answer(self, view: list[str], *, ending: bool, warmer: bool, may_act: bool = False,
                     opening: bool = False) -> TaskUserTurn | UserToolStep:
        """Its message; or, with tools of its own while it `may_act`, a call of one of them in its place (the
        `opening` turn is like any other: τ-bench's user ends with its stop token, never on the first turn)."""
        native = self.llm.spec.provider in NATIVE_TOOL_PROVIDERS
        messages = task_user_prompt(self.event, view, tools=self.tools, native=native, ticket=self.ticket)
        if not (self.tools and may_act and not ending):
            return await self.llm.answer(messages, TaskUserTurn, step="simulate/user", warmer=warmer)
        step: TaskUserTurn | UserToolStep = await tool_step(self.llm, messages, TaskUserTurn, self.tools,
                                                           warmer=warmer)
        return step

    def stopped(self, turn: UserTurn | TaskUserTurn, number: int) -> Update:
        """The dialog is over, to be graded."""
        return {"outcome": Outcome("incomplete", USER_ENDED)}

    def chatbot_ended(self, view: list[str]) -> Update:
        """As in τ-bench, a transfer to a human ends the task."""
        return {"outcome": Outcome("incomplete", "the chatbot ended the conversation")}

    def moved(self, message: str, number: int) -> tuple[str, list[PlayedMove]]:
        """The message as it is: a published task's user plays no persona."""
        return message, []


def task_user_prompt(event: Event, view: list[str], *, tools: Sequence[Tool] = (), native: bool = False,
                     ticket: str = "") -> list[BaseMessage]:
    """The user agent's instructions for a τ-bench task: the task's private instruction alone, as τ-bench
    gives it (or, `ticket` given, the ticket it opened), its own tools if it has any (`native`: called as
    functions), and the conversation so far."""
    instruction = prompt_text("simulate/task_user_ticket", ticket=ticket) if ticket else event.scenario
    return render("simulate/task_user", instruction=instruction, conversation="\n".join(view), stop_token=STOP_TOKEN,
                  own_tools=own_tools_text(tools, native=native))
