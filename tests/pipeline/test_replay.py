"""Replay: an evaluation answered entirely from recorded calls asks no model; one it cannot answer stops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import intellagent
from examples.qa_gate.chatbot import careful, hasty
from intellagent.artifacts import RunInfo
from intellagent.cli import main
from intellagent.errors import RunAborted
from intellagent.llm import ScriptedLLM
from tests.pipeline.scripted_pipeline import HASTY_IN_CONFIG, config, write_config


def without_usage(report: intellagent.Report) -> dict:
    data = report.model_dump()
    data["overall"].pop("usage")
    return data


@pytest.fixture
def recorded(frozen: Path, tmp_path: Path, script: ScriptedLLM) -> intellagent.Report:
    """An evaluation of `hasty` on the frozen set, its calls recorded in the set's cache."""
    return intellagent.evaluate(config(), chatbot=hasty, scenarios_from=frozen, output=tmp_path / "recorded",
                                script=script)


def test_a_replayed_evaluation_asks_the_model_nothing_and_reports_the_same(
    recorded: intellagent.Report, frozen: Path, tmp_path: Path
) -> None:
    silent = ScriptedLLM()
    again = intellagent.evaluate(config(), chatbot=hasty, scenarios_from=frozen, output=tmp_path / "again",
                                 replay=True, script=silent)

    assert silent.requests == []
    assert without_usage(again) == without_usage(recorded)
    assert again.overall.usage.calls == 0 and again.overall.usage.cached > 0


def test_a_replay_needs_no_model_at_all(recorded: intellagent.Report, frozen: Path, tmp_path: Path) -> None:
    # No scripted LLM here, as CI replaying a run recorded on OpenAI has no key: nothing needs one.
    again = intellagent.evaluate(config(), chatbot=hasty, scenarios_from=frozen, output=tmp_path / "again",
                                 replay=True)
    assert without_usage(again) == without_usage(recorded)


def test_a_replay_miss_aborts_the_run_naming_the_role_and_step(
    recorded: intellagent.Report, frozen: Path, tmp_path: Path
) -> None:
    silent = ScriptedLLM()
    with pytest.raises(RunAborted, match=r"--replay: no recorded answer for user at simulate/user") as aborted:
        intellagent.evaluate(config(), chatbot=careful, scenarios_from=frozen, output=tmp_path / "new-build",
                             replay=True, script=silent)

    assert aborted.value.exit_code == 3 and silent.requests == []
    info = RunInfo.model_validate_json((tmp_path / "new-build" / "run.json").read_text())
    assert info.status == "aborted" and "no recorded answer" in (info.error or "")


def test_a_fresh_run_keeps_the_recorded_calls_and_replays_them(tmp_path: Path, script: ScriptedLLM) -> None:
    first = intellagent.evaluate(config(), output=tmp_path / "run", script=script)
    silent = ScriptedLLM()

    again = intellagent.evaluate(config(), output=tmp_path / "run", fresh=True, replay=True, script=silent)

    assert silent.requests == []
    assert without_usage(again) == without_usage(first)


def test_the_command_line_replays_a_recorded_evaluation(
    recorded: intellagent.Report, frozen: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_file = write_config(tmp_path / "shop.yml", chatbot=HASTY_IN_CONFIG)

    code = main(["--config", str(config_file), "--scenarios-from", str(frozen), "--output", str(tmp_path / "again"),
                 "--replay", "--no-progress"])

    assert code == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "again" / "report.json").read_text())
    assert report["overall"]["by_status"] == {"pass": 1, "fail": 1, "user_fault": 0, "incomplete": 0, "error": 0}


def test_the_command_line_exits_3_on_a_replay_miss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_file = write_config(tmp_path / "shop.yml")

    code = main(["--config", str(config_file), "--output", str(tmp_path / "run"), "--replay", "--no-progress"])

    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith("aborted: --replay: no recorded answer for policies at describe/")
    assert err.count("\n") == 1
