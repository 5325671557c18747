"""Whatever a model answers, describe writes every scenario asked for: the careless double on two domains.

The careless double answers every request with JSON valid against its schema and arbitrary in content:
a handful of rules with random challenge scores, scenarios of a few random words. Describe must still
write N scenarios for any N, or, when the double lists no rule at all, say so in one line; the flows'
procedures and the compiled assertions it leaves are valid, or there are none.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from intellagent.artifacts import PolicyCatalog, Scenario
from intellagent.config import Config, load_config
from intellagent.describe.assertion_checks import problems
from intellagent.describe.vocabulary import Vocabulary
from intellagent.environment import load_environment
from intellagent.errors import UsageError
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.runner import execute
from tests.conftest import ROOT

CLINIC = ROOT / "tests" / "populate" / "clinic"
DOMAINS = {
    "airline": {"policy": str(ROOT / "policies" / "airline.md"), "schema": "intellagent.db_schemas.airline.schema",
                "tools": "intellagent.db_schemas.airline.tools"},
    "clinic": {"policy": str(CLINIC / "clinic.md"), "schema": str(CLINIC / "schema.py"),
               "tools": str(CLINIC / "tools.py")},
}
SEEDS = range(10)
SIZES = (1, 6, 25, 50)


def config(tmp_path: Path, domain: str, *, samples: int, seed: int) -> Config:
    return load_config({"name": "careless", "environment": DOMAINS[domain], "llm": "scripted", "seed": seed,
                        "samples": samples, "workers": 4, "describe": {"graph_weights": "flows"}}, base_dir=tmp_path)


def describe(cfg: Config, folder: Path, script: ScriptedLLM) -> list[Scenario]:
    asyncio.run(execute(cfg, output=folder, stages=("describe",), script=script, progress=False))
    return [Scenario.model_validate_json(line) for line in (folder / "scenarios.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_careless_model_gets_every_scenario_asked_for(tmp_path: Path, domain: str) -> None:
    described = 0
    for seed in SEEDS:
        answers = careless_answers(seed=seed)
        script = ScriptedLLM().on(reply=answers)
        first = tmp_path / f"{seed}-extracted"
        try:
            describe(config(tmp_path, domain, samples=1, seed=seed), first, script)
        except UsageError as error:  # allowed only when the double really listed no rule for any flow
            assert "no rule found in this policy document" in str(error)
            assert all(not answers(request)["policies"] for request in script.calls(schema="PoliciesAnswer"))
            continue
        described += 1
        for samples in SIZES:
            folder = tmp_path / f"{seed}-{samples}"
            shutil.copytree(first, folder)  # the same policies and graph, other scenarios
            (folder / "scenarios.jsonl").unlink()
            scenarios = describe(config(tmp_path, domain, samples=samples, seed=seed), folder, script)
            assert [s.id for s in scenarios] == [f"S{n:03d}" for n in range(1, samples + 1)], (seed, samples)
            assert [s.status for s in scenarios] == ["ok"] * samples, (seed, samples)
            texts = {}
            for scenario in scenarios:  # a repeated set, another text
                assert texts.setdefault((tuple(scenario.policies), scenario.description), scenario.id) == scenario.id
    assert described >= 8  # the double lists no rule now and then, not often


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_careless_model_leaves_valid_procedures_and_assertions_or_none(tmp_path: Path, domain: str) -> None:
    environment = load_environment(config(tmp_path, domain, samples=1, seed=0).environment)
    vocabulary = Vocabulary.of(environment)
    read = 0
    for seed in SEEDS[:4]:
        script = ScriptedLLM().on(reply=careless_answers(seed=seed))
        folder = tmp_path / f"{seed}"
        try:
            describe(config(tmp_path, domain, samples=1, seed=seed), folder, script)
        except UsageError:  # no rule listed: nothing to read a procedure of
            continue
        catalog = PolicyCatalog.model_validate_json((folder / "policies.json").read_text())
        assert len(script.calls(schema="SopAnswer")) == len(catalog.flows)
        for assertion in catalog.assertions:
            assert problems(assertion, vocabulary, catalog.policy(assertion.policy)) == []
        for flow in catalog.flows:
            if flow.sop is not None:
                read += 1
                steps = [step.id for step in flow.sop.steps]
                assert all(steps.index(edge.before) < steps.index(edge.after) for edge in flow.sop.edges)
                assert all(step.tool is None or step.tool in vocabulary.tools for step in flow.sop.steps)
    assert read  # the double's procedures are kept when they are valid
