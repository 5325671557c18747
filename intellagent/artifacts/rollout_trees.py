"""rollouts.jsonl and rollouts/<event>.json: the beam search over the chatbot's turns on each graded event.

Each event's search is a tree of chatbot turns (`RolloutTree`, in rollouts/<event>.json): the root is the
chatbot's greeting, and each turn is one sampled reply of the chatbot (with the tool calls it made before it)
and the simulated user's answer to it, with the path's partial reward so far. rollouts.jsonl holds one
record per event (`Rollout`): how its search went, and what it yielded.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from intellagent.artifacts.analysis import Analysis
from intellagent.artifacts.audit import UserFault
from intellagent.artifacts.dialogs import DialogStatus, Message
from intellagent.artifacts.outcomes import OutcomeFloor, OutcomeGrade

RolloutStatus = Literal["ok", "stopped", "skipped", "error"]


class RolloutTurn(BaseModel):
    """One chatbot turn of the search tree, and the simulated user's answer to it."""

    id: str = Field(description="Its place in the tree: the candidate numbers from the root, e.g. '0.2.1'.")
    parent: str | None = Field(default=None, description="The turn it continues (None: the greeting).")
    turn: int = Field(description="Chatbot turns before it on its path (0: the greeting).")
    messages: list[Message] = Field(
        default_factory=list, description="The chatbot's message with its tool calls, then the user's answer, if any."
    )
    reward: float = Field(
        description="The path's partial reward after the turn: the share of the expected calls matched so far, "
        "0 once a forbidden write was made or a check found something."
    )
    matched_calls: int = Field(default=0, description="Expected calls the path matched so far.")
    forbidden_made: list[str] = Field(default_factory=list, description="Forbidden writes the path made so far.")
    findings: list[str] = Field(default_factory=list, description="What the checks found on the path so far.")
    kept: bool = Field(default=False, description="Whether the beam went on from it (an ended path never does).")
    ended: DialogStatus | None = Field(default=None, description="How the path ended with this turn, if it did.")
    reason: str = Field(default="", description="Why it ended.")
    grade: OutcomeGrade | None = Field(default=None, description="The path graded against the expected outcome.")
    user_faults: list[UserFault] = Field(
        default_factory=list, description="On a path's last turn: what the simulated user did wrong on the path, as "
        "a program reads it (simulate's audit); a path whose user was at fault is no positive."
    )
    world: str | None = Field(
        default=None, description="The path's world after the turn, its difference from the event's (rollouts/…)."
    )
    judged: Analysis | None = Field(
        default=None, description="On a path's last turn: the judge's analysis of the path, asked only of a path "
        "that every other verdict source passed (`rollouts.positives`)."
    )


class RolloutTree(BaseModel):
    """rollouts/<event>.json: every turn the search played on one event."""

    event: str
    policies: list[str] = Field(default_factory=list)
    beam: int
    branch: int
    max_turns: int
    floor: OutcomeFloor | None = Field(
        default=None, description="The floor of the event's expected outcome: whether doing nothing reaches it."
    )
    kind: Literal["delivery", "refusal"] | None = Field(
        default=None, description="The event's expected outcome's kind: a change delivered, or only a refusal."
    )
    turns: list[RolloutTurn] = Field(default_factory=list, description="Parents before their children.")

    def children(self, turn_id: str | None) -> list[RolloutTurn]:
        """The turns sampled from `turn_id` (None: the root), in the order they were sampled."""
        return [turn for turn in self.turns if turn.parent == turn_id]

    def path(self, turn_id: str) -> list[RolloutTurn]:
        """The turns from the greeting to `turn_id`, in order."""
        by_id = {turn.id: turn for turn in self.turns}
        path: list[RolloutTurn] = []
        current: str | None = turn_id
        while current is not None:
            path.append(by_id[current])
            current = by_id[current].parent
        return path[::-1]

    def ended(self) -> list[RolloutTurn]:
        """The last turn of every path that ended."""
        return [turn for turn in self.turns if turn.ended is not None]


class Rollout(BaseModel):
    """One event's search, as rollouts.jsonl records it."""

    id: str = Field(description="The event's id.")
    status: RolloutStatus = Field(
        description="ok: searched to the end of every path; stopped: the budget ran out first (a rerun resumes it); "
        "skipped: nothing to reward it by; error: it failed."
    )
    reason: str = ""
    policies: list[str] = Field(default_factory=list)
    beam: int
    branch: int
    max_turns: int
    tree: str | None = Field(default=None, description="Its tree, relative to the run (rollouts/<event>.json).")
    paths: int = Field(default=0, description="Paths that ended.")
    rewarded: int = Field(default=0, description="Of those, the positives: every verdict source passed them (the "
                          "outcome above its floor, the programs, the judge, the user's audit).")
    pairs: int = Field(default=0, description="Preference pairs: a turn of a positive and a sibling worse by the "
                       "margin or condemned by a verdict.")
    best_reward: float | None = Field(default=None, description="The best ended path's outcome reward.")
    plain_reward: float | None = Field(default=None, description="The simulate stage's dialog's outcome reward.")
    calls: int = Field(default=0, description="LLM calls the search made (the cache's answers not counted).")
    cost_usd: float = Field(default=0.0, description="What they cost.")
