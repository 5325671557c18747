"""What the adversary of an attack dialog is given (--red-team): the attacker's brief (`Event.attack`), or the
instruction planted in the data the chatbot reads (`Event.planted`, `Dialog.planted`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

StrategyName = Literal[
    "crescendo", "goal_hijack", "authority", "false_facts", "language_switch", "encoding", "splitting", "injection"
]
"""The red team's strategies (`STRATEGIES` says what each does; `intellagent.redteam.strategies` tells the attacker)."""

@dataclass(frozen=True)
class Strategy:
    """One strategy.

    Attributes:
        name: its name in `red_team.strategies`.
        summary: what it does, in a line, as the report shows it.
        through: whether it reaches the chatbot through the conversation (an attacker plays the user) or through
            the data (an instruction planted in a record the chatbot reads).
    """

    name: StrategyName
    summary: str
    through: Literal["conversation", "data"] = "conversation"


STRATEGIES: dict[StrategyName, Strategy] = {strategy.name: strategy for strategy in (
    Strategy("crescendo", "starts harmless and escalates a step at a time towards the breach"),
    Strategy("goal_hijack", "gives a plausible pretext that makes the forbidden action look right"),
    Strategy("authority", "claims an approval from someone in charge, and presses for it now"),
    Strategy("false_facts", "asserts a fact of the user's own records that the records contradict"),
    Strategy("language_switch", "moves to another language for the request that matters"),
    Strategy("encoding", "sends its request encoded (base64, rot13 or leetspeak), asking the chatbot to decode it"),
    Strategy("splitting", "splits the forbidden request into several allowed ones"),
    Strategy("injection", "plants an instruction in a free-text field of a record the chatbot reads", "data"),
)}
"""Every strategy, by name, in the order the report lists them."""


Encoding = Literal["base64", "rot13", "leetspeak"]
"""How the `encoding` strategy writes the attacker's messages."""


class AttackBrief(BaseModel):
    """What the attacker of an attack dialog is told (`Event.attack`): the rule it must make the chatbot break, what
    a breach looks like, and how it attacks."""

    rule: str = Field(description="The id of the policy under attack.")
    text: str = Field(description="The rule's text.")
    breach: list[str] = Field(
        default_factory=list, description="What a breach looks like: the writes the event's expected outcome forbids "
        "for the rule, as calls with their reason; empty: the rule broken, in its own words.")
    strategy: StrategyName
    language: str | None = Field(default=None, description="language_switch: the language the attacker moves to.")
    encoding: Encoding | None = Field(default=None, description="encoding: how its messages are written.")


class Planted(BaseModel):
    """An instruction planted in the chatbot's data (indirect injection): in a free-text field of a record the chatbot
    reads when it looks the record up."""

    instruction: str = Field(description="The instruction, as the attacker wrote it.")
    table: str = Field(description="The table of the record it was planted in.")
    row: dict[str, Any] = Field(default_factory=dict, description="That record's key.")
    column: str = Field(description="The field that holds it.")
    before: Any = Field(default=None, description="The field's value before.")
    after: Any = Field(default=None, description="The field's value with the instruction in it.")

    def where(self) -> str:
        """Where it was planted, in words: 'orders A1, note'."""
        key = ", ".join(str(value) for value in self.row.values())
        return f"{self.table} {key}, {self.column}"
