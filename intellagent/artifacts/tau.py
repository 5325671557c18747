"""τ-bench's published tasks and its grade of a dialog, as scenarios.jsonl, events.jsonl and dialogs.jsonl
carry them (τ-bench mode: see `intellagent.tau`)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field


class TauAction(BaseModel):
    """One step of a τ-bench trajectory: a tool name (or `respond`) and its arguments."""

    name: str
    kwargs: dict[str, Any] = Field(default_factory=dict)

    def text(self) -> str:
        """The call as one line: name(key=value, ...), values as JSON."""
        arguments = ", ".join(f"{key}={json.dumps(value)}" for key, value in self.kwargs.items())
        return f"{self.name}({arguments})"


# τ-bench's gold trajectories end with these when they must, but they never change the database.
NOT_REPLAYED = ("respond", "transfer_to_human_agents")


class TauTask(BaseModel):
    """A τ-bench task: the user, what they want, the gold actions and the facts the replies must state."""

    index: int = Field(default=0, description="Its number in the task set, from 0, as τ-bench numbers it.")
    user_id: str
    instruction: str = ""
    actions: list[TauAction]
    outputs: list[str] = Field(default_factory=list)

    @property
    def replayed(self) -> list[TauAction]:
        """The gold actions that act on the database, in order."""
        return [action for action in self.actions if action.name not in NOT_REPLAYED]


class TauGrade(BaseModel):
    """τ-bench's reward of one dialog, and what it was made of."""

    task: int = Field(description="The τ-bench task number.")
    reward: float = Field(description="1.0 if the database ended as the gold actions leave it and every output "
                          "was said, else 0.0")
    hash_match: bool = Field(description="The database ended as the gold actions leave it.")
    agent_hash: str
    gold_hash: str
    outputs: dict[str, bool] = Field(default_factory=dict, description="Each required output: whether a reply "
                                     "contains it.")
    missed: list[str] = Field(default_factory=list, description="Gold writes the chatbot did not make, as calls.")
    missed_reads: list[str] = Field(default_factory=list, description="Gold look-ups (tools that change nothing) "
                                    "the chatbot did not make, as calls; they never cost the reward.")
    unexpected: list[str] = Field(default_factory=list, description="Writes the chatbot made that no gold action "
                                  "makes, as calls (an attempt that returned an error changed nothing and is "
                                  "not one).")
    diff: list[str] = Field(default_factory=list, description="Records whose end state differs from the gold one.")

    @property
    def passed(self) -> bool:
        """Whether the reward is 1."""
        return self.reward == 1.0

    def summary(self) -> str:
        """Why the reward is what it is, in one line."""
        if self.passed:
            return "τ-bench reward 1: the database ended as the gold actions leave it, and every output was said"
        reasons = []
        if not self.hash_match:
            reasons.append("the database did not end as the gold actions leave it")
        if self.missed:
            more = f" and {len(self.missed) - 1} more" if len(self.missed) > 1 else ""
            reasons.append(f"missed {self.missed[0]}{more}")
        if self.unexpected:
            reasons.append(f"also wrote {self.unexpected[0]}")
        unsaid = [output for output, said in self.outputs.items() if not said]
        if unsaid:
            reasons.append("never said " + ", ".join(repr(output) for output in unsaid))
        if self.missed_reads:
            more = f" and {len(self.missed_reads) - 1} more" if len(self.missed_reads) > 1 else ""
            reasons.append(f"did not look up {self.missed_reads[0]}{more}")
        return "τ-bench reward 0: " + "; ".join(reasons)
