"""A scripted model that 'reads' a policy document, and helpers to run the describe stage on it."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import PolicyCatalog, Scenario
from intellagent.config import Config
from intellagent.llm import Request, ScriptedLLM
from intellagent.runner import RunResult, execute

WORDS = ("check", "refund", "order", "parcel", "invoice", "account", "address", "voucher")


def distinct_rule(number: int) -> str:
    """A rule text that shares no word with any other number's, so no two are ever merged."""
    return " ".join(f"{word}{number}" for word in WORDS)


def rules(count: int, *, start: int = 1, category: str = "company_policy", challenge: int = 2) -> list[dict]:
    """`count` distinct policy answers."""
    return [
        {"text": distinct_rule(number), "category": category, "challenge": challenge}
        for number in range(start, start + count)
    ]


def edge_ids(request: Request) -> dict[str, list[str]]:
    """The scoring call's schema read back: each scorer → the policy ids it must score."""
    schema = request.body["response_format"]["json_schema"]["schema"]
    defs = schema.get("$defs", {})
    return {
        scorer: list(defs[prop["$ref"].rsplit("/", 1)[-1]]["properties"])
        for scorer, prop in schema["properties"].items()
    }


def scores_by(weight: Callable[[str, str], int]) -> Callable[[Request], dict]:
    """A scoring reply that gives `weight(scorer, other)` to every pair it is asked about."""

    def reply(request: Request) -> dict:
        return {
            scorer: {other: weight(scorer, other) for other in others} for scorer, others in edge_ids(request).items()
        }

    return reply


def scenario_reply(request: Request) -> dict:
    """A scenario naming the rules it was given, so each sample gets its own text; when the prompt shows earlier
    scenarios of the same rules, it tells of another situation, numbered after the last of them."""
    block = request.last.split("in no particular order:\n", 1)[1].split("\n\n", 1)[0]
    listed = [line.removeprefix("- ") for line in block.splitlines()]
    earlier = request.last.split("the most recent of them are below", 1)[1:]
    situation = ""
    if earlier:
        numbers = [int(n) for n in re.findall(r"\(situation (\d+)\)", earlier[0])]
        situation = f" (situation {max(numbers, default=1) + 1})"
    return {
        "description": "A customer whose situation touches: " + "; ".join(listed) + situation,
        "entitled": None,
        "expected_behaviour": "The assistant keeps every one of these: " + "; ".join(listed),
    }


def script_document(
    script: ScriptedLLM,
    *,
    flows: dict[str, list[dict]],
    weight: Callable[[str, str], int] = lambda scorer, other: 5,
    scenario: Callable[[Request], Any] | None = None,
    checks: dict[str, list[str]] | None = None,
    procedure: Callable[[Request], Any] | dict | None = None,
    assertions: Callable[[Request], Any] | dict | None = None,
) -> ScriptedLLM:
    """Script every describe call: the flows (name → their policy answers), the checks' policies, the flows'
    procedures and the policies' assertions (none by default), the scores, the scenarios."""
    script.on(schema="TaskAnswer", reply={"task_description": "A shop assistant that handles orders and refunds."})
    flow_answers = [{"name": name, "description": f"The user wants {name}."} for name in flows]
    script.on(schema="FlowsAnswer", reply={"flows": flow_answers})
    for name, answers in flows.items():
        script.on(schema="PoliciesAnswer", when=lambda r, n=name: f"Flow: {n}:" in r.text, reply={"policies": answers})
    script.on(schema="CoveringRules", reply={"policies": []})  # the passages no rule came from hold none
    script.on(schema="CheckPolicies", reply=checks or {})
    script.on(schema="SopAnswer", reply=procedure or {"steps": [], "edges": []})
    script.on(schema="AssertionsAnswer", reply=assertions or {"assertions": []})
    script.on(schema="EdgeScores", reply=scores_by(weight))
    script.on(schema="ScenarioAnswer", reply=scenario or scenario_reply)
    return script


def configure(config: Config, **settings: Any) -> Config:
    """`config` with top-level settings (samples, seed, …) and describe settings (the others) replaced."""
    top = {key: settings.pop(key) for key in list(settings) if key in Config.model_fields}
    return config.model_copy(update={**top, "describe": config.describe.model_copy(update=settings)})


def run_describe(config: Config, folder: Path, script: ScriptedLLM) -> RunResult:
    """Run the describe stage alone into `folder`."""
    return asyncio.run(execute(config, output=folder, stages=("describe",), script=script, progress=False))


def catalog_of(folder: Path) -> PolicyCatalog:
    return PolicyCatalog.model_validate_json((folder / "policies.json").read_text())


def graph_of(folder: Path) -> dict:
    return json.loads((folder / "graph.json").read_text())


def scenarios_of(folder: Path) -> list[Scenario]:
    return [Scenario.model_validate_json(line) for line in (folder / "scenarios.jsonl").read_text().splitlines()]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The run folder of a test."""
    return tmp_path / "run"
