"""A whole run of the telecom example with the careless double in every role, each dialog played dual and solo
(the example's `dual_control: both`), and rolled out for training data: whatever it answers, the run ends with
valid artifacts and honest statuses, every world it made is valid, the chatbot reached the customer's side of the
world only when it held the customer's tools (solo), the report sets the two ways side by side, and the shipped
rules file's rules are in force."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import yaml

import intellagent
from intellagent.artifacts import Analysis, Dialog, Event, PolicyCatalog, Report, Rollout, RunInfo, Scenario
from intellagent.environment import Environment
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.reports.sections.dual_control import DUAL_CONTROL
from intellagent.rules.rules_file import read_rules
from tests.conftest import ROOT, world_file
from tests.rollouts.training_records import (
    labelled_turns,
    misplaced,
    positive_paths,
    preferences,
    searched_trees,
    supervised,
    unpaired,
)

SAMPLES = 6


def careless_config() -> dict[str, Any]:
    """configs/telecom.yml as shipped, with every model the scripted double."""
    data = yaml.safe_load((ROOT / "configs/telecom.yml").read_text())
    data["environment"]["policy"] = str(ROOT / "policies/telecom.md")
    data["environment"]["solo_policy"] = str(ROOT / "policies/telecom_solo.md")
    data["environment"]["rules"] = str(ROOT / "db_schemas/telecom/rules.yml")
    return {**data, "llm": "scripted", "chatbot": {**data["chatbot"], "llm": "scripted"}, "samples": SAMPLES,
            "rollouts": {**data["rollouts"], "enabled": True, "beam": 2, "max_turns": 3}}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    folder = tmp_path_factory.mktemp("careless") / "run"
    script = ScriptedLLM().on(reply=careless_answers(seed=2))
    return intellagent.evaluate(careless_config(), output=folder, script=script), folder


def records(folder: Path, name: str, model: type) -> list[Any]:
    return [model.model_validate_json(line) for line in (folder / name).read_text().splitlines()]


def test_the_run_finishes_and_every_artifact_validates_against_its_model(run) -> None:
    report, folder = run
    info = RunInfo.model_validate_json((folder / "run.json").read_text())
    assert info.status in ("done", "gate_failed") and list(info.stages) == ["describe", "populate", "simulate",
                                                                            "rollouts", "report"]
    catalog = PolicyCatalog.model_validate_json((folder / "policies.json").read_text())
    graph = nx.node_link_graph(json.loads((folder / "graph.json").read_text()), edges="edges")
    assert sorted(graph.nodes) == [policy.id for policy in catalog.policies]
    assert report == Report.model_validate_json((folder / "report.json").read_text())
    assert ET.parse(folder / "junit.xml").getroot().tag == "testsuites"
    assert (folder / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_the_shipped_rules_are_in_force_with_no_rule_refused(run) -> None:
    _, folder = run
    catalog = PolicyCatalog.model_validate_json((folder / "policies.json").read_text())
    shipped = read_rules(ROOT / "db_schemas/telecom/rules.yml").rules
    assert [held.rule.id for held in catalog.rules] == [rule.id for rule in shipped]
    assert catalog.refused_rules == []
    assert all(catalog.checks.get(held.rule.check) == held.policies for held in catalog.rules)


def test_every_item_has_an_honest_status_and_an_error_says_why(run) -> None:
    report, folder = run
    scenarios = records(folder, "scenarios.jsonl", Scenario)
    events = records(folder, "events.jsonl", Event)
    dialogs = records(folder, "dialogs.jsonl", Dialog)
    analyses = records(folder, "analysis.jsonl", Analysis)
    assert len(scenarios) == SAMPLES
    assert [e.id for e in events] == [s.id for s in scenarios if s.status == "ok"]
    played = [e.id for e in events if e.status == "ok"]
    assert sorted(d.event_id for d in dialogs if d.role == "chatbot") == sorted(played) != []
    assert sorted(d.event_id for d in dialogs if d.role == "solo") == sorted(played)
    assert [a.id for a in analyses] == [d.id for d in dialogs if d.status != "error"]
    assert {(d.role, d.control) for d in dialogs} == {("chatbot", "dual"), ("solo", "solo")}
    assert all(item.error for item in [*scenarios, *events] if item.status == "error")
    assert all(dialog.status in ("pass", "fail", "incomplete", "error") for dialog in dialogs)
    assert all(analysis.error for analysis in analyses if analysis.status in ("user_fault", "incomplete"))
    assert report.overall.dialogs == len(played)


def test_the_rollouts_search_the_dual_control_events_and_write_training_files_of_what_they_rewarded(run) -> None:
    _, folder = run
    rollouts = records(folder, "rollouts.jsonl", Rollout)
    events = {e.id: e for e in records(folder, "events.jsonl", Event) if e.status == "ok"}
    assert [r.id for r in rollouts] == list(events)
    assert [r.reason for r in rollouts if r.status == "error"] == []
    assert {r.id for r in rollouts if r.status == "ok"} == {i for i, e in events.items() if e.expected is not None}
    assert all(r.reason for r in rollouts if r.status == "skipped")
    trees = searched_trees(folder)
    pairs = preferences(folder)
    assert [(example.metadata.event, example.metadata.path) for example in supervised(folder)] == positive_paths(trees)
    assert misplaced(pairs, trees) == []
    assert {(example.metadata.event, example.metadata.path, example.label) for example in unpaired(folder)} <= set(
        labelled_turns(pairs))


def test_every_world_populate_made_passes_every_rule_of_the_domain(run, telecom: Environment) -> None:
    _, folder = run
    with telecom.session(folder / "events" / "_background.sqlite") as session:
        background = telecom.dump(session)
    for event in records(folder, "events.jsonl", Event):
        if event.status != "ok":
            continue
        database = world_file(folder, event.database)
        with telecom.session(database) as session:
            assert list(telecom.broken_rows(session, besides=background)) == [], event.id
        with sqlite3.connect(database) as connection:
            assert connection.execute("PRAGMA foreign_key_check").fetchall() == [], event.id


def test_only_the_customer_changed_a_phone_unless_the_chatbot_held_its_tools(run, telecom: Environment) -> None:
    _, folder = run
    dialogs = records(folder, "dialogs.jsonl", Dialog)
    chatbot_tools = {tool.name for tool in telecom.tools}
    customer_tools = {tool.name for tool in telecom.user_tools}
    for dialog in dialogs:
        allowed = chatbot_tools | customer_tools if dialog.control == "solo" else chatbot_tools
        by = {role: {call.name for message in dialog.transcript if message.role == role for call in message.tool_calls}
              for role in ("chatbot", "user")}
        assert by["chatbot"] <= allowed and by["user"] <= (customer_tools if dialog.control == "dual" else set())
        changed = json.loads((folder / dialog.database).read_text())["tables"] if dialog.database else {}
        phone_writers = {tool.name for tool in telecom.user_tools if tool.writes}
        if "phones" in changed:
            assert by["user" if dialog.control == "dual" else "chatbot"] & phone_writers, dialog.id
    assert any(call.name in customer_tools for dialog in dialogs for message in dialog.transcript
               if message.role == "user" for call in message.tool_calls)


def test_the_report_sets_dual_results_beside_solo_ones(run) -> None:
    report, _ = run
    dual = DUAL_CONTROL.of(report)
    assert dual is not None
    assert [result.control for result in dual.results] == ["dual", "solo"]
    assert all(result.dialogs == report.overall.dialogs for result in dual.results)


def test_the_domains_checks_ran_on_every_dialog_played(run, telecom: Environment) -> None:
    _, folder = run
    domain = {check.name for check in telecom.checks}
    played = [dialog for dialog in records(folder, "dialogs.jsonl", Dialog) if dialog.status != "error"]
    assert played and all(domain <= set(dialog.checks) for dialog in played)
    assert all(finding.check in dialog.checks for dialog in played for finding in dialog.findings)
