"""A whole scripted run of the shop given its production conversations (tests/production/shop_transcripts.py):
judged as dialogs, masked before any request, set beside the tests in the report, shaping the sampling, and the
failing one kept as a regression scenario that --scenarios-from plays."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from intellagent.api import evaluate
from intellagent.artifacts import Analysis, Dialog, Event, RunInfo
from intellagent.artifacts.run_report import Report
from intellagent.cli import main
from intellagent.config import Config
from intellagent.llm import ScriptedLLM
from intellagent.reports.sections.production_figures import PRODUCTION
from tests.pipeline.scripted_pipeline import config, pipeline_script, write_config
from tests.production.shop_transcripts import write_transcripts

EMAIL = "ana@example.com"
REDACT = {"fields": ["customer"], "patterns": [r"[\w.]+@[\w.]+\.\w+"]}


def settings(folder: Path) -> Config:
    """The run's config: the three conversations and a malformed line (transcripts.jsonl in `folder`), emails
    masked, sampling by them."""
    return config(transcripts={"path": str(folder / "transcripts.jsonl"), "redact": REDACT},
                  describe={"challenge_range": [3, 3], "max_attempts": 1, "weights_from": "transcripts"})


@pytest.fixture(scope="module")
def production_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path, ScriptedLLM]:
    """The scripted shop run given its production conversations: (report, run folder, the script it asked)."""
    folder = tmp_path_factory.mktemp("production")
    write_transcripts(folder / "transcripts.jsonl")
    script = pipeline_script()
    report = evaluate(settings(folder), output=folder / "run", script=script)
    return report, folder / "run", script


def analyses(folder: Path) -> dict[str, Analysis]:
    return {a.id: a for a in map(Analysis.model_validate_json, (folder / "production.jsonl").open())}


def transcripts(folder: Path) -> dict[str, Dialog]:
    return {d.id: d for d in map(Dialog.model_validate_json, (folder / "transcripts.jsonl").open())}


def test_each_conversation_gets_the_policies_it_tested_and_broke_with_the_turn(production_run) -> None:
    _, folder, _ = production_run
    found = analyses(folder)

    assert {pid: a.status for pid, a in found.items()} == {"P0001": "fail", "P0002": "pass", "P0003": "pass",
                                                             "P0004": "error"}
    assert found["P0001"].tested == ["P01", "P02"]
    assert {(v.policy, v.turn, v.source) for v in found["P0001"].violations} == {("P01", 2, "check"),
                                                                                 ("P01", 2, "judge")}


def test_a_write_before_the_users_yes_is_found_by_the_confirmation_check(production_run) -> None:
    _, folder, _ = production_run
    hasty, careful = transcripts(folder)["P0001"], transcripts(folder)["P0002"]

    assert [(f.check, f.call) for f in hasty.findings] == [("confirmed_before_write",
                                                            'cancel_order({"order_id": "A7"})')]
    assert careful.findings == []


def test_a_check_that_needs_a_world_is_marked_not_applicable_and_rules_on_nothing(production_run) -> None:
    report, folder, _ = production_run
    hasty = transcripts(folder)["P0001"]

    assert "writes_are_valid" in hasty.inapplicable and "writes_are_valid" not in hasty.checks
    assert "confirmed_before_write" in hasty.checks
    production = PRODUCTION.of(report)
    assert production is not None and production.not_applicable == ["writes_are_valid"]


def test_a_malformed_line_is_reported_with_its_number_and_skipped(production_run) -> None:
    report, folder, _ = production_run

    assert transcripts(folder)["P0004"].reason.startswith("line 4: not JSON")
    production = PRODUCTION.of(report)
    assert production is not None and production.skipped == [transcripts(folder)["P0004"].reason]
    assert production.by_status["error"] == 1


def test_marked_data_is_masked_before_any_request_and_in_the_run_folder(production_run) -> None:
    _, folder, script = production_run
    judged = [r for r in script.requests if r.role == "analysis" and "real conversation" in r.text]

    assert len(judged) == 3  # the three conversations, each judged once though describe asked first
    assert all(EMAIL not in request.text for request in script.requests)
    assert "[redacted-1]" in judged[0].text
    assert EMAIL not in (folder / "transcripts.jsonl").read_text()
    assert EMAIL not in (folder / "regression" / "events.jsonl").read_text()


def test_the_report_sets_production_beside_the_tests(production_run) -> None:
    report, folder, _ = production_run
    production = PRODUCTION.of(report)
    assert production is not None

    assert (production.pass_rate.passed, production.pass_rate.total) == (2, 3)
    assert production.worst == ["P01"]
    assert [(p.id, p.seen, p.broken) for p in production.policies] == [("P01", 3, 1), ("P02", 3, 0)]
    assert "Policy graph shaded by production traffic" in (folder / "report.html").read_text()


def test_sampling_by_transcripts_records_the_plain_graph(production_run) -> None:
    _, folder, _ = production_run
    graph = json.loads((folder / "graph.json").read_text())

    assert all("focus" not in node for node in graph["nodes"])


def test_the_failing_conversation_is_a_regression_scenario_with_the_world_its_tools_showed(production_run) -> None:
    _, folder, _ = production_run
    (event,) = map(Event.model_validate_json, (folder / "regression" / "events.jsonl").open())

    assert event.id == "P0001" and event.policies[0] == "P01"
    assert "Please cancel my order A7" in event.scenario
    assert event.user_rows == {"orders": [{"order_id": "A7", "customer": "[redacted-1]", "status": "placed"}]}
    assert event.expected is None and event.expected_error


def test_scenarios_from_the_regression_set_plays_it(production_run, tmp_path: Path,
                                                     scripted_models: ScriptedLLM) -> None:
    _, folder, _ = production_run
    written = write_config(tmp_path / "shop.yml")

    code = main(["--config", str(written), "--scenarios-from", str(folder / "regression"),
                 "--output", str(tmp_path / "replay"), "--no-progress"])

    played = [Dialog.model_validate_json(line) for line in (tmp_path / "replay" / "dialogs.jsonl").open()]
    assert code in (0, 1)
    assert [(d.event_id, d.status != "error") for d in played] == [("P0001", True)]
    assert "get_order" in {c.name for m in played[0].transcript for c in m.tool_calls}
    assert list(RunInfo.model_validate_json((tmp_path / "replay" / "run.json").read_text()).stages) == [
        "simulate", "report"]


def test_a_careless_judge_leaves_honest_statuses_and_a_valid_report(tmp_path: Path) -> None:
    from intellagent.llm.careless import careless_answers

    script = pipeline_script()
    script.on(role="analysis", reply=careless_answers(seed=5))  # the judge answers anything its schema allows
    script.rules.insert(0, script.rules.pop())  # before the sensible judge: the first rule that matches answers
    transcripts = write_transcripts(tmp_path / "t.jsonl")
    report = evaluate(config(transcripts=str(transcripts)), output=tmp_path / "run", script=script)

    found = analyses(tmp_path / "run")
    assert found["P0004"].status == "error"  # the malformed line, whatever the judge says
    assert all(a.status in ("pass", "fail") for pid, a in found.items() if pid != "P0004")
    assert found["P0001"].status == "fail"  # the confirmation check's finding stands whatever the judge said
    production = PRODUCTION.of(report)
    assert production is not None and production.conversations == 4
    assert any(r.role == "analysis" and "real conversation" in r.text for r in script.requests)


def test_the_end_of_run_summary_has_a_line_for_production(production_run) -> None:
    from intellagent.reports.sections.production_figures import production_line

    report, _, _ = production_run
    production = PRODUCTION.of(report)
    assert production is not None
    assert production_line(production) == (
        "production: 2 of 3 conversations broke no policy (67%, 95% CI 21%–94%); worst P01; 1 record skipped; "
        "1 regression scenario in regression/")


def test_a_missing_transcripts_file_stops_the_command_line_before_any_call(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    written = write_config(tmp_path / "shop.yml")

    code = main(["--config", str(written), "--transcripts", str(tmp_path / "nowhere.jsonl"),
                 "--output", str(tmp_path / "run"), "--no-progress"])

    error = capsys.readouterr().err
    assert code == 2
    assert error.startswith("error: transcripts: file") and "nowhere.jsonl not found" in error
    assert scripted_models.requests == []


def test_sampling_by_transcripts_without_any_is_a_config_error() -> None:
    from intellagent.errors import UsageError

    with pytest.raises(UsageError, match="weights_from is transcripts, and no transcripts are given"):
        config(describe={"weights_from": "transcripts"})


def test_judging_production_again_keeps_what_playing_the_regression_set_recorded(production_run,
                                                                                  tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(production_run[1], copy)
    shutil.copy2(production_run[1].parent / "transcripts.jsonl", tmp_path / "transcripts.jsonl")
    (copy / "regression" / "llm_cache.sqlite").write_text("recorded")

    evaluate(settings(copy.parent), output=copy, stages=("production",), script=pipeline_script())

    assert (copy / "regression" / "llm_cache.sqlite").read_text() == "recorded"
    assert (copy / "regression" / "events.jsonl").read_bytes() == (
        production_run[1] / "regression" / "events.jsonl").read_bytes()


def test_the_report_shows_each_failing_conversation_with_its_evidence(production_run) -> None:
    report, folder, _ = production_run
    production = PRODUCTION.of(report)
    assert production is not None
    (failure,) = production.failures

    assert (failure.id, failure.conversation) == ("P0001", "chat-hasty (chat, line 1)")
    assert [(b.policy, b.turn, b.source) for b in failure.breaches] == [("P01", 2, "check"), ("P01", 2, "judge")]
    assert "chat-hasty (chat, line 1)" in (folder / "report.html").read_text()


def test_a_config_names_its_transcripts_by_a_path_relative_to_its_own_folder(tmp_path: Path) -> None:
    from intellagent.config import load_config

    written = write_config(tmp_path / "configs" / "shop.yml", transcripts="logs/t.jsonl")

    assert load_config(written).transcripts.path == tmp_path / "configs" / "logs" / "t.jsonl"


def test_a_pattern_that_is_not_a_regular_expression_is_a_one_line_config_error(tmp_path: Path) -> None:
    from intellagent.config import load_config
    from intellagent.errors import UsageError

    written = write_config(tmp_path / "shop.yml", transcripts={"path": "t.jsonl", "redact": {"patterns": ["(oops"]}})

    with pytest.raises(UsageError, match=r"transcripts.redact.patterns.*is not a regular expression"):
        load_config(written)


def test_describe_samples_by_productions_verdicts_without_running_the_production_stage(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from intellagent.graphs import production

    def no_stage(*args: object, **kwargs: object) -> None:
        raise AssertionError("describe ran the production stage")

    monkeypatch.setattr(production, "run", no_stage)
    monkeypatch.setattr(production, "build_graph", no_stage)
    write_transcripts(tmp_path / "transcripts.jsonl")

    evaluate(settings(tmp_path), output=tmp_path / "run", stages=("describe",), script=pipeline_script())

    assert {pid: a.status for pid, a in analyses(tmp_path / "run").items()} == {
        "P0001": "fail", "P0002": "pass", "P0003": "pass", "P0004": "error"}
    assert not (tmp_path / "run" / "regression").exists()  # the stage's own work, left to it
    assert list(RunInfo.model_validate_json((tmp_path / "run" / "run.json").read_text()).stages) == ["describe"]
