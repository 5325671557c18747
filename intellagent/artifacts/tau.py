"""τ-bench's published tasks and its grade of a dialog, as scenarios.jsonl, events.jsonl and dialogs.jsonl
carry them (τ-bench mode: see `intellagent.tau`). A τ²-bench task (dual control) is one too: it also builds
its initial world by calls of either side's functions, and is graded by assertions on the world's end state and
by the actions it expects, each of a side, as its reward basis says."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

Requestor = Literal["assistant", "user"]
"""Whose call it is, as τ²-bench names the sides: the agent's (the chatbot's) or the user's own."""
REWARD_BASES = ("DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE")
"""What a τ²-bench task's reward may be the product of: the end state's hash, its assertions, the expected
actions, and the facts to state."""


class TauAction(BaseModel):
    """One step of a τ-bench trajectory: a tool name (or `respond`) and its arguments; in a τ²-bench task, also
    whose call it is and which arguments a call must match."""

    name: str
    kwargs: dict[str, Any] = Field(default_factory=dict)
    requestor: Requestor = "assistant"
    compare_args: list[str] | None = Field(default=None, description="τ²-bench: the arguments a call must match "
                                           "(None: every argument the call gives).")

    def text(self) -> str:
        """The call as one line: name(key=value, ...), values as JSON."""
        arguments = ", ".join(f"{key}={json.dumps(value)}" for key, value in self.kwargs.items())
        return f"{self.name}({arguments})"


# τ-bench's gold trajectories end with these when they must, but they never change the database.
NOT_REPLAYED = ("respond", "transfer_to_human_agents")


class TauCall(BaseModel):
    """A call of one of a τ²-bench environment's functions (a tool, what sets the scene, an assertion)."""

    side: Requestor = Field(description="Whose environment: the agent's ('assistant') or the user's.")
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    def text(self) -> str:
        """The call as one line, its side first: `user: turn_roaming_off()`."""
        arguments = ", ".join(f"{key}={json.dumps(value)}" for key, value in self.arguments.items())
        return f"{self.side}: {self.name}({arguments})"


class TauAssertion(TauCall):
    """An assertion on a τ²-bench task's end state, and the value it must give."""

    expected: bool = True


class TauTask(BaseModel):
    """A τ-bench task: the user, what they want, the gold actions and the facts the replies must state; a
    τ²-bench task also has its initial state, its assertions and its reward basis."""

    index: int = Field(default=0, description="Its number in the task set, from 0, as τ-bench numbers it.")
    user_id: str = ""
    instruction: str = ""
    actions: list[TauAction]
    outputs: list[str] = Field(default_factory=list)
    name: str = Field(default="", description="τ²-bench: the task's own id.")
    initial: list[TauCall] = Field(default_factory=list, description="τ²-bench: the calls that build the task's "
                                   "initial state from the task set's data, in order.")
    assertions: list[TauAssertion] = Field(default_factory=list, description="τ²-bench: the assertions on the end "
                                           "state.")
    reward_basis: list[str] = Field(default_factory=list, description="τ²-bench: what the reward is the product "
                                    "of (empty: τ-bench's end state hash and outputs).")
    ticket: str = Field(default="", description="τ²-bench: the issue as a ticket, what a solo agent is given.")

    @property
    def dual(self) -> bool:
        """Whether it is a τ²-bench task, graded by its reward basis."""
        return bool(self.reward_basis)

    @property
    def replayed(self) -> list[TauAction]:
        """The gold actions that act on the database, in order."""
        return [action for action in self.actions if action.name not in NOT_REPLAYED]


class TauGrade(BaseModel):
    """τ-bench's reward of one dialog, and what it was made of."""

    task: int = Field(description="The τ-bench task number.")
    reward: float = Field(description="1.0 if the database ended as the gold actions leave it and every output "
                          "was said, else 0.0")
    hash_match: bool | None = Field(default=None, description="The database ended as the gold actions leave it "
                                    "(τ²-bench: computed only when its reward basis holds DB).")
    agent_hash: str = ""
    gold_hash: str = ""
    basis: list[str] = Field(default_factory=list, description="τ²-bench: what the reward is the product of.")
    assertions: dict[str, bool] = Field(default_factory=dict, description="τ²-bench: each assertion on the end "
                                        "state, whether it held.")
    actions: dict[str, bool] = Field(default_factory=dict, description="τ²-bench: each expected action (its side "
                                     "first), whether a call of the dialog matched it.")
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
        if self.basis:
            return self._dual_summary()
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

    def _dual_summary(self) -> str:
        """A τ²-bench grade's line: the reward, and what of its basis failed."""
        if self.passed:
            return f"τ²-bench reward 1: {', '.join(self.basis)} all met"
        reasons = [f"assertion {name} failed" for name, held in self.assertions.items()
                   if not held and "ENV_ASSERTION" in self.basis]
        reasons += [f"expected action {name} not made" for name, made in self.actions.items()
                    if not made and "ACTION" in self.basis]
        if "DB" in self.basis and not self.hash_match:
            reasons.append("the world did not end as the gold actions leave it")
        unsaid = [output for output, said in self.outputs.items() if not said]
        if unsaid and "COMMUNICATE" in self.basis:
            reasons.append("never said " + ", ".join(repr(output) for output in unsaid))
        return "τ²-bench reward 0: " + ("; ".join(reasons) or "the dialog did not end by the user or the chatbot")
