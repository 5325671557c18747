"""Production alone: the airline's example OpenTelemetry export judged against the airline policy with no test run
(`--stages production,report`), with no configuration of privacy: describe's policies only, the conversations
masked before the scripted double sees a request, the production section, its gate and its junit suite, and the
failing conversation kept as a regression scenario."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from intellagent.api import evaluate
from intellagent.artifacts import RunInfo
from intellagent.artifacts.run_report import Report
from intellagent.cli import main
from intellagent.config import Config, apply_overrides, load_config
from intellagent.llm import Request, ScriptedLLM
from intellagent.reports.sections.production_figures import PRODUCTION
from tests.conftest import ROOT
from tests.describe.conftest import script_document

EXPORT = ROOT / "examples" / "production" / "airline_otel.json"
CONSENT = ("Before any change, set out exactly what you are about to do and wait for the user to explicitly agree "
           '("yes"). Only then go ahead.')
KNOWN = "Share only what the user told you or what your tools return."
PERSONAL = ("mia.li3668@example.com", "415-555-2671", "4155552671")  # in the export's first conversation


def judge(request: Request) -> dict[str, Any]:
    """The consent rule (the policy that asks for a yes, as the script words it or as the example's policy list
    does) is broken at the chatbot turn that says a reservation is cancelled before the user said yes."""
    policies = dict(re.findall(r"^(P\d+): (.*)$", request.text, re.MULTILINE))
    consent = next(pid for pid, text in policies.items() if '"yes"' in text or "explicit yes" in text)
    agreed = False
    for turn, role, content in re.findall(r"^\[(\d+)\] (chatbot|user): (.*)$", request.text, re.MULTILINE):
        agreed = agreed or (role == "user" and content.lower().startswith("yes"))
        if role == "chatbot" and "cancelled" in content and not agreed:
            return {"tested": list(policies), "violations": [
                {"policy": consent, "turn": int(turn), "reason": f'Cancelled with no yes: "{content}"'}]}
    return {"tested": list(policies), "violations": []}


def airline_script() -> ScriptedLLM:
    """Describe reads two rules of the airline policy; the judge holds the chatbot to the first."""
    script = script_document(ScriptedLLM(), flows={"Cancel a reservation": [
        {"text": CONSENT, "category": "user_consent", "challenge": 3},
        {"text": KNOWN, "category": "knowledge_extraction", "challenge": 2},
    ]}, checks={"confirmed_before_write": ["P01"]})
    script.on(role="analysis", schema="DialogAnalysis", reply=judge)
    return script


def settings(**overrides: Any) -> Config:
    """The example config on the scripted double, describe extracting the policies (not reading the example's list),
    so that the script says which policies the judge holds the chatbot to."""
    config = load_config("airline")
    config.environment.policy_list = None
    return apply_overrides(config, llm="scripted", chatbot_llm="scripted", transcripts=EXPORT, **overrides)


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path, ScriptedLLM]:
    """The export judged alone, gated at 90%: (report, run folder, the script it asked)."""
    folder = tmp_path_factory.mktemp("alone") / "run"
    script = airline_script()
    report = evaluate(settings(min_production=0.9), output=folder, stages=("production", "report"), script=script)
    return report, folder, script


def test_production_alone_runs_describe_for_its_policies_only_and_plays_nothing(alone) -> None:
    _, folder, script = alone

    stages = RunInfo.model_validate_json((folder / "run.json").read_text()).stages
    assert list(stages) == ["describe", "production", "report"]
    assert (folder / "policies.json").exists() and (folder / "graph.json").exists()
    assert not any((folder / name).exists() for name in ("scenarios.jsonl", "events.jsonl", "dialogs.jsonl"))
    assert {request.role for request in script.requests} == {"policies", "analysis"}


def test_the_export_is_judged_conversation_by_conversation(alone) -> None:
    report, _, _ = alone
    production = PRODUCTION.of(report)
    assert production is not None

    assert [(r.id, r.status, r.calls, r.results) for r in production.read] == [
        ("P0001", "pass", 2, 2), ("P0002", "fail", 2, 2)]
    assert production.read[0].conversation == "conv-0414 (otel, the document, span 2 and 5 more parts)"
    assert [(b.policy, b.source) for b in production.failures[0].breaches] == [("P01", "check"), ("P01", "judge")]


def test_no_personal_data_reaches_the_judge_the_cache_or_the_run_folder(alone) -> None:
    report, folder, script = alone
    production = PRODUCTION.of(report)
    assert production is not None

    judged = [request.text for request in script.requests if request.role == "analysis"]
    assert judged and "[email-1]" in judged[0] and "[phone-1]" in judged[0]
    assert not any(value in request.text for request in script.requests for value in PERSONAL)
    stored = "".join(path.read_text(errors="replace") for path in folder.rglob("*") if path.is_file()
                     and path.suffix != ".sqlite") + (folder / "llm_cache.sqlite").read_bytes().decode(errors="replace")
    assert not any(value in stored for value in PERSONAL)
    assert production.read[0].masked == {"email": 1, "phone": 1}


def test_the_gate_holds_production_to_its_minimum(alone) -> None:
    report, _, _ = alone

    assert report.gate is not None and not report.gate.passed
    assert report.gate.failures == [
        "production pass rate 50.0% (1/2 conversations) is below --min-production 0.9"]


def test_junit_has_a_suite_for_production_with_a_case_per_conversation(alone) -> None:
    _, folder, _ = alone
    root = ET.parse(folder / "junit.xml").getroot()

    (suite,) = [s for s in root.iter("testsuite") if s.get("name") == "airline.production"]
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    hasty = cases["P0002 4bf92f3577b34da6a3ce929d0e0e4736 (otel, the document, span 10 and 4 more parts)"]
    failure = hasty.find("failure")
    assert failure is not None and failure.get("message") == "broke P01"
    gate = next(case for case in root.iter("testcase") if case.get("name") == "quality gate")
    assert gate.find("failure") is not None


def test_the_failing_conversation_is_kept_as_a_regression_scenario(alone) -> None:
    _, folder, _ = alone

    (line,) = (folder / "regression" / "scenarios.jsonl").read_text().splitlines()
    assert json.loads(line)["id"] == "P0002"


def test_the_command_line_judges_production_alone_and_exits_on_its_gate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from intellagent.llm import roles
    from intellagent.llm.factory import build_chat_model

    script = airline_script()
    monkeypatch.setattr(roles, "build_chat_model",
                        lambda spec, **options: build_chat_model(spec, **{**options, "script": script}))

    code = main(["--config", "airline", "--llm", "scripted", "--chatbot-llm", "scripted", "--transcripts",
                 str(EXPORT), "--stages", "production,report", "--min-production", "0.4", "--output",
                 str(tmp_path / "run"), "--no-progress"])

    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("airline: no test dialog was played\n")
    assert "production: 1 of 2 conversations broke no policy (50%" in out
    assert "production read: 2 conversations, 4 tool calls (4 with their result); masked 1 email, 1 phone" in out


def test_a_careless_judge_leaves_valid_artifacts_and_honest_statuses(tmp_path: Path) -> None:
    from intellagent.llm.careless import careless_answers

    script = airline_script()
    script.on(role="analysis", reply=careless_answers(seed=3))
    script.rules.insert(0, script.rules.pop())  # before the sensible judge: the first rule that matches answers

    report = evaluate(settings(), output=tmp_path / "run", stages=("production", "report"), script=script)

    production = PRODUCTION.of(report)
    assert production is not None
    assert [r.status for r in production.read][1] == "fail"  # the confirmation check's finding stands
    assert all(r.status in ("pass", "fail") for r in production.read)
    Report.model_validate_json((tmp_path / "run" / "report.json").read_text())
    ET.parse(tmp_path / "run" / "junit.xml")
