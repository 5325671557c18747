"""Preference pairs: where a turn of a positive path and a sibling part, the chatbot's next message in each.

At every turn of a positive path (`positives`), each sibling (a turn sampled after the same conversation) is
weighed against it. The sibling makes a pair only when something says it is worse:

- **outcome**: its path ended with it, the outcome failed, and its simulated user was at no fault;
- **program**: a check, rule or compiled assertion found a breach in it;
- **margin**: its partial reward (the share of the expected calls its path matched) is lower than the chosen
  turn's by `rollouts.margin` or more.

A sibling within the margin that no verdict condemns is a tie: the beam may have dropped it only to keep its
width, and an answer as good as the chosen one is no negative. A sibling through which a positive path also runs
is another good way (as JOSH has it). Two turns that say and call the same are one answer.

A pair holds the conversation up to where the two part (`prompt`: the system prompt, the conversation before the
turn, and whatever both turns said and called alike, a shared call's result included), and the chatbot's next
message in each (`chosen`, `rejected`): its words or its one tool call, never the call's result, which the chatbot
does not write.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from intellagent.artifacts import RolloutTree, RolloutTurn
from intellagent.artifacts.training import ChatMessage, PairSource, PreferencePair
from intellagent.rollouts.chat import chat, reply, said
from intellagent.rollouts.positives import positives
from intellagent.rollouts.training_context import TrainingContext

ALSO_GOOD = "a positive path runs through it too: another good way, no negative"
TIE = "its partial reward is within the margin of the chosen's and no verdict condemns it: a tie"
SAME = "it says and calls what the chosen turn does: the same answer"
SILENT = "where it parts from the chosen turn, one of the two says and calls nothing"
DUPLICATE = "the pair repeats one already made"
UNPAIRED = (ALSO_GOOD, TIE, SAME, SILENT, DUPLICATE)
"""Why a sibling of a positive path's turn makes no pair with it."""

Evidence = Literal["margin", "outcome", "program"]


def preference_pairs(tree: RolloutTree, context: TrainingContext,
                     unpaired: Counter[str] | None = None) -> list[PreferencePair]:
    """Every pair of `tree` (see the module's docstring), each once; `unpaired` counts the siblings that made
    none, by why."""
    unpaired = Counter() if unpaired is None else unpaired
    good = {turn.id for leaf in positives(tree) for turn in tree.path(leaf.id)}
    pairs: dict[str, PreferencePair] = {}
    for chosen in (turn for turn in tree.turns if turn.id in good and turn.parent is not None):
        history = context.conversation(tree.path(chosen.parent))  # type: ignore[arg-type]
        for rejected in tree.children(chosen.parent):
            if rejected.id == chosen.id:
                continue
            pair = _pair(tree, context, history, chosen, rejected, good)
            if isinstance(pair, str):
                unpaired[pair] += 1
                continue
            key = said([*pair.prompt, *pair.chosen]) + said(pair.rejected)
            if key in pairs:
                unpaired[DUPLICATE] += 1
                continue
            pairs[key] = pair
    return list(pairs.values())


def _pair(tree: RolloutTree, context: TrainingContext, history: list[ChatMessage], chosen: RolloutTurn,
          rejected: RolloutTurn, good: set[str]) -> PreferencePair | str:
    """The pair of `chosen` and its sibling `rejected`, or why they make none (one of `UNPAIRED`)."""
    if rejected.id in good:
        return ALSO_GOOD
    mine, theirs = chat(reply(chosen)), chat(reply(rejected))
    shared = _shared(mine, theirs)
    if shared == len(mine) == len(theirs):
        return SAME
    if shared == len(mine) or shared == len(theirs) or not (mine[shared].trained and theirs[shared].trained):
        return SILENT
    evidence = worse(chosen, rejected, context.margin)
    if evidence is None:
        return TIE
    source = PairSource(**context.source(tree, chosen, chosen.reward).model_dump(), rejected=rejected.id,
                        rejected_reward=rejected.reward, evidence=evidence, turn=chosen.turn)
    return PreferencePair(prompt=[*history, *mine[:shared]], chosen=[mine[shared]], rejected=[theirs[shared]],
                          tools=context.tools, metadata=source)


def worse(chosen: RolloutTurn, rejected: RolloutTurn, margin: float) -> Evidence | None:
    """What says `rejected` is worse than its sibling `chosen`, the strongest first; None: nothing does (a tie)."""
    if rejected.ended is not None and rejected.grade is not None and not rejected.grade.passed \
            and not rejected.user_faults:
        return "outcome"
    if rejected.findings:
        return "program"
    # Partial rewards are shares of a few expected calls: the margin is compared with a rounding error's room.
    return "margin" if chosen.reward - rejected.reward >= margin - 1e-9 else None


def _shared(mine: list[ChatMessage], theirs: list[ChatMessage]) -> int:
    """How many leading messages two turns have alike (their calls' ids aside)."""
    count = 0
    for first, second in zip(mine, theirs, strict=False):
        if said([first]) != said([second]):
            break
        count += 1
    return count
