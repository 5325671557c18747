"""The training files of the shop's rollouts: the positive path to fine-tune on, in TRL's format and OpenAI's, and
the pair where each of its turns parts from a failing sibling, in the formats trainers read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import KtoExample, PreferencePair, SftExample
from intellagent.artifacts.training import OpenAiSftExample
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


@pytest.fixture
def folder(shop_rolled_out: Path) -> Path:
    return shop_rolled_out


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


def test_the_sft_file_holds_the_positive_path_only(folder: Path) -> None:
    examples = lines(folder, "sft")

    assert [example["metadata"]["path"] for example in examples] == ["0.1.1"]
    replies = [m["content"] for m in examples[0]["messages"] if m["role"] == "assistant" and "content" in m]
    assert replies == [ASK, DONE]


def test_an_sft_example_starts_at_the_users_first_message_and_answers_every_call(folder: Path) -> None:
    example = lines(folder, "sft")[0]
    SftExample.model_validate(example)
    messages = example["messages"]

    assert messages[0]["role"] == "system" and messages[0]["content"].startswith("# Shop assistant")
    assert [m["role"] for m in messages[1:]] == ["user", "assistant", "tool", "assistant", "user", "assistant", "tool",
                                                 "assistant"]
    assert calls_answered(messages)
    assert {tool["function"]["name"] for tool in example["tools"]} == {"get_order", "cancel_order", "transfer_to_human"}


def test_an_sft_examples_calls_hold_their_arguments_as_objects_one_call_per_message(folder: Path) -> None:
    messages = lines(folder, "sft")[0]["messages"]

    calling = [m for m in messages if "tool_calls" in m]
    assert all(len(m["tool_calls"]) == 1 and "content" not in m for m in calling)
    assert [(m["tool_calls"][0]["function"]["name"], m["tool_calls"][0]["function"]["arguments"]) for m in calling] \
        == [("get_order", {"order_id": "A1"}), ("cancel_order", {"order_id": "A1"})]


def test_the_openai_file_holds_the_same_conversations_with_arguments_as_json_text_and_each_reply_trained(
        folder: Path) -> None:
    (openai,) = lines(folder, "openai-sft")
    (trl,) = lines(folder, "sft")
    OpenAiSftExample.model_validate(openai)

    assert set(openai) == {"messages", "tools"}
    assert [m["role"] for m in openai["messages"]] == [m["role"] for m in trl["messages"]]
    assert [m.get("weight") for m in openai["messages"]] == [1 if m["role"] == "assistant" else None
                                                             for m in openai["messages"]]
    arguments = [call["function"]["arguments"] for m in openai["messages"] for call in m.get("tool_calls", [])]
    assert arguments == ['{"order_id": "A1"}', '{"order_id": "A1"}']


def test_a_record_names_its_event_policies_kind_and_reward(folder: Path) -> None:
    meta = lines(folder, "sft")[0]["metadata"]

    assert (meta["event"], meta["policies"], meta["kind"], meta["reward"]) == ("S001", ["P1"], "delivery", 1.0)


def test_a_pair_holds_the_whole_conversation_and_only_the_chatbots_next_message_in_each_turn(folder: Path) -> None:
    pairs = [PreferencePair.model_validate(pair) for pair in lines(folder, "preferences")]

    assert [(p.metadata.path, p.metadata.rejected, p.metadata.evidence) for p in pairs] == [
        ("0.1", "0.2", "outcome"), ("0.1.1", "0.1.2", "outcome")]
    first = pairs[0]
    assert [m.role for m in first.prompt] == ["system", "user"]
    assert first.prompt[-1].content == "Please cancel my order A1."
    assert [(m.role, m.tool_calls[0].function.name) for m in first.chosen if m.tool_calls] == [("assistant",
                                                                                                "get_order")]
    assert len(first.chosen) == 1 and [m.content for m in first.rejected] == [DECLINE]


def test_the_second_pair_goes_on_from_the_first_chosen_call_its_result_and_the_users_answer(folder: Path) -> None:
    first, second = lines(folder, "preferences")

    assert second["prompt"][: len(first["prompt"])] == first["prompt"]
    following = second["prompt"][len(first["prompt"]):]
    assert following[0] == first["chosen"][0]
    assert [m["role"] for m in following] == ["assistant", "tool", "assistant", "user"]
    assert second["chosen"][0]["tool_calls"][0]["function"]["name"] == "cancel_order"


def test_the_kto_file_labels_each_paired_message_once(folder: Path) -> None:
    examples = [KtoExample.model_validate(example) for example in lines(folder, "kto")]

    assert [(e.metadata.path, e.label) for e in examples] == [("0.1", True), ("0.2", False), ("0.1.1", True),
                                                              ("0.1.2", False)]
    assert all(len(e.completion) == 1 and e.completion[0].role == "assistant" for e in examples)


def test_the_data_card_counts_what_the_files_hold(folder: Path) -> None:
    card = (folder / "training" / "README.md").read_text()

    assert "| sft.jsonl | 1 |" in card and "| preferences.jsonl | 2 |" in card
    assert "| kto.jsonl | 4 (2 desirable, 2 undesirable) |" in card
    assert "| 1.00 | 1 |" in card and "| 0.00 | 2 |" in card  # the positive path, the two declining ones
    assert "| an ended path | its outcome failed | 2 |" in card
    assert "| P1 | Rule P1: ask before changing anything. | 1 | 2 | 4 |" in card


def test_a_sibling_that_also_leads_to_a_positive_path_is_no_negative(tmp_path: Path) -> None:
    config = rollout_config(tmp_path)
    made = shop_folder(tmp_path, config)

    roll_out(config, made, shop_script(config, other=STALL), stages=("rollouts",))

    assert [example["metadata"]["path"] for example in lines(made, "sft")] == ["0.1.1", "0.2.1.1"]
    pairs = [(pair["metadata"]["path"], pair["metadata"]["rejected"]) for pair in lines(made, "preferences")]
    assert pairs == [("0.1.1", "0.1.2"), ("0.2.1", "0.2.2"), ("0.2.1.1", "0.2.1.2")]
    card = (made / "training" / "README.md").read_text()
    assert "| a sibling of a positive path's turn | a positive path runs through it too" in card

