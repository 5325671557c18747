"""The pipeline: its stages in the run's order, and each artifact of the catalogue made by the stage it names."""

from __future__ import annotations

from intellagent.artifacts import STAGES
from intellagent.files import Jsonl
from intellagent.pipeline import PIPELINE
from intellagent.run_folder import RunFolder


def test_the_pipeline_runs_the_stages_in_their_order() -> None:
    assert tuple(stage.name for stage in PIPELINE) == STAGES


def test_every_artifact_but_run_json_is_written_by_the_one_stage_the_catalogue_names() -> None:
    writers = {artifact.name: [stage.name for stage in PIPELINE if artifact in stage.writes]
               for artifact in RunFolder.catalogue()}
    assert writers == {artifact.name: [artifact.stage] if artifact.stage else [] for artifact in RunFolder.catalogue()}
    assert writers[RunFolder.run_info.name] == []


def test_each_stage_records_its_items_in_one_jsonl_file() -> None:
    records = {stage.name: [a.name for a in stage.writes if isinstance(a, Jsonl)] for stage in PIPELINE}
    assert records == {"describe": ["scenarios.jsonl"], "populate": ["events.jsonl"], "simulate": ["dialogs.jsonl"],
                       "rollouts": ["rollouts.jsonl"], "redteam": ["attacks.jsonl"],
                       "production": ["production.jsonl", "transcripts.jsonl"], "report": ["analysis.jsonl"]}
    assert [stage.records.name for stage in PIPELINE] == [names[0] for names in records.values()]


def test_a_frozen_test_set_carries_what_describe_and_populate_make() -> None:
    frozen = [artifact.name for artifact in RunFolder.catalogue() if artifact.frozen]
    made = [artifact.name for stage in PIPELINE[:2] for artifact in stage.writes]
    assert frozen == made
