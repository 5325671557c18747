"""The training files of the shop's rollouts: the rewarded path to fine-tune on, and the pair at its branching
turn, in the formats trainers read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import KtoExample, PreferencePair, SftExample
from tests.rollouts.shop_rollouts import (
    ASK,
    DECLINE,
    DONE,
    STALL,
    lines,
    roll_out,
    rollout_config,
    shop_folder,
    shop_script,
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("training")
    config = rollout_config(tmp_path)
    made = shop_folder(tmp_path, config)
    roll_out(config, made, shop_script(config))
    return made


def calls_answered(messages: list[dict[str, Any]]) -> bool:
    """Whether every assistant tool call is followed, before the next assistant message, by its tool result."""
    waiting: set[str] = set()
    for message in messages:
        if message["role"] == "assistant":
            if waiting:
                return False
            waiting = {call["id"] for call in message.get("tool_calls", [])}
        elif message["role"] == "tool":
            waiting.discard(message["tool_call_id"])
    return not waiting


def test_the_sft_file_holds_the_rewarded_path_only(folder: Path) -> None:
    examples = lines(folder, "sft")

    assert [example["metadata"]["path"] for example in examples] == ["0.1.1"]
    replies = [m["content"] for m in examples[0]["messages"] if m["role"] == "assistant" and "content" in m]
    assert replies[1:] == [ASK, DONE]


def test_an_sft_example_is_a_chat_with_the_policy_as_system_prompt_and_every_call_answered(folder: Path) -> None:
    example = lines(folder, "sft")[0]
    SftExample.model_validate(example)
    messages = example["messages"]

    assert messages[0]["role"] == "system" and messages[0]["content"].startswith("# Shop assistant")
    assert [m["role"] for m in messages[1:]] == ["assistant", "user", "assistant", "tool", "assistant", "user",
                                                 "assistant", "tool", "assistant"]
    assert calls_answered(messages)
    made = [call["function"] for m in messages for call in m.get("tool_calls", [])]
    assert [(f["name"], json.loads(f["arguments"])) for f in made] == [("get_order", {"order_id": "A1"}),
                                                                        ("cancel_order", {"order_id": "A1"})]
    assert {tool["function"]["name"] for tool in example["tools"]} == {"get_order", "cancel_order", "transfer_to_human"}


def test_a_record_names_its_event_policies_and_reward(folder: Path) -> None:
    meta = lines(folder, "sft")[0]["metadata"]

    assert (meta["event"], meta["policies"], meta["reward"]) == ("S001", ["P1"], 1.0)


def test_the_preference_file_pairs_the_careful_turn_with_the_declining_one_at_each_branching(folder: Path) -> None:
    pairs = [PreferencePair.model_validate(pair) for pair in lines(folder, "preferences")]

    assert [(p.metadata.path, p.metadata.rejected) for p in pairs] == [("0.1", "0.2"), ("0.1.1", "0.1.2")]
    first = pairs[0]
    assert first.prompt[-1].role == "user" and first.prompt[-1].content == "Please cancel my order A1."
    assert first.chosen[-1].content == ASK and first.rejected[-1].content == DECLINE
    assert [m.role for m in first.chosen] == ["assistant", "tool", "assistant"]
    assert (first.metadata.reward, first.metadata.rejected_reward) == (1.0, 0.0)


def test_the_second_pair_continues_the_prompt_of_the_first(folder: Path) -> None:
    first, second = lines(folder, "preferences")

    assert second["prompt"][: len(first["prompt"])] == first["prompt"]
    assert second["prompt"][len(first["prompt"]):-1] == first["chosen"]


def test_the_kto_file_labels_each_paired_turn_once(folder: Path) -> None:
    examples = [KtoExample.model_validate(example) for example in lines(folder, "kto")]

    assert [(e.metadata.path, e.label) for e in examples] == [("0.1", True), ("0.2", False), ("0.1.1", True),
                                                              ("0.1.2", False)]
    assert all(e.completion and e.prompt[-1].role == "user" for e in examples)


def test_a_sibling_that_also_leads_to_a_rewarded_path_is_no_negative(tmp_path: Path) -> None:
    config = rollout_config(tmp_path)
    made = shop_folder(tmp_path, config)

    roll_out(config, made, shop_script(config, other=STALL), stages=("rollouts",))

    assert [example["metadata"]["path"] for example in lines(made, "sft")] == ["0.1.1", "0.2.1.1"]
    pairs = [(pair["metadata"]["path"], pair["metadata"]["rejected"]) for pair in lines(made, "preferences")]
    assert pairs == [("0.1.1", "0.1.2"), ("0.2.1", "0.2.2"), ("0.2.1.1", "0.2.1.2")]
