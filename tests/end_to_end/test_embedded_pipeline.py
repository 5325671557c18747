"""The whole pipeline on the embedded model, through `run.py` and the model's real HTTP server.

A three-rule lending-desk policy keeps it to a few dozen calls: one scenario, a short dialog. Most
checks are about the pipeline: every artifact is written and valid, the report's figures are those of
the dialogs and analyses, and the recorded calls replay the whole run without the model. One is about
what a user comes for: even the small model's run ends each dialog with a verdict on a policy, or sets it
aside as the simulated user's fault and names the fault (the 1.5B user can fail to go on; the run then
accepts having no verdict, `report.require_verdict: false`, rather than exit 1).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from intellagent.artifacts import Analysis, Dialog, Event, PolicyCatalog, RunInfo, Scenario
from intellagent.artifacts.run_report import Report

pytestmark = pytest.mark.local_model

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "tests" / "environment" / "library"

CONFIG = f"""\
name: library-desk
environment:
  policy: {LIBRARY / "library.md"}
  schema: {LIBRARY / "schema.py"}
  tools: {LIBRARY / "tools.py"}
  validators: {LIBRARY / "validators.py"}
  background: {LIBRARY / "background.py"}
llm: local
samples: 1
workers: 1
describe: {{challenge_range: [2, 6]}}
simulate: {{max_turns: 3, max_critiques: 1}}
report: {{require_verdict: false}}
"""


def run(config: Path, output: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "run.py", "--config", str(config), "--output", str(output), "--no-progress", *options]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1500)


def lines(path: Path, model: type) -> list:
    return [model.model_validate_json(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("embedded")
    config = folder / "library.yml"
    config.write_text(CONFIG)
    output = folder / "run"
    return config, output, run(config, output)


def test_the_run_finishes_and_says_where_its_reports_are(finished):
    _, output, done = finished
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"reports: {output / 'report.html'}" in done.stdout
    info = RunInfo.model_validate_json((output / "run.json").read_text())
    assert info.status == "done"
    assert [name for name, stage in info.stages.items() if stage.status == "done"] == [
        "describe", "populate", "simulate", "report",
    ]
    assert info.usage.total.calls > 0 and info.usage.total.cost_usd == 0


def test_every_artifact_is_written_and_valid(finished):
    _, output, _ = finished
    catalog = PolicyCatalog.model_validate_json((output / "policies.json").read_text())
    graph = nx.node_link_graph(json.loads((output / "graph.json").read_text()), edges="edges")
    assert catalog.policies and set(graph.nodes) == {policy.id for policy in catalog.policies}
    scenarios = lines(output / "scenarios.jsonl", Scenario)
    events = lines(output / "events.jsonl", Event)
    dialogs = lines(output / "dialogs.jsonl", Dialog)
    analyses = lines(output / "analysis.jsonl", Analysis)
    assert len(scenarios) == 1
    assert [e.id for e in events] == [s.id for s in scenarios if s.status == "ok"]
    for event in events:
        if event.status == "ok":
            assert event.database == f"events/{event.id}.delta.json" and (output / event.database).is_file()
    assert [d.id for d in dialogs] == [e.id for e in events if e.status == "ok"]
    assert [a.id for a in analyses] == [d.id for d in dialogs]
    assert "<html" in (output / "report.html").read_text()
    assert "<testsuites" in (output / "junit.xml").read_text()


def test_the_report_counts_what_the_dialogs_and_analyses_say(finished):
    _, output, _ = finished
    report = Report.model_validate_json((output / "report.json").read_text())
    analyses = lines(output / "analysis.jsonl", Analysis)
    statuses = [a.status for a in analyses]
    assert report.overall.dialogs == len(analyses)
    assert report.overall.by_status == {s: statuses.count(s)
                                        for s in ("pass", "fail", "incomplete", "error", "user_fault")}
    assert report.overall.pass_rate.passed == statuses.count("pass")
    assert report.overall.pass_rate.total == statuses.count("pass") + statuses.count("fail")
    judged = [a for a in analyses if a.status in ("pass", "fail")]
    for policy in report.policies:
        assert policy.tested == sum(policy.id in a.tested for a in judged)
        assert policy.violated == sum(any(v.policy == policy.id for v in a.violations) for a in judged)


def test_the_small_model_run_reaches_a_verdict_on_a_policy_or_names_its_users_fault(finished):
    _, output, _ = finished
    report = Report.model_validate_json((output / "report.json").read_text())
    dialogs = lines(output / "dialogs.jsonl", Dialog)
    judged = [dialog for dialog in report.dialogs if dialog.status in ("pass", "fail")]
    set_aside = [dialog for dialog in dialogs if dialog.audit and dialog.audit.faults]
    assert judged or set_aside, [(dialog.status, dialog.error) for dialog in report.dialogs]
    if judged:
        assert report.coverage.tested >= 1 and any(dialog.tested for dialog in judged)
    for dialog in report.dialogs:
        assert dialog.status != "user_fault" or dialog.error, dialog


def test_the_recorded_calls_replay_the_whole_run_without_the_model(finished, tmp_path):
    config, output, _ = finished
    replayed = tmp_path / "replayed"
    shutil.copytree(output, replayed)
    again = run(config, replayed, "--fresh", "--replay")  # every artifact made again, from the kept cache
    assert again.returncode == 0, again.stderr[-2000:]
    for name in ("policies.json", "graph.json", "scenarios.jsonl", "events.jsonl", "analysis.jsonl"):
        assert (replayed / name).read_bytes() == (output / name).read_bytes(), name
    before, after = (json.loads((folder / "report.json").read_text()) for folder in (output, replayed))
    before["overall"].pop("usage"), after["overall"].pop("usage")
    assert after == before
    usage = RunInfo.model_validate_json((replayed / "run.json").read_text()).usage.total
    assert usage.calls == 0 and usage.cached > 0
