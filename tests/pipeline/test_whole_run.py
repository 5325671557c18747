"""`intellagent.evaluate`: a whole run from Python returns the report its run folder holds."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import xml.etree.ElementTree as ET
from contextvars import ContextVar
from pathlib import Path

import networkx as nx
import pytest
from langchain_core.tracers.context import register_configure_hook
from langchain_core.tracers.run_collector import RunCollectorCallbackHandler

import intellagent
from intellagent.artifacts import Analysis, Dialog, Event, PolicyCatalog, RunInfo, Scenario
from intellagent.artifacts.run_report import Report
from intellagent.environment import worlds
from intellagent.errors import UsageError
from intellagent.llm import ScriptedLLM
from intellagent.run_folder import RunFolder
from tests.conftest import world_file
from tests.pipeline.scripted_pipeline import CONFIRM, config, pipeline_config, pipeline_script, write_config


def lines(path: Path, model: type) -> list:
    return [model.model_validate_json(line) for line in path.read_text().splitlines()]


def test_the_returned_report_is_the_one_in_report_json(whole_run) -> None:
    report, folder = whole_run
    assert isinstance(report, intellagent.Report)
    assert report == Report.model_validate_json((folder / "report.json").read_text())


def test_every_file_a_run_leaves_in_its_folder_is_in_the_catalogue(whole_run) -> None:
    _, folder = whole_run
    catalogued = {artifact.name for artifact in RunFolder.catalogue()}
    left = {path.name for path in folder.iterdir()} - {RunFolder.llm_cache, ".intellagent.lock"}
    assert left and left <= catalogued, sorted(left - catalogued)


def test_the_report_counts_the_dialogs_of_dialogs_jsonl(whole_run) -> None:
    report, folder = whole_run
    dialogs = lines(folder / "dialogs.jsonl", Dialog)
    assert [(d.id, d.simulated, d.policies) for d in report.dialogs] == [(d.id, d.status, d.policies) for d in dialogs]
    assert report.overall.dialogs == len(dialogs) == 2
    assert report.overall.by_status == {"pass": 1, "fail": 1, "user_fault": 0, "incomplete": 0, "error": 0}


def test_every_artifact_exists_and_validates_against_its_model(whole_run) -> None:
    _, folder = whole_run
    catalog = PolicyCatalog.model_validate_json((folder / "policies.json").read_text())
    graph = nx.node_link_graph(json.loads((folder / "graph.json").read_text()), edges="edges")
    scenarios = lines(folder / "scenarios.jsonl", Scenario)
    events = lines(folder / "events.jsonl", Event)
    dialogs = lines(folder / "dialogs.jsonl", Dialog)
    analyses = lines(folder / "analysis.jsonl", Analysis)
    info = RunInfo.model_validate_json((folder / "run.json").read_text())

    assert [p.id for p in catalog.policies] == sorted(graph.nodes) == ["P01", "P02"]
    assert [s.id for s in scenarios] == [e.id for e in events] == [d.id for d in dialogs] == [a.id for a in analyses]
    assert all(s.status == e.status == "ok" for s, e in zip(scenarios, events, strict=True))
    for event in events:
        with sqlite3.connect(world_file(folder, event.database)) as db:
            assert db.execute("select order_id from orders").fetchall() == [(event.symbols["O1"],)]
    background = folder / "events" / "_background.sqlite"
    for dialog in dialogs:  # each digest is that of the whole world the dialog left, over the background
        found = worlds.changes(world_file(folder, dialog.database), background)
        assert found and dialog.digest == worlds.digest(found, background)
    assert info.status == "done" and list(info.stages) == ["describe", "populate", "simulate", "report"]
    assert ET.parse(folder / "junit.xml").getroot().find("testsuite").get("failures") == "1"  # the run's own suite
    assert "P01" in (folder / "report.html").read_text()


def test_the_chatbot_that_cancels_unasked_breaks_the_consent_rule_in_that_dialog(whole_run) -> None:
    report, _ = whole_run
    consent, privacy = report.policies
    (cancel_dialog,) = [d for d in report.dialogs if d.policies == ["P01"]]
    assert (consent.text, consent.violated, consent.tested) == (CONFIRM, 1, 1)
    # Found twice, at the same turn: by the confirmation check (with the call) and by the judge.
    assert [(v.dialog, v.turn, v.source) for v in consent.violations] == [(cancel_dialog.id, 2, "check"),
                                                                            (cancel_dialog.id, 2, "judge")]
    assert consent.violations[0].evidence.startswith("cancel_order(") and consent.checks == ["confirmed_before_write"]
    assert (privacy.violated, privacy.passed) == (0, 1)
    assert cancel_dialog.status == "fail" and cancel_dialog.violated == ["P01"]


def test_a_threshold_option_sets_the_gate_and_nothing_is_raised(tmp_path: Path, script: ScriptedLLM) -> None:
    report = intellagent.evaluate(config(), output=tmp_path / "run", script=script, fail_under=0.8)

    assert report.gate is not None and not report.gate.passed
    assert report.gate.failures == ["pass rate 50.0% (1/2 dialogs) is below --fail-under 0.8"]
    assert RunInfo.model_validate_json((tmp_path / "run" / "run.json").read_text()).status == "gate_failed"


@pytest.mark.parametrize("form", ["path", "mapping", "model"])
def test_a_config_is_taken_as_a_file_a_mapping_or_a_model(form: str, tmp_path: Path, script: ScriptedLLM) -> None:
    source = {
        "path": lambda: write_config(tmp_path / "shop.yml"),
        "mapping": lambda: pipeline_config(),
        "model": lambda: config(),
    }[form]()
    report = intellagent.evaluate(source, output=tmp_path / "run", script=script, seed=5)

    assert report.name == "shop" and report.overall.dialogs == 2
    assert RunInfo.model_validate_json((tmp_path / "run" / "run.json").read_text()).seed == 5


def test_aevaluate_runs_inside_a_running_event_loop(tmp_path: Path, script: ScriptedLLM) -> None:
    async def release_check() -> Report:
        asyncio.get_running_loop()  # what a notebook or an async service already has
        return await intellagent.aevaluate(config(), output=tmp_path / "run", script=script)

    report = asyncio.run(release_check())
    assert report == Report.model_validate_json((tmp_path / "run" / "report.json").read_text())


def test_evaluate_inside_a_running_event_loop_says_to_await_aevaluate(tmp_path: Path, script: ScriptedLLM) -> None:
    async def notebook_cell() -> None:
        intellagent.evaluate(config(), output=tmp_path / "run", script=script)

    with pytest.raises(UsageError, match=r"await intellagent\.aevaluate"):
        asyncio.run(notebook_cell())
    assert not script.requests


def test_run_json_counts_each_stages_records_on_a_first_run_and_on_a_resume(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    outputs = {"describe": ("scenarios.jsonl", Scenario), "populate": ("events.jsonl", Event),
               "simulate": ("dialogs.jsonl", Dialog), "report": ("analysis.jsonl", Analysis)}

    def counts() -> dict[str, tuple[int, int, int]]:
        info = RunInfo.model_validate_json((folder / "run.json").read_text())
        return {name: (stage.items, stage.errors, stage.skipped) for name, stage in info.stages.items()}

    intellagent.evaluate(config(), output=folder, script=pipeline_script())
    records = {name: lines(folder / file, model) for name, (file, model) in outputs.items()}
    assert counts() == {name: (len(items), sum(i.status == "error" for i in items), 0)
                        for name, items in records.items()}
    assert counts()["simulate"][0] == 2  # the figures are the files', not zero

    def reported() -> dict[str, tuple[int | None, int | None, int | None]]:
        stages = Report.model_validate_json((folder / "report.json").read_text()).overall.usage.stages
        return {name: (stage.items, stage.errors, stage.skipped) for name, stage in stages.items()}

    # The report reads the counters of the stages before it from run.json; its own are not known yet.
    assert reported() == {**{name: counts()[name] for name in ("describe", "populate", "simulate")},
                          "report": (None, None, None)}

    intellagent.evaluate(config(), output=folder, script=pipeline_script())  # everything is found done
    assert counts() == {name: (len(items), sum(i.status == "error" for i in items), len(items))
                        for name, items in records.items()}
    assert reported()["simulate"] == counts()["simulate"]


# A tracer handed down to every nested run, as LangSmith's is when the user turns tracing on; this one
# only collects the runs in-process, so nothing leaves the machine.
TRACER: ContextVar[RunCollectorCallbackHandler | None] = ContextVar("test_tracer", default=None)
register_configure_hook(TRACER, True)


def test_traced_runs_are_named_by_stage_event_dialog_and_step(tmp_path: Path, script: ScriptedLLM) -> None:
    collector = RunCollectorCallbackHandler()
    token = TRACER.set(collector)
    try:
        intellagent.evaluate(config(), output=tmp_path / "run", script=script)
    finally:
        TRACER.reset(token)

    def every(runs):
        for run in runs:
            yield run
            yield from every(run.child_runs)

    roots = {run.name for run in collector.traced_runs}
    assert roots == {"describe", "populate", "simulate", "report"}  # every call sits under its stage
    runs = list(every(collector.traced_runs))
    assert {"event S001", "dialog S001", "dialog S002"} <= {run.name for run in runs}
    dialog = next(run for run in runs if run.name == "dialog S002")
    user_calls = [run for run in every([dialog]) if run.run_type == "llm" and run.name == "simulate/user"]
    assert user_calls and all("user" in run.tags for run in user_calls)
