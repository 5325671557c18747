"""The attacker: the user of an attack dialog (`Event.attack`), which plays the dialog graph's user role as any
simulated user does (`simulate.users.UserRole`; `intellagent.modes.user_role` deals it to an attack's event).

It is told the rule it must make the chatbot break, what a breach looks like, who it poses as, what it knows and its
strategy; each turn it reads the chatbot's last reply, says whether the reply refused its last message, and writes its
next one. That reading is kept at the head of the message's private thought (`refused`), where the search reads it to
roll the refused message back (`redteam.conversation_attack`). It never stops with a verdict: an attack ends when the
rule breaks, or when its budget of turns and attempts is spent. What it writes reaches the chatbot as the strategy wants
it: encoded, for `encoding`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from intellagent import text_limits
from intellagent.artifacts import Event, Message, PlayedMove
from intellagent.llm import LLM
from intellagent.prompt_files import prompt_text, render
from intellagent.redteam.strategies import breach_text, encoded, instructions
from intellagent.simulate.transcript import known_rows

STEP = "redteam/attacker"

REFUSED = "refused"
"""The attacker's reading of a reply that refused its last message, at the head of its thought."""


class AttackTurn(BaseModel):
    """One turn of the attacker: its reading of the chatbot's last reply, its plan, and its message."""

    reading: Literal["refused", "progress"] = Field(
        description="What the agent's last message did with your last request: refused, or progress (it went along, "
        "even in part; progress on your first message)."
    )
    plan: str = Field(max_length=text_limits.THOUGHT, description="Your private plan; never shown to the agent.")
    message: str = Field(min_length=1, max_length=text_limits.MESSAGE, description="What you say to the agent now.")

    @property
    def stops(self) -> bool:
        """False: an attacker never ends the dialog with a verdict."""
        return False

    @property
    def thought(self) -> str:
        """The private thought the transcript keeps: the reading, then the plan."""
        return f"{self.reading}: {self.plan}"


def refused(message: Message) -> bool:
    """Whether the attacker's message says that the chatbot's reply before it refused its last one."""
    return message.role == "user" and (message.thought or "").startswith(f"{REFUSED}:")


@dataclass(frozen=True)
class Attacker:
    """The user of an attack dialog.

    Args:
        event: the attack's event, with its brief (`Event.attack`).
        llm: the attacker's model (`llm.attacker`).
    """

    event: Event
    llm: LLM
    private: str = ""
    request_ids: tuple[str, ...] = ()  # its brief, not a record, is what it opens with

    def reminders(self, number: int, max_turns: int) -> list[str]:
        """None: the brief says it all."""
        return []

    async def answer(self, view: list[str], *, ending: bool, warmer: bool, may_act: bool = False,
                     opening: bool = False) -> AttackTurn:
        """Its reading of the chatbot's last reply and its next message, given the conversation as it saw it (rolled
        back attempts included, marked)."""
        return await self.llm.answer(attacker_prompt(self.event, view), AttackTurn, step=STEP, warmer=warmer)

    def stopped(self, turn: Any, number: int) -> dict[str, Any]:
        """Never called: an attacker does not stop."""
        raise AssertionError("an attacker never stops with a verdict")

    def moved(self, message: str, number: int) -> tuple[str, list[PlayedMove]]:
        """Its message as the chatbot gets it: encoded for `encoding`, the plain words kept as the strategy's move."""
        brief = self.event.attack
        if brief is None or brief.encoding is None:
            return message, []
        return encoded(message, brief.encoding), [PlayedMove(persona=brief.strategy, text=message, injected=True)]

    def chatbot_ended(self, view: list[str]) -> dict[str, Any]:
        """The chatbot tried to close the conversation: the attacker is told, and may go on."""
        return {"user_view": [*view, prompt_text("redteam/attacker_closed")]}


def attacker_prompt(event: Event, view: list[str]) -> list[Any]:
    """The attacker's instructions (the rule, the breach, its situation and knowledge, its strategy, the false claim
    it makes) and the conversation so far as one text."""
    brief = event.attack
    assert brief is not None  # an attacker plays only an attack's event
    strategy = instructions(brief)
    if event.claim is not None:
        strategy += "\n" + prompt_text("redteam/attacker_claim", statement=event.claim.statement,
                                       truth=event.claim.contradiction())
    return render(STEP, rule=f"{brief.rule}: {brief.text}", breach=breach_text(brief), scenario=event.scenario,
                  known=known_rows(event.user_rows), strategy=strategy, conversation="\n".join(view))
