"""The rollouts' trees as training data (see `intellagent.artifacts.training` for the formats).

A path is a positive when it ended with its outcome passed, nothing found by the checks and its simulated user
at no fault (`RolloutTurn.rewarded`). Every positive path is a supervised example. At each of its turns, a
sibling (a turn sampled from the same prefix) through which no positive path runs makes a preference pair with
it, as JOSH pairs them: a sibling that also leads to a positive path is no negative, only another good way.
The KTO form holds the same turns unpaired: the chosen ones labelled true, the rejected ones false.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from intellagent.artifacts import Message, RolloutTree, RolloutTurn
from intellagent.artifacts.training import (
    ChatMessage,
    ChatToolCall,
    ExampleSource,
    FunctionCall,
    KtoExample,
    PairSource,
    PreferencePair,
    SftExample,
)


@dataclass(frozen=True)
class TrainingContext:
    """What every record shares: the system prompt, the tools, and the flows of each policy.

    Attributes:
        policy: the run's policy document, the system prompt of every conversation.
        tools: the domain's tools, as functions.
        flows: each policy's flows, by policy id.
    """

    policy: str
    tools: list[dict[str, Any]]
    flows: dict[str, list[str]] = field(default_factory=dict)

    def source(self, tree: RolloutTree, turn: RolloutTurn, reward: float) -> ExampleSource:
        """Where a record that ends with `turn` comes from."""
        return ExampleSource(event=tree.event, path=turn.id, policies=tree.policies,
                             flows=self.flows_of(tree.policies), reward=reward)

    def flows_of(self, policies: list[str]) -> list[str]:
        """The flows of `policies`, each once, in order."""
        return list(dict.fromkeys(flow for policy in policies for flow in self.flows.get(policy, [])))


@dataclass
class TrainingData:
    """The records of some trees, by format."""

    sft: list[SftExample] = field(default_factory=list)
    pairs: list[PreferencePair] = field(default_factory=list)
    kto: list[KtoExample] = field(default_factory=list)


def training_data(trees: Iterable[RolloutTree], context: TrainingContext) -> TrainingData:
    """Every tree's supervised examples, preference pairs and KTO records, tree by tree."""
    data = TrainingData()
    for tree in trees:
        data.sft += sft_examples(tree, context)
        pairs = preference_pairs(tree, context)
        data.pairs += pairs
        data.kto += kto_examples(pairs)
    return data


def jsonl(records: Iterable[BaseModel]) -> str:
    """Records as JSON lines, without their empty fields (a trainer reads a missing key, not a null)."""
    return "".join(record.model_dump_json(exclude_none=True) + "\n" for record in records)


def sft_examples(tree: RolloutTree, context: TrainingContext) -> list[SftExample]:
    """Every positive path of `tree`, as a conversation that ends with the chatbot's last message."""
    examples = []
    for leaf in tree.rewarded():
        messages = [ChatMessage(role="system", content=context.policy), *chat(_messages(tree.path(leaf.id)))]
        while len(messages) > 1 and messages[-1].role == "user":  # the user's last words teach the chatbot nothing
            messages.pop()
        reward = leaf.grade.reward if leaf.grade else 0.0
        examples.append(SftExample(messages=messages, tools=context.tools,
                                   metadata=context.source(tree, leaf, reward)))
    return examples


def preference_pairs(tree: RolloutTree, context: TrainingContext) -> list[PreferencePair]:
    """At every turn of a positive path, the pairs of it and each sibling through which no positive path runs."""
    good = {turn.id for leaf in tree.rewarded() for turn in tree.path(leaf.id)}
    pairs = []
    for chosen in (turn for turn in tree.turns if turn.id in good and turn.parent is not None):
        prompt = [ChatMessage(role="system", content=context.policy), *chat(_messages(tree.path(chosen.parent)))]
        for rejected in tree.children(chosen.parent):
            if rejected.id in good or not chat(_reply(rejected)):  # a turn that failed before a word is no answer
                continue
            source = PairSource(**context.source(tree, chosen, 1.0).model_dump(), rejected=rejected.id,
                                rejected_reward=_best_reward(tree, rejected), turn=chosen.turn)
            pairs.append(PreferencePair(prompt=prompt, chosen=chat(_reply(chosen)), rejected=chat(_reply(rejected)),
                                        tools=context.tools, metadata=source))
    return pairs


def kto_examples(pairs: Iterable[PreferencePair]) -> list[KtoExample]:
    """The turns of the pairs unpaired, each once: the chosen labelled true, the rejected false."""
    examples: dict[str, KtoExample] = {}
    for pair in pairs:
        meta = pair.metadata
        chosen = ExampleSource(event=meta.event, path=meta.path, policies=meta.policies, flows=meta.flows,
                               reward=meta.reward)
        rejected = chosen.model_copy(update={"path": meta.rejected, "reward": meta.rejected_reward})
        for source, completion, label in ((chosen, pair.chosen, True), (rejected, pair.rejected, False)):
            examples.setdefault(f"{source.event}/{source.path}", KtoExample(
                prompt=pair.prompt, completion=completion, label=label, tools=pair.tools, metadata=source))
    return list(examples.values())


def chat(messages: Iterable[Message]) -> list[ChatMessage]:
    """A transcript in the chat format: the user's messages; each of the chatbot's tool calls as an assistant
    message that makes it and the tool's answer; the chatbot's reply. A call the chatbot only reported, which
    nothing ran, is left out: its result is not the world's."""
    chats: list[ChatMessage] = []
    for message in messages:
        if message.role == "user":
            chats.append(ChatMessage(role="user", content=message.content))
            continue
        for call in message.tool_calls:
            if call.reported:
                continue
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            chats.append(ChatMessage(role="assistant", tool_calls=[
                ChatToolCall(id=call.id, function=FunctionCall(name=call.name, arguments=arguments))]))
            chats.append(ChatMessage(role="tool", tool_call_id=call.id, content=call.result or ""))
        if message.content:
            chats.append(ChatMessage(role="assistant", content=message.content))
    return chats


def _messages(path: list[RolloutTurn]) -> list[Message]:
    return [message for turn in path for message in turn.messages]


def _reply(turn: RolloutTurn) -> list[Message]:
    """The chatbot's part of a turn (the user's answer to it is not the chatbot's to learn)."""
    return [message for message in turn.messages if message.role == "chatbot"]


def _best_reward(tree: RolloutTree, turn: RolloutTurn) -> float:
    """The best outcome reward of the paths through `turn` that ended (0 when none did)."""
    rewards = [leaf.grade.reward for leaf in tree.ended() if leaf.grade and turn in tree.path(leaf.id)]
    return max(rewards, default=0.0)
