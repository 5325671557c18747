"""scenarios.jsonl: one line per sampled policy set and the conversation that tests it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from intellagent.artifacts.personas import Persona
from intellagent.artifacts.tau import TauTask


class Entitlement(BaseModel):
    """What the user asks for that the rules allow: the change a rule-keeping chatbot makes for them, so that a
    chatbot that does nothing fails the scenario."""

    tool: str = Field(description="The tool that makes the change.")
    request: str = Field(description="The request, in one sentence.")


class Scenario(BaseModel):
    """What the user wants and what the chatbot must do, for a sampled set of policies."""

    id: str = Field(description="S001, S002, ... in sampling order")
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    policies: list[str] = Field(description="Ids of the sampled policies.")
    target_challenge: int = Field(description="The challenge level this sample was drawn for.")
    challenge: int = Field(description="Sum of the sampled policies' challenge scores and the persona's, the "
                           "persona's counted up to the top of describe.challenge_range.")
    repeat: int = Field(
        default=0,
        description="0 for the first scenario planned for its policy set; n for the n-th planned after it when "
        "the run asks for more scenarios than there are sets, written as another situation and goal.",
    )
    description: str = Field(default="", description="The user's situation and goal, for one conversation.")
    expected_behaviour: str = Field(default="", description="What the chatbot must do, self-contained.")
    entitled: Entitlement | None = Field(
        default=None, description="The change the user is entitled to, beside what the rules refuse; None: a "
        "scenario in which the rules allow nothing the user asks for (a refusal), or one of τ-bench's tasks."
    )
    refined: bool = Field(default=False, description="Whether a refinement pass corrected the behaviour.")
    persona: Persona | None = Field(
        default=None, description="Who the user is (None: τ-bench's tasks, and runs from before personas)."
    )
    task: TauTask | None = Field(
        default=None, description="τ-bench mode: the published task the scenario is (its id is T + its number)."
    )
