"""The training files load as the documented commands load them, and every record renders through Qwen2.5's and
Llama 3.1's chat templates with its tools, a trainer learning only the chatbot's own words and calls: on the shop,
the store and the airline."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.llm.careless import careless_answers
from intellagent.rollouts.positives import candidate_shortfall, positives
from tests.rollouts.chat_templates import LLAMA, QWEN, TEMPLATES_USED, ChatTemplate, trained_spans
from tests.rollouts.shop_rollouts import STALL, records, roll_out, rollout_config, shop_folder, shop_script, tree
from tests.rollouts.trainer_files import TRL_FILES, card_counts, file_counts, trl_records, untrained_words, written

DOMAINS = ("shop_rolled_out", "store_rolled_out", "airline_rolled_out")


@pytest.fixture(params=DOMAINS)
def folder(request: pytest.FixtureRequest) -> Path:
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("name", sorted(TRL_FILES))
def test_each_file_loads_with_the_columns_its_trainer_reads_and_its_messages_as_written(
        folder: Path, name: str, tmp_path: Path) -> None:
    records = trl_records(folder, name, tmp_path)
    lines = written(folder, name)

    assert records, f"{name}.jsonl is empty"
    conversations = [key for key in ("messages", "prompt", "chosen", "rejected", "completion") if key in records[0]]
    for loaded, line in zip(records, lines, strict=True):
        assert {key: loaded[key] for key in conversations} == {key: line[key] for key in conversations}


@pytest.mark.parametrize("template", TEMPLATES_USED, ids=lambda template: template.name)
@pytest.mark.parametrize("name", sorted(TRL_FILES))
def test_every_record_renders_and_its_trained_spans_hold_only_the_chatbots_words_and_calls(
        folder: Path, name: str, template: ChatTemplate, tmp_path: Path) -> None:
    for record in trl_records(folder, name, tmp_path):
        assert untrained_words(template, record) == []


@pytest.mark.parametrize("template", TEMPLATES_USED, ids=lambda template: template.name)
def test_a_call_is_rendered_as_a_json_object_once_never_as_escaped_text(shop_rolled_out: Path,
                                                                        template: ChatTemplate) -> None:
    (example,) = written(shop_rolled_out, "sft")

    calls = [span for message, span in trained_spans(template, example) if "tool_calls" in message]
    assert len(calls) == 2 and all('{"order_id": "A1"}' in span and '\\"' not in span for span in calls)


def test_the_tools_reach_the_templates_prompt(shop_rolled_out: Path) -> None:
    (example,) = written(shop_rolled_out, "sft")

    assert '"name": "cancel_order"' in QWEN.render(example["messages"], example["tools"])
    assert '"name": "cancel_order"' in LLAMA.render(example["messages"], example["tools"])


def test_a_pairs_trained_span_is_the_chatbots_next_message_not_the_tools_result(shop_rolled_out: Path) -> None:
    first = written(shop_rolled_out, "preferences")[0]

    (chosen, rejected) = [span for _, span in trained_spans(QWEN, first)]
    assert chosen == '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "A1"}}\n</tool_call><|im_end|>\n'
    assert rejected == "Sorry, I cannot help with orders.<|im_end|>\n"


def test_a_record_that_trained_the_tools_result_would_be_caught(shop_rolled_out: Path) -> None:
    first = written(shop_rolled_out, "preferences")[0]
    second = written(shop_rolled_out, "preferences")[1]
    answered = {**first, "chosen": second["prompt"][len(first["prompt"]):len(first["prompt"]) + 2]}  # call + result

    assert untrained_words(QWEN, answered) != []


@pytest.fixture(scope="module")
def careless_judge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop rolled out with a careless judge: valid verdicts, arbitrary in content."""
    tmp_path = tmp_path_factory.mktemp("careless-judge")
    config = rollout_config(tmp_path, beam=4, branch=3)
    folder = shop_folder(tmp_path, config)
    roll_out(config, folder, shop_script(config, other=STALL, judge=careless_answers(seed=12)))
    return folder


def test_with_a_careless_judge_the_files_still_render_and_the_card_counts_them(careless_judge: Path) -> None:
    searched = tree(careless_judge)
    card = (careless_judge / "training" / "README.md").read_text()

    assert card_counts(careless_judge) == file_counts(careless_judge)
    assert f"{len(searched.ended())} paths ended, {len(positives(searched))} of them positives" in card
    assert records(careless_judge)[0].rewarded == len(positives(searched)) >= file_counts(careless_judge)["sft.jsonl"]
    assert all(leaf.judged is not None for leaf in searched.ended() if candidate_shortfall(searched, leaf) is None)
    assert all(file_counts(careless_judge)[f"{name}.jsonl"] for name in TRL_FILES)
    for name in TRL_FILES:
        for record in written(careless_judge, name):
            assert untrained_words(QWEN, record) == [] and untrained_words(LLAMA, record) == []
