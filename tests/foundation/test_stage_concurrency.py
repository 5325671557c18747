"""How many items a stage does at once: the config's `workers`, but one when the embedded model answers everything."""

from __future__ import annotations

import pytest

from intellagent.config import apply_overrides, load_config, resolve_config_path
from intellagent.context import RunContext
from intellagent.llm.embedded import EMBEDDED_SLOTS


def context(chatbot=None, **overrides) -> RunContext:
    config = apply_overrides(load_config(resolve_config_path("airline.yml")), workers=4, **overrides)
    return RunContext(config=config, folder=None, llms=None, usage=None, progress=None, executor=None, chatbot=chatbot)


def test_a_run_on_the_embedded_model_alone_does_one_item_per_slot():
    assert context().workers == EMBEDDED_SLOTS == 1


@pytest.mark.parametrize(
    ("overrides", "chatbot"),
    [
        ({"llm": "openai:gpt-4o-mini"}, None),  # the framework's roles on a hosted model
        ({"chatbot_llm": "openai:gpt-4o-mini"}, None),  # the chatbot under test on one
        ({}, lambda messages: "Hello."),  # a chatbot of the user's own, whose latency other items can overlap
    ],
)
def test_a_run_with_any_other_model_or_chatbot_does_the_configured_number(overrides, chatbot):
    assert context(chatbot, **overrides).workers == 4
