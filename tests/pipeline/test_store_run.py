"""The whole pipeline on the store: describe scripted from the store's rules, every other role and the chatbot
played by the careless double. A poorer run, never a broken one, and every event a coherent world."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import intellagent
from intellagent.artifacts.run_report import Report
from intellagent.environment import load_environment
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.reports.sections.persona_figures import PERSONAS
from intellagent.run_folder import RunFolder
from tests.conftest import world_file
from tests.describe.conftest import script_document
from tests.store import config

RULES = {
    "Cancel or change an order": [
        {"text": "Before you cancel, remove or exchange anything, say exactly what will change and wait for the "
                 "customer to answer yes.", "category": "user_consent", "challenge": 3},
        {"text": "An item can be taken out of a pending order, as long as the order keeps at least one item.",
         "category": "reasoning", "challenge": 4},
        {"text": "A delivered item can be exchanged for another available variant of the same product.",
         "category": "reasoning", "challenge": 3},
    ],
    "Look an order up": [
        {"text": "Before you look up anything of an account, find the customer by their e-mail address.",
         "category": "authentication", "challenge": 2},
        {"text": "Tell the customer only what they told you or what your tools returned.",
         "category": "knowledge_extraction", "challenge": 2},
    ],
}
"""The store's rules, as describe reads them from store.md."""


@pytest.fixture(scope="module")
def store_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    folder = tmp_path_factory.mktemp("store-run")
    cfg = config(folder, samples=4, describe={"challenge_range": [3, 6], "graph_weights": "flows"})
    script = script_document(ScriptedLLM(), flows=RULES).on(reply=careless_answers(seed=5))
    return intellagent.evaluate(cfg, output=folder / "run", script=script), folder / "run"


def test_the_run_ends_with_a_report_of_the_dialogs_it_played(store_run: tuple[Report, Path]) -> None:
    report, folder = store_run
    info = RunFolder(folder).run_info.load()
    dialogs = RunFolder(folder).dialogs.load()

    assert info is not None and info.status in ("done", "gate_failed")
    assert dialogs and report.overall.dialogs == len(dialogs)
    assert all(dialog.status in ("pass", "fail", "incomplete", "error") for dialog in dialogs)
    assert json.loads((folder / "report.json").read_text())["name"] == "store"
    assert all(dialog.persona is not None for dialog in dialogs)
    assert sum(persona.dialogs for persona in PERSONAS.of(report).results) == len(dialogs)


def test_every_scenario_written_became_a_valid_event(store_run: tuple[Report, Path]) -> None:
    _, folder = store_run
    run = RunFolder(folder)
    written = [scenario.id for scenario in run.scenarios.load() if scenario.status == "ok"]
    events = run.events.load()
    env = load_environment(config(folder).environment)

    assert len(written) == 4 and [event.id for event in events if event.status == "ok"] == written
    for event in events:
        with env.session(world_file(folder, event.database or "")) as session:
            assert list(env.broken_rows(session)) == [], event.id
