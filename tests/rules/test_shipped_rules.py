"""The shipped rules files (the airline's and the telecom's): every rule stands, and the main job's config reads
its file with no compile call."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from intellagent.config import apply_overrides, load_config
from intellagent.environment import load_environment
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.rules.review import reviewed
from intellagent.rules.rules_file import read_rules
from intellagent.run_folder import RunFolder
from intellagent.runner import execute


@pytest.mark.parametrize(("example", "at_least"), [("airline", 10), ("telecom", 6)])
def test_every_shipped_rule_passes_its_examples_and_fits_the_domain(example: str, at_least: int) -> None:
    config = load_config(example)
    assert config.environment.rules is not None

    found = reviewed(read_rules(config.environment.rules), load_environment(config.environment),
                     folder=config.environment.rules.parent)

    assert found.refused == [] and len(found.held) >= at_least


def test_the_main_jobs_config_reads_the_shipped_rules_and_compiles_none(tmp_path: Path) -> None:
    script = ScriptedLLM().on(reply=careless_answers(seed=3))
    settings = apply_overrides(load_config("airline"), llm="scripted", chatbot_llm="scripted", samples=1)

    asyncio.run(execute(settings, output=tmp_path, script=script, stages=("describe",), progress=False))

    catalog = RunFolder(tmp_path).policies.require()
    assert script.calls(schema="AssertionsAnswer") == []
    shipped = read_rules(settings.environment.rules).rules
    assert [held.rule.id for held in catalog.rules] == [rule.id for rule in shipped]
    assert all(catalog.checks.get(held.rule.check) == held.policies for held in catalog.rules)
    assert not RunFolder(tmp_path).proposed_rules.path.exists()
