"""The run folder survives crashes: torn lines are dropped, finished files are byte-stable."""

from __future__ import annotations

import pytest

from intellagent.artifacts import Scenario
from intellagent.errors import UsageError
from intellagent.run_folder import RunFolder


def scenario(identifier: str) -> Scenario:
    return Scenario(id=identifier, policies=["P01"], target_challenge=3, challenge=3, description=identifier)


def test_appended_items_load_back(tmp_path):
    artifact = RunFolder(tmp_path).jsonl("scenarios.jsonl", Scenario)
    artifact.append(scenario("S002"))
    artifact.append(scenario("S001"))
    assert [s.id for s in artifact.load()] == ["S002", "S001"]


def test_a_torn_last_line_is_dropped_and_the_file_repaired(tmp_path):
    artifact = RunFolder(tmp_path).jsonl("scenarios.jsonl", Scenario)
    artifact.append(scenario("S001"))
    with artifact.path.open("a") as handle:
        handle.write(scenario("S002").model_dump_json()[:25])  # a crash in the middle of a write
    assert [s.id for s in artifact.load()] == ["S001"]
    artifact.append(scenario("S003"))
    assert [s.id for s in artifact.load()] == ["S001", "S003"]


def test_a_corrupt_line_in_the_middle_is_an_error_naming_the_line(tmp_path):
    artifact = RunFolder(tmp_path).jsonl("scenarios.jsonl", Scenario)
    artifact.append(scenario("S001"))
    with artifact.path.open("a") as handle:
        handle.write("{oops}\n")
    artifact.append(scenario("S003"))
    with pytest.raises(UsageError, match="line 2"):
        artifact.load()


def test_finalize_orders_by_id_and_keeps_the_last_version(tmp_path):
    folder = RunFolder(tmp_path)
    first, second = folder.jsonl("a.jsonl", Scenario), folder.jsonl("b.jsonl", Scenario)
    for identifier in ("S003", "S001", "S002"):
        first.append(scenario(identifier))
    for identifier in ("S002", "S001", "S003"):
        second.append(scenario(identifier))
    second.append(scenario("S001").model_copy(update={"description": "redone"}))
    first.finalize()
    assert [s.id for s in second.finalize()] == ["S001", "S002", "S003"]
    assert second.load()[0].description == "redone"
    first_lines = first.path.read_text().splitlines()
    assert first_lines[1:] == second.path.read_text().splitlines()[1:]


def test_json_artifacts_round_trip_and_reject_corruption(tmp_path):
    folder = RunFolder(tmp_path)
    assert folder.load("s.json", Scenario) is None
    folder.save("s.json", scenario("S001"))
    assert folder.load("s.json", Scenario) == scenario("S001")
    folder.path("s.json").write_text("{}")
    with pytest.raises(UsageError, match="--fresh"):
        folder.load("s.json", Scenario)
