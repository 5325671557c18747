"""Rollouts added to a finished run of the scripted shop: the other stages have nothing left to do, and the
report gains the rollouts' figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent import evaluate
from intellagent.artifacts import Report
from intellagent.llm import ScriptedLLM
from intellagent.reports.sections.rollout_figures import ROLLOUTS
from intellagent.run_folder import RunFolder
from tests.pipeline.scripted_pipeline import config, pipeline_script


@pytest.fixture(scope="module")
def rolled_out(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path, ScriptedLLM]:
    folder = tmp_path_factory.mktemp("whole-rollouts") / "run"
    evaluate(config(), output=folder, script=pipeline_script())
    again = pipeline_script()
    settings = {"enabled": True, "beam": 2, "branch": 2, "max_turns": 3}
    return evaluate(config(rollouts=settings), output=folder, script=again), folder, again


def test_rolling_out_a_finished_run_asks_only_what_the_rollouts_need(
        rolled_out: tuple[Report, Path, ScriptedLLM]) -> None:
    _, folder, script = rolled_out

    assert script.requests and {request.role for request in script.requests} <= {"chatbot", "user", "critique"}
    assert RunFolder(folder).run_info.require().stages["rollouts"].status == "done"


def test_every_graded_event_of_the_run_is_searched(rolled_out: tuple[Report, Path, ScriptedLLM]) -> None:
    _, folder, _ = rolled_out
    run = RunFolder(folder)

    graded = sorted(event.id for event in run.events.load() if event.status == "ok" and event.expected)
    assert graded and [record.id for record in run.rollouts.load()] == graded
    assert all(record.status == "ok" and record.paths > 0 for record in run.rollouts.load())


def test_the_report_sets_the_search_beside_the_dialogs(rolled_out: tuple[Report, Path, ScriptedLLM]) -> None:
    report, folder, _ = rolled_out

    rollouts = ROLLOUTS.of(report)
    assert rollouts is not None and rollouts.events == len(RunFolder(folder).rollouts.load())
    assert rollouts.compared == rollouts.events
    assert "Rollouts and training data" in (folder / "report.html").read_text()


def test_the_rollouts_calls_are_counted_as_theirs_not_simulates(rolled_out: tuple[Report, Path, ScriptedLLM]) -> None:
    _, folder, script = rolled_out
    usage = RunFolder(folder).run_info.require().usage

    searched = sum(record.calls for record in RunFolder(folder).rollouts.load())
    assert usage.stages["rollouts"].calls == searched == len(script.requests)
    assert {step for step in usage.steps if step.startswith("rollouts/")} >= {"rollouts/chatbot", "rollouts/user"}


def test_the_python_api_rolls_out_when_asked(tmp_path: Path) -> None:
    report = evaluate(config(rollouts={"beam": 2, "branch": 2, "max_turns": 3}), output=tmp_path / "run",
                      script=pipeline_script(), rollouts=True)

    rollouts = ROLLOUTS.of(report)
    assert rollouts is not None and rollouts.events > 0
    assert (tmp_path / "run" / "training" / "sft.jsonl").is_file()
