"""Config files: valid ones load, and every mistake is one line that names the key and the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.config import apply_overrides, load_config
from intellagent.errors import UsageError

MINIMAL = """\
environment:
  policy: policy.md
  schema: intellagent.db_schemas.airline.schema
  tools: intellagent.db_schemas.airline.tools
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "policy.md").write_text("# Policy\n")
    path = tmp_path / "run.yml"
    path.write_text(text)
    return path


def problem(tmp_path: Path, text: str) -> str:
    with pytest.raises(UsageError) as raised:
        load_config(write(tmp_path, text))
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_minimal_config_takes_defaults_and_resolves_paths(tmp_path):
    config = load_config(write(tmp_path, MINIMAL))
    assert config.name == "run"
    assert config.environment.policy == (tmp_path / "policy.md").resolve()
    assert config.llm.for_role("user").provider == "local"
    assert config.chatbot_llm().provider == "local"


def test_role_specs_accept_strings_and_blocks(tmp_path):
    config = load_config(write(tmp_path, MINIMAL + "llm:\n  default: openai:gpt-4o-mini\n"
                               "  critique: {provider: openai, model: gpt-4o, temperature: 0.2}\n"))
    assert config.llm.for_role("user").model == "gpt-4o-mini"
    assert config.llm.for_role("critique").model == "gpt-4o"
    assert config.llm.for_role("critique").temperature == 0.2


def test_unknown_key_is_named(tmp_path):
    message = problem(tmp_path, MINIMAL + "sampels: 3\n")
    assert "unknown key `sampels`" in message and "run.yml" in message


def test_nested_unknown_key_is_named_with_its_path(tmp_path):
    assert "unknown key `simulate.max_turn`" in problem(tmp_path, MINIMAL + "simulate:\n  max_turn: 3\n")


def test_wrong_type_is_named(tmp_path):
    message = problem(tmp_path, MINIMAL + "samples: many\n")
    assert "`samples`" in message and "many" in message


def test_missing_key_is_named(tmp_path):
    assert "missing key `environment.tools`" in problem(tmp_path, "environment:\n  policy: policy.md\n  schema: x\n")


def test_missing_policy_file_is_named(tmp_path):
    message = problem(tmp_path, MINIMAL.replace("policy.md", "nowhere.md"))
    assert "environment.policy" in message and "nowhere.md" in message


def test_bad_yaml_names_the_line(tmp_path):
    assert "line" in problem(tmp_path, MINIMAL + "samples: [1\n")


def test_bad_spec_says_what_is_accepted(tmp_path):
    message = problem(tmp_path, MINIMAL + "llm: claude\n")
    assert "openai:MODEL" in message


def test_chatbot_type_needs_its_field(tmp_path):
    assert "needs `url`" in problem(tmp_path, MINIMAL + "chatbot:\n  type: http\n")


def test_a_switch_written_yes_or_no_unquoted_is_that_switch(tmp_path):
    # YAML reads an unquoted yes or no as a boolean: each switch takes it as the word it was written as.
    config = load_config(write(tmp_path, MINIMAL + "chatbot: {native_tools: no}\n"
                               "describe: {procedures: yes, assertions: no}\npopulate: {lean: no}\n"
                               "simulate: {user_thoughts: yes, goal_question: no}\n"))
    assert (config.chatbot.native_tools, config.populate.lean) == ("no", "no")
    assert (config.simulate.user_thoughts, config.simulate.goal_question) == ("yes", "no")
    assert config.describe.programs("local") == (True, False)


def test_a_switch_names_its_three_values(tmp_path):
    message = problem(tmp_path, MINIMAL + "simulate: {user_thoughts: sometimes}\n")
    assert "`simulate.user_thoughts`" in message and "'auto', 'yes' or 'no'" in message


def test_rollouts_at_temperature_zero_are_refused_with_the_reason(tmp_path):
    message = problem(tmp_path, MINIMAL + "rollouts: {enabled: true, temperature: 0}\n")
    assert "`rollouts.temperature`" in message and "the same answer" in message and "above 0" in message


def test_a_pair_margin_of_zero_is_refused(tmp_path):
    assert "`rollouts.margin`" in problem(tmp_path, MINIMAL + "rollouts: {margin: 0}\n")


def test_missing_config_file_lists_examples():
    with pytest.raises(UsageError, match=r"airline\.yml"):
        load_config("no-such-config.yml")


def test_bare_name_finds_the_example_config():
    assert load_config("airline.yml").name == "airline"


def test_overrides_replace_every_role_and_revalidate(tmp_path):
    config = load_config(write(tmp_path, MINIMAL + "llm:\n  user: openai:gpt-4o\n"))
    changed = apply_overrides(config, llm="openai:gpt-4o-mini", samples=7, chatbot_llm="local")
    assert changed.llm.for_role("user").model == "gpt-4o-mini"
    assert changed.samples == 7
    assert changed.chatbot_llm().provider == "local"
    with pytest.raises(UsageError, match="samples"):
        apply_overrides(config, samples=0)
