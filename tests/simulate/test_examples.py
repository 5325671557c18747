"""The README's example configs load, and the chatbots they name exist and are of their kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.chatbots.selection import import_target
from intellagent.config import load_config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "chatbots"


@pytest.mark.parametrize("kind", ["python", "langgraph"])
def test_in_process_examples_name_an_importable_chatbot(kind):
    config = load_config(EXAMPLES / f"{kind}.yml")
    assert config.chatbot.type == kind
    chatbot = import_target(config.chatbot.target)
    assert hasattr(chatbot, "ainvoke") if kind == "langgraph" else callable(chatbot)


@pytest.mark.parametrize(("kind", "address"), [("http", "chatbot.url"), ("openai", "chatbot.base_url")])
def test_endpoint_examples_point_at_the_example_server(kind, address):
    config = load_config(EXAMPLES / f"{kind}.yml")
    assert config.chatbot.type == kind
    url = config.chatbot.url if kind == "http" else config.chatbot.base_url
    assert url.startswith("http://127.0.0.1:8765/"), f"{address} should match the server's default port"
