"""The standard operating procedure of a flow: its steps, and which step must come before which.

A flow's procedure (`Flow.sop` in policies.json) is a directed acyclic graph. A step is one thing the
chatbot does: call one of the domain's tools, ask the user for a fact, get the user's explicit yes, tell
the user something, or hand the user over to a person. An edge says that its first step comes before its
second, under the condition a rule states, if it states one. The steps a program can see in a dialog (the
calls, the handovers, the user's yes) are what a dialog is read against: a missing step, a wrong order,
an extra step. A step marked `required` enters the verdict: missing it, or taking it too late, breaks the
procedure (see `checks.procedure_steps`).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field

StepKind = Literal["call", "ask", "confirm", "tell", "handoff"]
STEP_KINDS: tuple[str, ...] = get_args(StepKind)


class SopStep(BaseModel):
    """One step of a procedure."""

    id: str = Field(description="S1, S2, ... in an order that keeps every edge forward.")
    kind: StepKind = Field(description="call a tool, ask the user for a fact, get the user's explicit yes, tell the "
                           "user something, or hand the user over to a person.")
    tool: str | None = Field(default=None, description="call and handoff: the tool called.")
    text: str = Field(default="", description="What the step does, in a few words (the fact asked, what is told).")
    policies: list[str] = Field(default_factory=list, description="The policies the step comes from.")
    required: bool = Field(default=False, description="A step the policy demands: a dialog that comes to a step "
                           "after it without it, or before it, breaks the procedure's rule.")

    def label(self) -> str:
        """The step in a few words, as reports show it: `call get_order`, `ask: the order id`."""
        if self.tool is not None:
            return f"{self.kind} {self.tool}"
        return f"{self.kind}: {self.text}" if self.text else self.kind


class SopEdge(BaseModel):
    """One step comes before another, under a condition where a rule states one."""

    before: str = Field(description="The step that comes first (its id).")
    after: str = Field(description="The step that comes after it.")
    condition: str = Field(default="", description="When the order holds, in the rule's words (empty: always).")


class SopGraph(BaseModel):
    """A flow's procedure: its steps and the order among them (acyclic)."""

    steps: list[SopStep]
    edges: list[SopEdge] = Field(default_factory=list)
