"""The stages called one by one, artifacts in and out, give what a whole run gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import intellagent
from intellagent.api import describe, populate, report, simulate
from intellagent.artifacts import Analysis, Dialog, Event, PolicyCatalog, Scenario
from intellagent.artifacts.run_report import Report
from intellagent.errors import UsageError
from tests.pipeline.scripted_pipeline import config, pipeline_script

# Byte for byte the same whichever way the stages were called.
STABLE = ("policies.json", "graph.json", "scenarios.jsonl", "events.jsonl")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A whole run, and the same config run stage by stage with what each stage function returned."""
    base = tmp_path_factory.mktemp("stages")
    intellagent.evaluate(config(), output=base / "whole", script=pipeline_script())
    staged, script = base / "staged", pipeline_script()
    return {
        "whole": base / "whole",
        "staged": staged,
        "described": describe(config(), output=staged, script=script),
        "events": populate(config(), output=staged, script=script),
        "dialogs": simulate(config(), output=staged, script=script),
        "report": report(config(), output=staged, script=script),
    }


def records(folder: Path, name: str, model: type) -> list[dict[str, Any]]:
    """A JSONL artifact without what differs between two runs of the same work: timings and their digests."""
    items = [model.model_validate_json(line).model_dump() for line in (folder / name).read_text().splitlines()]
    for item in items:
        item.pop("duration_s", None)
        item.pop("source", None)  # the digest of a dialog, timings included
        for message in item.get("transcript", []):
            message.pop("at_s")
    return items


def without_usage(report_json: Path) -> dict[str, Any]:
    data = json.loads(report_json.read_text())
    data["overall"].pop("usage")
    return data


def test_stage_by_stage_writes_the_artifacts_of_a_whole_run(runs: dict[str, Any]) -> None:
    whole, staged = runs["whole"], runs["staged"]
    for name in STABLE:
        assert (staged / name).read_bytes() == (whole / name).read_bytes(), name
    assert records(staged, "dialogs.jsonl", Dialog) == records(whole, "dialogs.jsonl", Dialog)
    assert records(staged, "analysis.jsonl", Analysis) == records(whole, "analysis.jsonl", Analysis)
    assert without_usage(staged / "report.json") == without_usage(whole / "report.json")


def test_each_stage_function_returns_the_artifacts_it_wrote(runs: dict[str, Any]) -> None:
    staged, described = runs["staged"], runs["described"]
    assert described.catalog == PolicyCatalog.model_validate_json((staged / "policies.json").read_text())
    assert sorted(described.graph.nodes) == [p.id for p in described.catalog.policies]
    assert described.scenarios == [Scenario.model_validate_json(x) for x in (staged / "scenarios.jsonl").open()]
    assert runs["events"] == [Event.model_validate_json(x) for x in (staged / "events.jsonl").open()]
    assert runs["dialogs"] == [Dialog.model_validate_json(x) for x in (staged / "dialogs.jsonl").open()]
    assert runs["report"] == Report.model_validate_json((staged / "report.json").read_text())


def test_a_stage_with_nothing_left_to_do_returns_what_its_earlier_invocations_made(runs: dict[str, Any]) -> None:
    script = pipeline_script()
    again, before = describe(config(), output=runs["staged"], script=script), runs["described"]
    assert script.requests == []
    assert (again.catalog, again.scenarios) == (before.catalog, before.scenarios)
    assert sorted(again.graph.edges(data="weight")) == sorted(before.graph.edges(data="weight"))


def test_simulating_a_folder_without_events_says_to_populate_first(tmp_path: Path) -> None:
    script = pipeline_script()
    describe(config(), output=tmp_path / "run", script=script)
    with pytest.raises(UsageError, match=r"events\.jsonl not found; run the populate stage first"):
        simulate(config(), output=tmp_path / "run", script=script)
