"""The example chatbots' configs (examples/chatbots/) load, and the chatbots they name exist and are of their kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.chatbots.selection import import_target
from intellagent.config import load_config
from intellagent.errors import UsageError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "chatbots"


@pytest.mark.parametrize("kind", ["python", "langgraph"])
def test_in_process_examples_name_an_importable_chatbot(kind):
    config = load_config(EXAMPLES / f"{kind}.yml")
    assert config.chatbot.type == kind
    chatbot = import_target(config.chatbot.target)
    if kind == "langgraph":  # a factory, build(tools), that returns a compiled graph
        assert hasattr(chatbot([]), "ainvoke")
    else:
        assert callable(chatbot)


@pytest.mark.parametrize(("kind", "address"), [("http", "chatbot.url"), ("openai", "chatbot.base_url")])
def test_endpoint_examples_point_at_the_example_server(kind, address):
    config = load_config(EXAMPLES / f"{kind}.yml")
    assert config.chatbot.type == kind
    url = config.chatbot.url if kind == "http" else config.chatbot.base_url
    assert url.startswith("http://127.0.0.1:8765/"), f"{address} should match the server's default port"


@pytest.mark.parametrize(("target", "message"), [
    ("no_such_package.bot:reply", "chatbot.target: module no_such_package.bot not found; run from the folder"),
    ("examples.chatbots.desk:no_such_reply", "chatbot.target: examples.chatbots.desk has no attribute no_such_reply"),
    ("examples.chatbots.desk", "write it as package.module:attribute"),
])
def test_a_bad_chatbot_target_is_one_line_naming_the_fix(target, message):
    with pytest.raises(UsageError) as raised:
        import_target(target)
    assert message in str(raised.value) and "\n" not in str(raised.value)
