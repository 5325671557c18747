"""A careless model, valid against every schema and arbitrary in content, plays a whole run on two domains (the
second also with its outcomes drafted, as on the embedded model): describe writes every scenario asked for, and the
run goes on to its report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from intellagent.config import apply_overrides, load_config
from intellagent.errors import UsageError
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.conftest import ROOT

CLINIC = ROOT / "tests" / "populate" / "clinic"
CLINIC_ENVIRONMENT = {"policy": "clinic.md", "schema": "schema.py", "tools": "tools.py", "validators": "validators.py",
                      "background": "background.py"}


def config(domain: str, tmp_path: Path):
    if domain == "airline":
        return load_config("airline")
    environment = {key: str(CLINIC / name) for key, name in CLINIC_ENVIRONMENT.items()}
    return load_config({"name": "clinic", "environment": environment, "llm": "local", "samples": 3,
                        "describe": {"graph_weights": "flows"}}, base_dir=tmp_path)


@pytest.mark.parametrize(("domain", "drafted"), [("airline", "auto"), ("clinic", "auto"), ("clinic", "yes")])
def test_a_careless_model_runs_from_the_document_to_the_report(domain: str, drafted: str, tmp_path: Path) -> None:
    for seed in range(1, 6):  # the first seed whose answers list a rule: now and then the double lists none
        answers = careless_answers(seed=seed)
        script = ScriptedLLM().on(reply=answers)
        settings = apply_overrides(config(domain, tmp_path), llm="scripted", chatbot_llm="scripted", samples=6,
                                   seed=seed)
        settings.populate.drafted_outcomes = drafted  # yes: outcomes drafted as on the embedded model
        folder = tmp_path / f"run-{seed}"
        try:
            result = asyncio.run(execute(settings, output=folder, script=script, progress=False))
        except UsageError as error:
            assert "no rule found in this policy document" in str(error)
            assert all(not answers(request)["policies"] for request in script.calls(schema="PoliciesAnswer"))
            continue
        break
    else:
        pytest.fail("the careless double listed no rule for any seed")

    assert result.exit_code == 0
    scenarios = RunFolder(folder).scenarios.load()
    assert [s.status for s in scenarios] == ["ok"] * 6
    dialogs = RunFolder(folder).dialogs.load()
    report = json.loads((folder / "report.json").read_text())
    assert report["overall"]["dialogs"] == len(dialogs) > 0
    # Every user played a persona, whatever the careless model made of it, and the report counts each dialog once.
    assert all(scenario.persona is not None for scenario in scenarios)
    assert all(dialog.persona is not None for dialog in dialogs)
    assert sum(persona["dialogs"] for persona in report["personas"]["results"]) == len(dialogs)
    ran = [dialog for dialog in dialogs if dialog.status != "error"]
    assert ran and all(dialog.audit is not None for dialog in ran)
    assert report["simulator"]["audited"] == sum(dialog.mutant is None for dialog in ran)
    if drafted == "yes":  # a whole proposal is asked for the refusals alone
        events = [event for event in RunFolder(folder).events.load() if event.status == "ok"]
        asked = script.calls(schema="ExpectedOutcomeProposal")
        assert all("the rules allow it, so the calls make it" not in request.text for request in asked)
        assert any(event.entitled is not None for event in events)
