"""What a run's training files must hold, read against its search trees: a supervised example for each positive
path, pairs of a turn on a positive path and a sibling off every one, and no KTO example but the pairs' turns.
The store's rollouts and the careless telecom run are both held to it."""

from __future__ import annotations

import json
from pathlib import Path

from intellagent.artifacts import KtoExample, PreferencePair, RolloutTree, SftExample
from intellagent.rollouts.positives import positives
from intellagent.run_folder import RunFolder


def searched_trees(folder: Path) -> list[RolloutTree]:
    """The search tree of every event the rollouts searched."""
    return [tree for record in RunFolder(folder).rollouts.load() if record.status == "ok"
            if (tree := RunFolder(folder).rollout_trees.item(record.id).load()) is not None]


def supervised(folder: Path) -> list[SftExample]:
    """training/sft.jsonl, each line validated."""
    return [SftExample.model_validate(line) for line in _lines(folder, "sft")]


def preferences(folder: Path) -> list[PreferencePair]:
    """training/preferences.jsonl, each line validated."""
    return [PreferencePair.model_validate(line) for line in _lines(folder, "preferences")]


def unpaired(folder: Path) -> list[KtoExample]:
    """training/kto.jsonl, each line validated."""
    return [KtoExample.model_validate(line) for line in _lines(folder, "kto")]


def positive_paths(trees: list[RolloutTree]) -> list[tuple[str, str]]:
    """(event, last turn) of every positive path, tree by tree."""
    return [(tree.event, turn.id) for tree in trees for turn in positives(tree)]


def misplaced(pairs: list[PreferencePair], trees: list[RolloutTree]) -> list[tuple[str, str, str]]:
    """(event, chosen, rejected) of each pair whose chosen turn is on no positive path, whose rejected turn is on one,
    or whose two turns were not sampled from the same prefix."""
    by_event = {tree.event: tree for tree in trees}
    wrong = []
    for pair in pairs:
        tree, chosen, rejected = by_event[pair.metadata.event], pair.metadata.path, pair.metadata.rejected
        good = {turn.id for leaf in positives(tree) for turn in tree.path(leaf.id)}
        parent = {turn.id: turn.parent for turn in tree.turns}
        if chosen not in good or rejected in good or parent[chosen] != parent[rejected]:
            wrong.append((tree.event, chosen, rejected))
    return wrong


def labelled_turns(pairs: list[PreferencePair]) -> list[tuple[str, str, bool]]:
    """(event, turn, label) of each turn of the pairs, once: the chosen true, the rejected false."""
    return sorted({(pair.metadata.event, pair.metadata.path, True) for pair in pairs}
                  | {(pair.metadata.event, pair.metadata.rejected, False) for pair in pairs})


def _lines(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / "training" / f"{name}.jsonl").read_text().splitlines()]
