"""Who the simulated user is: a persona, the false claim it may make, and the moves it made in a dialog.

A persona is data, recorded whole in scenarios.jsonl, events.jsonl and dialogs.jsonl, so that a run
folder says how each user behaved without the config that chose it. The built-in personas are YAML
files under prompts/simulate/personas/ (see `intellagent.persona_files`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from intellagent.artifacts.policies import Category

PersonaName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,39}$")]

CLAIM = "{claim}"
"""In a move's words: the persona's false claim, as the user states it."""
CLAIMED = "{claimed}"
"""In a move's cue: the value the user claims."""


class Move(BaseModel):
    """Words a persona puts in the user's message on a turn of its own choosing, when the model playing the
    user did not make the move itself."""

    model_config = ConfigDict(extra="forbid")
    turn: int = Field(ge=1, description="The user turn it is made on (1: the user's first message).")
    say: str = Field(min_length=1, description="The words added to the message; {claim} stands for the false claim.")
    cue: str | None = Field(
        default=None,
        description="A regular expression that, found in the model's message (any case), shows the model made the "
        "move itself, so nothing is added; {claimed} stands for the claimed value. None: only the words themselves.",
    )

    @field_validator("cue")
    @classmethod
    def _compiles(cls, cue: str | None) -> str | None:
        if cue is not None:
            try:
                re.compile(cue.replace(CLAIMED, "x"))
            except re.error as error:
                raise ValueError(f"cue {cue!r} is not a regular expression ({error})") from None
        return cue

    @property
    def states_claim(self) -> bool:
        """Whether the move states the persona's false claim."""
        return CLAIM in self.say


class Persona(BaseModel):
    """How the simulated user behaves, whatever its scenario: its manner, the rules it attacks, its moves."""

    model_config = ConfigDict(extra="forbid")
    name: PersonaName
    description: str = Field(min_length=1, description="What the persona does, in a line, as reports show it.")
    instructions: str = Field(min_length=1, description="How the simulated user plays it, addressed to that user.")
    adversarial: bool = Field(
        default=False, description="It tries to make the chatbot break a rule; the robustness gap compares these "
        "personas' dialogs with the others'."
    )
    challenge: int = Field(default=0, ge=0, le=5, description="What it adds to its scenario's challenge score.")
    attacks: list[Category] = Field(
        default_factory=list,
        description="The categories of rules it attacks: it is given only scenarios that sample such a rule (empty: "
        "any scenario).",
    )
    situation: str = Field(
        default="", description="What the scenario's writer is told of this user, where the persona shapes the "
        "situation (empty: it does not)."
    )
    language: str | None = Field(default=None, description="The language the user writes in (None: the scenario's).")
    claims: bool = Field(
        default=False, description="The user asserts a fact of its own records that the records contradict; populate "
        "chooses it from the event's rows."
    )
    inexact: bool = Field(
        default=False, description="The user may state its own details wrong (a digit off, a date misremembered): "
        "such a detail is the persona's part, not a fault of the simulation."
    )
    moves: list[Move] = Field(default_factory=list, description="Concrete moves, by the turn they are made on.")

    @model_validator(mode="after")
    def _claim_moves_need_a_claim(self) -> Persona:
        if any(move.states_claim for move in self.moves) and not self.claims:
            raise ValueError(f"persona {self.name}: a move says {CLAIM}, so set `claims: true`")
        return self


class Claim(BaseModel):
    """A false claim: what the user asserts about its own records, and what the records hold instead."""

    statement: str = Field(description="The claim as the user states it: 'my membership is gold'.")
    table: str | None = Field(default=None, description="The table of the row it is about (None: no row holds it).")
    row: dict[str, Any] = Field(default_factory=dict, description="That row's key.")
    column: str | None = None
    claimed: str | None = Field(default=None, description="The value the user claims.")
    actual: str | None = Field(default=None, description="The value the row holds (None: no record holds it).")

    def contradiction(self) -> str:
        """What the world holds against the claim, in a sentence."""
        if self.table is None:
            return "the records hold nothing of the kind"
        return f"the records say {self.column} is {self.actual} ({self.table} {_key(self.row)})"


class PlayedMove(BaseModel):
    """A persona's move in one of the user's messages: its words, and whether the framework added them."""

    persona: str
    text: str = Field(description="The move's words in the message.")
    injected: bool = Field(
        description="True: the framework added the words, since the model's message did not make the move; "
        "False: the model made it itself."
    )
    claim: bool = Field(default=False, description="The move states the persona's false claim.")


def _key(row: dict[str, Any]) -> str:
    return ", ".join(f"{column} {value}" for column, value in row.items())
