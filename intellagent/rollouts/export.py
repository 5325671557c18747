"""The training files and their data card, written anew from every event's search tree once the searches end (see
`training_data` for what each file holds)."""

from __future__ import annotations

from intellagent.context import RunContext
from intellagent.files import id_order
from intellagent.rollouts.data_card import data_card
from intellagent.rollouts.training_context import TrainingContext
from intellagent.rollouts.training_data import jsonl, training_data
from intellagent.simulate.control import Control, dialog_environment


def write_training(ctx: RunContext, context: TrainingContext) -> None:
    """training/sft.jsonl, openai-sft.jsonl, preferences.jsonl, kto.jsonl and README.md, from the tree of every
    event searched (in id order)."""
    folder = ctx.folder
    rollouts = {rollout.id: rollout for rollout in folder.rollouts.load()}
    trees = [folder.rollout_trees.item(event_id).load() for event_id in sorted(rollouts, key=id_order)
             if rollouts[event_id].tree is not None]
    data = training_data([tree for tree in trees if tree is not None], context)
    folder.sft.write(jsonl(data.sft))
    folder.openai_sft.write(jsonl(data.openai))
    folder.preferences.write(jsonl(data.pairs))
    folder.kto.write(jsonl(data.kto))
    folder.data_card.write(data_card(data, list(rollouts.values()), context, folder.policies.load()))


def training_context(ctx: RunContext, control: Control | None) -> TrainingContext:
    """The run's policy document, the tools the chatbot held in the paths (played `control`: solo, the user's
    too), each policy's flows, and the margin of a pair."""
    catalog = ctx.folder.policies.load()
    flows = {policy.id: policy.flows for policy in catalog.policies} if catalog else {}
    tools = dialog_environment(ctx.environment, control).tool_schemas()
    return TrainingContext(policy=ctx.environment.policy, tools=tools, flows=flows, margin=ctx.config.rollouts.margin)
