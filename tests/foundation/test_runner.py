"""The runner's folder rules: run.json, resume guard, --fresh, secrets never written."""

from __future__ import annotations

import asyncio
import json

import pytest
from filelock import FileLock

from intellagent.config import apply_overrides
from intellagent.errors import UsageError
from intellagent.runner import execute, scrub


def prepare(config, output, **options):
    return asyncio.run(execute(config, output=output, stages=(), progress=False, **options))


def test_run_json_describes_the_run(scripted_config, tmp_path):
    result = prepare(scripted_config, tmp_path / "run")
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert result.exit_code == 0
    assert info["status"] == "done" and info["seed"] == 42
    assert info["config"]["environment"]["schema"] == "intellagent.db_schemas.airline.schema"
    assert {"python", "pydantic", "langgraph"} <= set(info["versions"])
    assert info["started_at"] <= info["finished_at"]


def test_a_folder_with_other_settings_is_not_resumed(scripted_config, tmp_path):
    prepare(scripted_config, tmp_path / "run")
    prepare(apply_overrides(scripted_config, samples=9, workers=4), tmp_path / "run")  # same artifacts
    with pytest.raises(UsageError, match="--fresh"):
        prepare(apply_overrides(scripted_config, seed=7), tmp_path / "run")
    prepare(apply_overrides(scripted_config, seed=7), tmp_path / "run", fresh=True)
    assert json.loads((tmp_path / "run" / "run.json").read_text())["seed"] == 7


def test_fresh_never_deletes_a_folder_that_is_not_a_run(scripted_config, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("precious")
    with pytest.raises(UsageError, match="not a run folder"):
        prepare(scripted_config, tmp_path / "mine", fresh=True)
    assert (tmp_path / "mine" / "notes.txt").exists()


def test_fresh_deletes_the_runs_artifacts_and_nothing_else(scripted_config, tmp_path):
    run = tmp_path / "run"
    prepare(scripted_config, run)
    (run / "scenarios.jsonl").write_text("")  # an artifact of the earlier run
    (run / "notes.txt").write_text("precious")  # the user's own
    (run / "llm_cache.sqlite").write_text("")
    prepare(scripted_config, run, fresh=True)
    assert sorted(p.name for p in run.iterdir()) == [".intellagent.lock", "llm_cache.sqlite", "notes.txt", "run.json"]


def test_a_second_run_on_a_folder_in_use_stops_at_once(scripted_config, tmp_path):
    run = tmp_path / "run"
    prepare(scripted_config, run)
    before = (run / "run.json").read_text()
    (run / ".intellagent.lock.holder").write_text("pid 4242 on ci-runner-7, started 2026-11-23T10:00:00+00:00")
    held = pytest.raises(UsageError, match=r"in use by another run \(pid 4242 on ci-runner-7")
    with FileLock(run / ".intellagent.lock"), held:
        prepare(scripted_config, run)
    assert (run / "run.json").read_text() == before  # the first run's files are untouched
    prepare(scripted_config, run)  # once it is done, the folder is free again


def test_a_frozen_set_is_never_the_output_of_the_run_that_reads_it(scripted_config, tmp_path):
    frozen = tmp_path / "frozen"
    prepare(scripted_config, frozen)
    (frozen / "events.jsonl").write_text("")
    with pytest.raises(UsageError, match="--scenarios-from and --output are both"):
        prepare(scripted_config, frozen, scenarios_from=frozen, fresh=True)
    assert (frozen / "events.jsonl").exists()


def test_unknown_stage_is_a_usage_error(scripted_config, tmp_path):
    with pytest.raises(UsageError, match="unknown stage 'judge'"):
        asyncio.run(execute(scripted_config, output=tmp_path / "r", stages=("judge",), progress=False))


def test_secrets_are_masked_but_env_var_names_kept():
    data = {"api_key": "sk-live", "api_key_env": "OPENAI_API_KEY", "url": "https://bob:pw@host/v1", "n": 3}
    assert scrub(data) == {"api_key": "***", "api_key_env": "OPENAI_API_KEY", "url": "https://***@host/v1", "n": 3}


def test_settings_at_their_defaults_do_not_shape_the_fingerprint(scripted_config):
    """A setting a new version adds, at a default that keeps the old behaviour, leaves earlier run folders
    resumable: the fingerprint is made of the settings that differ from their defaults."""
    from intellagent.config import Config
    from intellagent.runner import _fingerprint

    class Newer(Config):
        new_setting: int = 0

    newer = Newer.model_validate(scripted_config.model_dump())
    assert _fingerprint(newer) == _fingerprint(scripted_config)
    assert _fingerprint(newer.model_copy(update={"new_setting": 1})) != _fingerprint(scripted_config)
