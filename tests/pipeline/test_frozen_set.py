"""A frozen test set: describe and populate once, then only simulate and report for each chatbot build."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

import intellagent
from examples.qa_gate.chatbot import careful, hasty
from intellagent.artifacts import Event, RunInfo
from intellagent.artifacts.labels import Label
from intellagent.cli import main
from intellagent.llm import ScriptedLLM
from intellagent.reports.sections import LABELS
from intellagent.run_folder import RunFolder
from tests.pipeline.scripted_pipeline import HASTY_IN_CONFIG, config, write_config

CACHE = "llm_cache.sqlite"


def fingerprints(folder: Path) -> dict[str, str]:
    """sha256 of every file of a folder but its LLM cache, by relative path."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.startswith(CACHE)
    }


def cached_steps(folder: Path) -> dict[str, str]:
    """The cache's entries: key → step."""
    with sqlite3.connect(folder / CACHE) as db:
        return dict(db.execute("select key, step from answers"))


def stages_run(folder: Path) -> list[str]:
    return list(RunInfo.model_validate_json((folder / "run.json").read_text()).stages)


def test_freeze_writes_the_scenarios_and_their_databases_and_no_dialog(frozen_master: Path) -> None:
    events = [Event.model_validate_json(line) for line in (frozen_master / "events.jsonl").open()]

    assert stages_run(frozen_master) == ["describe", "populate"]
    assert [e.id for e in events] == ["S001", "S002"]
    assert all((frozen_master / e.database).is_file() for e in events)
    assert not (frozen_master / "dialogs.jsonl").exists()


def test_freeze_returns_the_events_it_wrote(tmp_path: Path, script: ScriptedLLM) -> None:
    events = intellagent.freeze(config(), output=tmp_path / "frozen", script=script)
    assert events == [Event.model_validate_json(line) for line in (tmp_path / "frozen" / "events.jsonl").open()]


def test_an_evaluation_on_a_frozen_set_asks_only_simulate_and_report(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    intellagent.evaluate(config(), chatbot=careful, scenarios_from=frozen, output=tmp_path / "run", script=script)

    assert {request.role for request in script.requests} == {"user", "critique", "analysis"}
    assert stages_run(tmp_path / "run") == ["simulate", "report"]
    assert (tmp_path / "run" / "events.jsonl").read_bytes() == (frozen / "events.jsonl").read_bytes()


def test_an_evaluation_leaves_the_frozen_set_as_it_was_but_for_the_calls_it_records(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    files, cached = fingerprints(frozen), cached_steps(frozen)
    intellagent.evaluate(config(), chatbot=careful, scenarios_from=frozen, output=tmp_path / "run", script=script)

    assert fingerprints(frozen) == files
    after = cached_steps(frozen)
    assert after.items() >= cached.items()
    assert {step.split("/")[0] for key, step in after.items() if key not in cached} == {"simulate", "report"}


def test_every_build_is_judged_on_the_same_scenarios(frozen: Path, tmp_path: Path, script: ScriptedLLM) -> None:
    first = intellagent.evaluate(config(), chatbot=careful, scenarios_from=frozen, output=tmp_path / "1", script=script)
    second = intellagent.evaluate(config(), chatbot=hasty, scenarios_from=frozen, output=tmp_path / "2", script=script)

    assert (tmp_path / "1" / "events.jsonl").read_bytes() == (tmp_path / "2" / "events.jsonl").read_bytes()
    assert [d.status for d in first.dialogs] == ["pass", "pass"]
    assert [d.status for d in second.dialogs] == ["pass", "fail"]


def test_the_command_line_runs_simulate_and_report_on_a_frozen_set(
    frozen: Path, tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    config_file = write_config(tmp_path / "shop.yml", chatbot=HASTY_IN_CONFIG)
    files = fingerprints(frozen)

    code = main(["--config", str(config_file), "--scenarios-from", str(frozen), "--output", str(tmp_path / "run"),
                 "--fail-under", "0.8", "--no-progress"])

    out, err = capsys.readouterr()
    assert code == 1
    assert "1 of 2 dialogs passed" in out
    assert err == "gate: pass rate 50.0% (1/2 dialogs) is below --fail-under 0.8\n"
    assert stages_run(tmp_path / "run") == ["simulate", "report"]
    assert {request.role for request in scripted_models.requests} == {"user", "critique", "analysis"}
    assert fingerprints(frozen) == files


def test_labels_travel_with_the_frozen_set_to_each_build_and_apply_to_the_dialogs_they_read(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    intellagent.evaluate(config(), chatbot=careful, scenarios_from=frozen, output=tmp_path / "1", script=script)
    built = RunFolder(tmp_path / "1")
    digests = {a.id: a.source for a in built.analyses.load()}
    (frozen / RunFolder.labels).write_text("".join(
        Label(dialog=d.id, policy=d.policies[0], verdict="held", user_at_fault=False, digest=digests[d.id])
        .model_dump_json() + "\n" for d in built.dialogs.load()))

    again = intellagent.evaluate(config(), chatbot=careful, scenarios_from=frozen, output=tmp_path / "2",
                                 script=script, replay=True)
    other = intellagent.evaluate(config(), chatbot=hasty, scenarios_from=frozen, output=tmp_path / "3", script=script)

    assert (tmp_path / "2" / RunFolder.labels).read_bytes() == (frozen / RunFolder.labels).read_bytes()
    replayed, changed = LABELS.of(again), LABELS.of(other)
    assert (replayed.source, replayed.applied, replayed.stale) == (RunFolder.labels, 2, 0)
    assert changed.stale == 1 and changed.applied == 1  # the hasty build played S002 otherwise
