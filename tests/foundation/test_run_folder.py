"""The run folder survives crashes: torn lines are dropped, finished files are byte-stable."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from intellagent.artifacts import Dialog, PolicyCatalog, Scenario
from intellagent.errors import UsageError
from intellagent.files import Json, id_order
from intellagent.reports.inputs import load_artifacts
from intellagent.run_folder import RunFolder


def scenario(identifier: str) -> Scenario:
    return Scenario(id=identifier, policies=["P01"], target_challenge=3, challenge=3, description=identifier)


def test_appended_items_load_back(tmp_path):
    artifact = RunFolder(tmp_path).scenarios
    artifact.append(scenario("S002"))
    artifact.append(scenario("S001"))
    assert [s.id for s in artifact.load()] == ["S002", "S001"]


def test_a_torn_last_line_is_dropped_and_the_file_repaired(tmp_path):
    artifact = RunFolder(tmp_path).scenarios
    artifact.append(scenario("S001"))
    with artifact.path.open("a") as handle:
        handle.write(scenario("S002").model_dump_json()[:25])  # a crash in the middle of a write
    assert [s.id for s in artifact.load()] == ["S001"]
    artifact.append(scenario("S003"))
    assert [s.id for s in artifact.load()] == ["S001", "S003"]


def test_a_corrupt_line_in_the_middle_is_an_error_naming_the_line(tmp_path):
    artifact = RunFolder(tmp_path).scenarios
    artifact.append(scenario("S001"))
    with artifact.path.open("a") as handle:
        handle.write("{oops}\n")
    artifact.append(scenario("S003"))
    with pytest.raises(UsageError, match="line 2"):
        artifact.load()


def test_finalize_orders_by_id_and_keeps_the_last_version(tmp_path):
    first, second = RunFolder(tmp_path / "a").scenarios, RunFolder(tmp_path / "b").scenarios
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
    artifact = Json("s.json", Scenario).on(tmp_path)
    assert artifact.load() is None
    artifact.save(scenario("S001"))
    assert artifact.load() == scenario("S001")
    artifact.path.write_text("{}")
    with pytest.raises(UsageError, match="--fresh"):
        artifact.load()


def test_ids_sort_by_their_numbers_at_any_count(tmp_path):
    artifact = RunFolder(tmp_path).scenarios
    numbers = list(range(1, 1201))
    random.Random(3).shuffle(numbers)
    for number in numbers:
        artifact.append(scenario(f"S{number:03d}"))
    ordered = [s.id for s in artifact.finalize()]
    assert ordered.index("S999") + 1 == ordered.index("S1000")
    assert ordered == [f"S{n:03d}" for n in range(1, 1201)]


def test_trial_and_mutant_ids_follow_their_event_in_number_order():
    ids = ["S010", "S002-t10", "S002~omit-P05", "S002-t2", "S002", "S1000", "S999"]
    assert sorted(ids, key=id_order) == ["S002", "S002-t2", "S002-t10", "S002~omit-P05", "S010", "S999", "S1000"]


def test_the_report_reads_dialogs_in_number_order(tmp_path):
    folder = RunFolder(tmp_path)
    folder.policies.save(PolicyCatalog(task_description="t", flows=[], policies=[]))
    folder.graph.save(nx.Graph())
    for name in ("scenarios.jsonl", "events.jsonl"):
        folder.path(name).write_text("")
    dialogs = folder.dialogs
    for identifier in ("S1000", "S999", "S100"):
        dialogs.append(Dialog(id=identifier, status="pass"))
    assert [d.id for d in load_artifacts(folder).dialogs] == ["S100", "S999", "S1000"]
