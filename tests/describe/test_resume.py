"""Resume: a finished artifact is never redone, and only missing scenarios are written."""

from __future__ import annotations

import pytest
from conftest import configure, rules, run_describe, scenarios_of, script_document

from intellagent.artifacts import Scenario
from intellagent.errors import UsageError

FLOWS = {"Orders": rules(3, challenge=2), "Refunds": rules(3, start=4, challenge=3)}
ARTIFACTS = ("policies.json", "graph.json", "scenarios.jsonl")


def finished_run(config, folder, script):
    script_document(script, flows=FLOWS)
    run_describe(config, folder, script)
    return {name: (folder / name).read_bytes() for name in ARTIFACTS}


def forget(folder, *names):
    """Delete artifacts and the LLM cache, so that any redone work shows up as a new request."""
    for name in (*names, "llm_cache.sqlite", "llm_cache.sqlite-wal", "llm_cache.sqlite-shm"):
        (folder / name).unlink(missing_ok=True)


def test_a_finished_run_makes_no_call_and_changes_no_byte(scripted_config, script, folder):
    config = configure(scripted_config, samples=3)
    before = finished_run(config, folder, script)
    requests = len(script.requests)
    result = run_describe(config, folder, script)
    assert len(script.requests) == requests
    assert result.info.usage.stages["describe"].calls == requests  # the first run's calls, none added
    assert {name: (folder / name).read_bytes() for name in ARTIFACTS} == before


def test_written_policies_are_not_extracted_again(scripted_config, script, folder):
    config = configure(scripted_config, samples=2)
    before = finished_run(config, folder, script)
    forget(folder, "graph.json", "scenarios.jsonl")
    script.requests.clear()
    run_describe(config, folder, script)
    assert {r.schema for r in script.requests} == {"EdgeScores", "ScenarioAnswer"}
    assert {name: (folder / name).read_bytes() for name in ARTIFACTS} == before


def test_a_written_graph_is_not_scored_again(scripted_config, script, folder):
    config = configure(scripted_config, samples=2)
    before = finished_run(config, folder, script)
    forget(folder, "scenarios.jsonl")
    script.requests.clear()
    run_describe(config, folder, script)
    assert {r.schema for r in script.requests} == {"ScenarioAnswer"}
    assert (folder / "scenarios.jsonl").read_bytes() == before["scenarios.jsonl"]


def test_only_missing_scenarios_are_written(scripted_config, script, folder):
    config = configure(scripted_config, samples=3)
    before = finished_run(config, folder, script)
    lines = before["scenarios.jsonl"].decode().splitlines(keepends=True)
    (folder / "scenarios.jsonl").write_text(lines[0] + lines[2] + lines[1][:40])  # S002 torn mid-write
    forget(folder)
    script.requests.clear()
    run_describe(config, folder, script)
    assert len(script.requests) == 1 and script.requests[0].schema == "ScenarioAnswer"
    assert (folder / "scenarios.jsonl").read_bytes() == before["scenarios.jsonl"]


def test_a_scenario_failed_before_an_interruption_resumes_at_its_next_sample(scripted_config, script, folder):
    config = configure(scripted_config, samples=1)
    finished_run(config, folder, script)
    (first,) = scenarios_of(folder)
    failed = Scenario(**first.model_dump(include={"id", "policies", "target_challenge", "challenge"}),
                      status="error", error="interrupted")
    (folder / "scenarios.jsonl").write_text(failed.model_dump_json() + "\n")
    forget(folder)
    script.requests.clear()
    run_describe(config, folder, script)
    (scenario,) = scenarios_of(folder)
    assert scenario.status == "ok" and scenario.policies != first.policies
    assert len(script.requests) == 1


def test_scenarios_from_other_settings_are_refused(scripted_config, script, folder):
    config = configure(scripted_config, samples=1)
    finished_run(config, folder, script)
    alien = Scenario(id="S001", status="error", error="x", policies=["P99"], target_challenge=3, challenge=3)
    (folder / "scenarios.jsonl").write_text(alien.model_dump_json() + "\n")
    with pytest.raises(UsageError, match="--fresh"):
        run_describe(config, folder, script)


def test_more_samples_later_extend_the_same_scenarios(scripted_config, script, tmp_path):
    script_document(script, flows=FLOWS)
    run_describe(configure(scripted_config, samples=2), tmp_path / "small", script)
    run_describe(configure(scripted_config, samples=4), tmp_path / "small", script)
    run_describe(configure(scripted_config, samples=4), tmp_path / "large", script)
    assert (tmp_path / "small" / "scenarios.jsonl").read_bytes() == (
        tmp_path / "large" / "scenarios.jsonl"
    ).read_bytes()
