"""What every training record of a run shares: the system prompt, the tools, each policy's flows, and the margin
a pair's two turns must be apart by."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from intellagent.artifacts import RolloutTree, RolloutTurn
from intellagent.artifacts.training import ChatMessage, ExampleSource
from intellagent.rollouts.chat import chat, conversation


@dataclass(frozen=True)
class TrainingContext:
    """What every record shares.

    Attributes:
        policy: the run's policy document, the system prompt of every conversation.
        tools: the tools the chatbot held in the paths, as functions.
        flows: each policy's flows, by policy id.
        margin: how much lower a sibling's partial reward must be than the chosen turn's to make a pair with it
            when no verdict condemns it (`rollouts.margin`).
    """

    policy: str
    tools: list[dict[str, Any]]
    flows: dict[str, list[str]] = field(default_factory=dict)
    margin: float = 0.2

    def conversation(self, path: Sequence[RolloutTurn]) -> list[ChatMessage]:
        """The system prompt, then the path's conversation as chat messages."""
        return [ChatMessage(role="system", content=self.policy), *chat(conversation(path))]

    def source(self, tree: RolloutTree, turn: RolloutTurn, reward: float) -> ExampleSource:
        """Where a record that ends with `turn` comes from."""
        return ExampleSource(event=tree.event, path=turn.id, policies=tree.policies,
                             flows=self.flows_of(tree.policies), kind=tree.kind, reward=reward)

    def flows_of(self, policies: list[str]) -> list[str]:
        """The flows of `policies`, each once, in order."""
        return list(dict.fromkeys(flow for policy in policies for flow in self.flows.get(policy, [])))
