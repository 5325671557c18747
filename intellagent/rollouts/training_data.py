"""The rollouts' trees as training data (see `intellagent.artifacts.training` for the formats).

Every positive path (`positives`: every verdict source passed it) is a supervised example: the system prompt and
its conversation up to the chatbot's last message. The preference pairs are in `pairs`. The KTO records are the
pairs' messages unpaired: the chosen labelled true, the rejected false. Records that say the same are one record;
a message labelled both ways after the same conversation is no KTO record at all. What was left out, and why, is
kept in the data's `Ledger`, which the data card reads.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel

from intellagent.artifacts import RolloutTree
from intellagent.artifacts.training import (
    ExampleSource,
    KtoExample,
    OpenAiSftExample,
    PreferencePair,
    SftExample,
)
from intellagent.rollouts.chat import for_openai, said
from intellagent.rollouts.pairs import preference_pairs
from intellagent.rollouts.positives import shortfall
from intellagent.rollouts.training_context import TrainingContext

POSITIVE = "positive"

R = TypeVar("R", SftExample, PreferencePair)


@dataclass
class Ledger:
    """What the export made and left out, and why.

    Attributes:
        paths: the ended paths, by why each is no positive (`positives.SHORTFALLS`), or `positive`.
        rewards: the outcome reward of every ended path (None: it was not graded).
        unpaired: the siblings of positive paths' turns that made no pair, by why (`pairs.UNPAIRED`).
        merged: records that repeated one already made, by file.
        both_ways: messages labelled both desirable and not after the same conversation, left out of kto.jsonl.
    """

    paths: Counter[str] = field(default_factory=Counter)
    rewards: list[float | None] = field(default_factory=list)
    unpaired: Counter[str] = field(default_factory=Counter)
    merged: Counter[str] = field(default_factory=Counter)
    both_ways: int = 0


@dataclass
class TrainingData:
    """The records of some trees, by format, and what was left out."""

    sft: list[SftExample] = field(default_factory=list)
    pairs: list[PreferencePair] = field(default_factory=list)
    kto: list[KtoExample] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)

    @property
    def openai(self) -> list[OpenAiSftExample]:
        """The supervised examples in OpenAI's fine-tuning format."""
        return [OpenAiSftExample(messages=for_openai(example.messages), tools=example.tools) for example in self.sft]


def training_data(trees: Iterable[RolloutTree], context: TrainingContext) -> TrainingData:
    """Every tree's supervised examples, preference pairs and KTO records, tree by tree, each record once."""
    data = TrainingData()
    ledger = data.ledger
    for tree in trees:
        for leaf in tree.ended():
            ledger.paths[shortfall(tree, leaf) or POSITIVE] += 1
            ledger.rewards.append(leaf.grade.reward if leaf.grade else None)
        data.sft += sft_examples(tree, context)
        data.pairs += preference_pairs(tree, context, ledger.unpaired)
    data.sft = _once(data.sft, lambda example: said(example.messages), ledger, "sft.jsonl")
    data.pairs = _once(data.pairs, lambda pair: said([*pair.prompt, *pair.chosen]) + said(pair.rejected), ledger,
                       "preferences.jsonl")
    data.kto = kto_examples(data.pairs, ledger)
    return data


def jsonl(records: Iterable[BaseModel]) -> str:
    """Records as JSON lines, without their empty fields (a trainer reads a missing key, not a null)."""
    return "".join(record.model_dump_json(exclude_none=True) + "\n" for record in records)


def sft_examples(tree: RolloutTree, context: TrainingContext) -> list[SftExample]:
    """Every positive path of `tree`, as a conversation that ends with the chatbot's last message."""
    examples = []
    for leaf in tree.ended():
        if shortfall(tree, leaf) is not None:
            continue
        messages = context.conversation(tree.path(leaf.id))
        while len(messages) > 1 and not messages[-1].trained:  # the user's last words teach the chatbot nothing
            messages.pop()
        reward = leaf.grade.reward if leaf.grade else 0.0
        examples.append(SftExample(messages=messages, tools=context.tools, metadata=context.source(tree, leaf, reward)))
    return examples


def kto_examples(pairs: Iterable[PreferencePair], ledger: Ledger | None = None) -> list[KtoExample]:
    """The messages of the pairs unpaired, each once: the chosen labelled true, the rejected false; a message
    labelled both ways after the same conversation is left out."""
    ledger = ledger or Ledger()
    examples: dict[str, KtoExample] = {}
    labels: dict[str, set[bool]] = defaultdict(set)
    for pair in pairs:
        meta = pair.metadata
        chosen = ExampleSource(event=meta.event, path=meta.path, policies=meta.policies, flows=meta.flows,
                               kind=meta.kind, reward=meta.reward)
        rejected = chosen.model_copy(update={"path": meta.rejected, "reward": meta.rejected_reward})
        for source, completion, label in ((chosen, pair.chosen, True), (rejected, pair.rejected, False)):
            key = said(pair.prompt) + said(completion)
            if label in labels[key]:
                ledger.merged["kto.jsonl"] += 1
            labels[key].add(label)
            examples.setdefault(key, KtoExample(prompt=pair.prompt, completion=completion, label=label,
                                                tools=pair.tools, metadata=source))
    both = {key for key, seen in labels.items() if len(seen) == 2}
    ledger.both_ways += len(both)
    return [example for key, example in examples.items() if key not in both]


def _once(records: list[R], key: Callable[[R], str], ledger: Ledger, file: str) -> list[R]:
    """`records` without those that repeat an earlier one by `key`, counted as merged in `file`."""
    kept: dict[str, R] = {}
    for record in records:
        name = key(record)
        if name in kept:
            ledger.merged[file] += 1
        else:
            kept[name] = record
    return list(kept.values())
