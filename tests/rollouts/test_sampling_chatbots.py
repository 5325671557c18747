"""Which chatbots the rollouts can sample: the llm_agent and openai endpoints; any other is refused in one line
before the run spends a call."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from intellagent.artifacts import STAGES
from intellagent.chatbots import SamplingChatbot, check_sampling
from intellagent.chatbots.llm_agent import LLMAgent
from intellagent.chatbots.openai_chat import OpenAIChatbot
from intellagent.cli import main
from intellagent.errors import UsageError
from intellagent.pipeline import ROLLOUTS
from tests.simulate.scripted_dialogs import shop_config, shop_settings


@pytest.mark.parametrize(("chatbot", "flag"), [
    ({"type": "http", "url": "http://127.0.0.1:9/reply"}, "http"),
    ({"type": "python", "target": "tests.rollouts.test_sampling_chatbots:never_called"}, "python"),
])
def test_rolling_out_a_chatbot_that_cannot_sample_is_a_one_line_error_before_any_call(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], chatbot: dict[str, str], flag: str) -> None:
    settings = shop_settings(chatbot=chatbot)
    settings["llm"] = "openai:gpt-4o-mini"  # no key: a call would fail otherwise
    config = tmp_path / "shop.yml"
    config.write_text(yaml.safe_dump(settings))

    code = main(["--config", str(config), "--rollouts", "--output", str(tmp_path / "run"), "--no-progress"])

    err = capsys.readouterr().err
    assert code == 2
    assert f"type {flag!r} cannot be sampled" in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


def never_called(messages: list[dict[str, str]]) -> str:
    """A chatbot of the python type: it cannot be sampled."""
    raise AssertionError("no dialog is played")


def test_a_chatbot_object_without_sampling_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot be sampled"):
        check_sampling(shop_config(tmp_path), never_called)


def test_the_llm_agent_and_the_openai_endpoint_sample() -> None:
    assert issubclass(LLMAgent, SamplingChatbot) and issubclass(OpenAIChatbot, SamplingChatbot)


def test_naming_the_rollouts_stage_asks_for_the_rollouts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "shop.yml"
    config.write_text(yaml.safe_dump(shop_settings(chatbot={"type": "http", "url": "http://127.0.0.1:9/reply"})))

    code = main(["--config", str(config), "--stages", "simulate,rollouts", "--output", str(tmp_path / "run")])

    assert code == 2 and "cannot be sampled" in capsys.readouterr().err


def test_a_run_without_rollouts_does_not_check_whether_the_chatbot_samples(tmp_path: Path) -> None:
    config = shop_config(tmp_path, chatbot={"type": "http", "url": "http://127.0.0.1:9/reply"})

    assert not ROLLOUTS.runs_in(config, STAGES)
    assert ROLLOUTS.runs_in(config.model_copy(update={"rollouts": config.rollouts.model_copy(
        update={"enabled": True})}), STAGES)
