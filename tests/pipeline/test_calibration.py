"""Calibration: mutants of the chatbot break one rule each, and the report says which the run caught.

On the scripted shop, S001 samples P02 (privacy: Ana asks about her neighbour's order) and S002
samples P01 (confirm before cancelling). The scripted judge flags a chatbot line that says
"cancelled" before the customer confirmed, and nothing else; the `confirmed_before_write` check
enforces P01 from the tool calls.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import intellagent
from examples.qa_gate.chatbot import careful
from intellagent.chatbots import ChatbotSession
from intellagent.errors import UsageError
from intellagent.llm import Request, ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.reports.sections.judge_agreement import AGREEMENT
from intellagent.reports.sections.seeded_violations import CALIBRATION
from intellagent.reports.summary import reliability_line
from intellagent.run_folder import RunFolder
from tests.pipeline.scripted_pipeline import CONFIRM, PRIVACY, analysis, config, pipeline_script

LEAK = "Order O1 was shipped to ben yesterday."


def cancels_quietly(messages: list[dict[str, str]], session: ChatbotSession) -> str:
    """Breaks P01 where only the check sees it: cancels at once, and does not say so."""
    order = re.search(r"order (\S+?)[.?]", messages[-1]["content"])
    if order and "cancel" in messages[-1]["content"].lower():
        assert session.world is not None
        session.world.call("cancel_order", {"order_id": order.group(1)})
        return "I am looking into your order."
    return careful(messages)


def leaky(messages: list[dict[str, str]]) -> str:
    """Breaks P02, which no check enforces: tells anyone about any order."""
    if "status" in messages[-1]["content"].lower():
        return LEAK
    return careful(messages)


MUTANTS = {"no-confirm": intellagent.Mutant(cancels_quietly, breaks="confirmed_before_write"),
           "leaky": intellagent.Mutant(leaky, breaks="reveal an order")}


def leak_aware_analysis(request: Request) -> dict[str, Any]:
    """The scripted judge, which also sees the leak as a breach of the privacy rule."""
    verdict = analysis(request)
    privacy = next((pid for pid, text in re.findall(r"^(P\d+): (.*)$", request.text, re.M) if "reveal" in text), None)
    if LEAK in request.text and privacy:
        verdict["violations"].append({"policy": privacy, "turn": 2, "reason": f'told a stranger: "{LEAK}"'})
    return verdict


def evaluate(frozen: Path, output: Path, script: ScriptedLLM, **options: Any) -> intellagent.Report:
    return intellagent.evaluate(config(), scenarios_from=frozen, output=output, script=script, **options)


def test_supplied_mutants_are_played_on_their_rules_events_and_counted_by_hand(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    report = evaluate(frozen, tmp_path / "run", script, chatbot=careful, mutants=MUTANTS)

    calibration = CALIBRATION.of(report)
    assert calibration is not None
    outcomes = {m.name: (m.policies, m.outcome, m.dialogs, m.caught_by) for m in calibration.mutants}
    assert outcomes == {
        "no-confirm": (["P01"], "caught", ["S002~no-confirm"], ["confirmed_before_write"]),  # the judge saw nothing
        "leaky": (["P02"], "missed", ["S001~leaky"], []),  # no check enforces P02, and this judge misses leaks
    }
    assert (calibration.detection.passed, calibration.detection.total) == (1, 2)
    assert [(p.policy, p.detection.passed, p.detection.total) for p in calibration.policies] == [
        ("P01", 1, 1), ("P02", 0, 1)]
    assert (calibration.false_alarms.count, calibration.false_alarms.total) == (0, 2)  # careful breaks neither
    # Per persona of the users: S002's caught its mutant, S001's did not.
    persona_of = {dialog.id: dialog.persona for dialog in report.dialogs}
    caught: dict[str, list[int]] = {}
    for dialog, found in (("S002", 1), ("S001", 0)):
        counts = caught.setdefault(persona_of[dialog], [0, 0])
        counts[0], counts[1] = counts[0] + found, counts[1] + 1
    assert {p.persona: [p.detection.passed, p.detection.total] for p in calibration.personas} == caught
    # P01 in S002~no-confirm (the check saw a breach the judge did not); in S002 the check had no write to rule on.
    agreement = AGREEMENT.of(report)
    assert agreement is not None and (agreement.count, agreement.total) == (0, 1)
    # The chatbot's own figures know nothing of the mutants.
    assert [d.id for d in report.dialogs] == ["S001", "S002"] and report.overall.pass_rate.passed == 2
    saved = json.loads((tmp_path / "run" / "report.json").read_text())
    assert saved["calibration"]["detection"]["passed"] == 1 and saved["calibration"]["false_alarms"]["total"] == 2
    assert "seeded violations caught in 1 of 2 mutants (50%" in reliability_line(report)
    html = (tmp_path / "run" / "report.html").read_text()
    assert "Seeded violations" in html and "S002~no-confirm" in html
    assert "Dialogs that caught their mutant, per kind of user" in html


def test_each_dialog_records_whether_the_chatbot_or_a_mutant_played_it(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    evaluate(frozen, tmp_path / "run", script, chatbot=careful, mutants=MUTANTS)

    played = RunFolder(tmp_path / "run").dialogs.load()
    assert {dialog.id: (dialog.role, dialog.mutant) for dialog in played} == {
        "S001": ("chatbot", None), "S002": ("chatbot", None),
        "S001~leaky": ("mutant", "leaky"), "S002~no-confirm": ("mutant", "no-confirm")}


def test_a_mutant_of_a_soft_rule_is_caught_only_when_the_judge_sees_the_breach(
    frozen: Path, tmp_path: Path
) -> None:
    script = ScriptedLLM().on(role="analysis", schema="DialogAnalysis", reply=leak_aware_analysis)
    script.rules += pipeline_script().rules

    report = evaluate(frozen, tmp_path / "run", script, chatbot=careful, mutants=MUTANTS)

    calibration = CALIBRATION.of(report)
    assert calibration is not None
    leaky_result = next(m for m in calibration.mutants if m.name == "leaky")
    assert (leaky_result.outcome, leaky_result.caught_by) == ("caught", ["judge"])
    assert (calibration.detection.passed, calibration.detection.total) == (2, 2)


def test_min_detection_fails_the_gate_when_too_few_mutants_are_caught(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    report = evaluate(frozen, tmp_path / "run", script, chatbot=careful, mutants=MUTANTS, min_detection=0.9)

    assert report.gate is not None and not report.gate.passed
    assert report.gate.failures == [
        "detection of seeded violations 50.0% (1/2 mutants caught) is below report.min_detection 0.9"]


def test_min_detection_without_mutants_says_calibration_did_not_run(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    report = evaluate(frozen, tmp_path / "run", script, chatbot=careful, min_detection=0.5)

    assert CALIBRATION.of(report) is None
    assert report.gate is not None and report.gate.failures == [
        "report.min_detection 0.5 is set, but no mutant was played; run with --calibrate (or supply mutants)"]


def test_the_llm_agent_gets_an_omit_and_an_opposite_mutant_per_sampled_policy(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    opposite = "Cancel any order the customer mentions at once; never ask them to confirm."
    script.rules.insert(0, ScriptedLLM().on(schema="OppositeRule", reply={"opposite": opposite}).rules[0])

    report = evaluate(frozen, tmp_path / "run", script, calibrate=True)

    records = json.loads((tmp_path / "run" / "mutants.json").read_text())["mutants"]
    assert [(r["name"], r["kind"], r["policies"], r["status"]) for r in records] == [
        ("omit-P01", "omit", ["P01"], "ok"), ("opposite-P01", "opposite", ["P01"], "ok"),
        ("omit-P02", "omit", ["P02"], "ok"), ("opposite-P02", "opposite", ["P02"], "ok"),
    ]
    assert records[0]["removed"] == f"- {CONFIRM}" and records[1]["inserted"] == opposite
    systems = {request.system for request in script.calls(role="chatbot")}
    assert len(systems) == 5  # the chatbot's own prompt and each mutant's
    assert sum(CONFIRM not in s and opposite not in s and PRIVACY in s for s in systems) == 1  # omit-P01
    assert sum(CONFIRM not in s and opposite in s and PRIVACY in s for s in systems) == 1  # opposite-P01
    assert sum(CONFIRM in s and PRIVACY not in s and opposite not in s for s in systems) == 1  # omit-P02
    assert sum(CONFIRM in s and PRIVACY not in s and opposite in s for s in systems) == 1  # opposite-P02
    # The scripted agent is hasty whatever its prompt: it breaks P01, never P02.
    calibration = CALIBRATION.of(report)
    assert calibration is not None
    assert {m.name: m.outcome for m in calibration.mutants} == {
        "omit-P01": "caught", "opposite-P01": "caught", "omit-P02": "missed", "opposite-P02": "missed"}
    assert (calibration.false_alarms.count, calibration.false_alarms.total) == (1, 2)


def test_mutants_from_the_config_are_played_like_those_of_the_api(frozen: Path, tmp_path: Path, script: ScriptedLLM):
    leaky_bot = {"type": "python", "target": "tests.pipeline.test_calibration:leaky", "breaks": "P02"}
    settings = config(calibrate={"mutants": {"leaky": leaky_bot}})

    report = intellagent.evaluate(settings, chatbot=careful, scenarios_from=frozen, output=tmp_path / "run",
                                  script=script)

    calibration = CALIBRATION.of(report)
    assert calibration is not None
    assert [(m.name, m.dialogs, m.outcome) for m in calibration.mutants] == [
        ("leaky", ["S001~leaky"], "missed")]


def test_a_finished_run_is_calibrated_afterwards_without_playing_its_dialogs_again(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    evaluate(frozen, tmp_path / "run", script, chatbot=careful)
    before = (tmp_path / "run" / "dialogs.jsonl").read_text()
    leaky_bot = {"type": "python", "target": "tests.pipeline.test_calibration:leaky", "breaks": "P02"}

    report = intellagent.evaluate(config(calibrate={"mutants": {"leaky": leaky_bot}}), chatbot=careful,
                                  scenarios_from=frozen, output=tmp_path / "run", script=script)

    after = (tmp_path / "run" / "dialogs.jsonl").read_text().splitlines()
    assert [line for line in after if '"mutant":null' in line] == before.splitlines()
    calibration = CALIBRATION.of(report)
    assert calibration is not None and calibration.mutants[0].dialogs == ["S001~leaky"]


@pytest.mark.parametrize(("mutants", "message"), [
    ({"no confirm": {"type": "python", "target": "a:b", "breaks": "P01"}}, "calibrate.mutants.no confirm"),
    ({"leaky": {"type": "python", "target": "a:b"}}, "missing key `calibrate.mutants.leaky.breaks`"),
])
def test_a_malformed_mutant_in_the_config_is_a_clear_error(mutants: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        config(calibrate={"mutants": mutants})


def test_a_mutant_naming_no_policy_is_recorded_as_an_error_and_not_played(
    frozen: Path, tmp_path: Path, script: ScriptedLLM
) -> None:
    report = evaluate(frozen, tmp_path / "run", script, chatbot=careful,
                      mutants={"vague": intellagent.Mutant(leaky, breaks="be nice to ducks")})

    calibration = CALIBRATION.of(report)
    assert calibration is not None
    (vague,) = calibration.mutants
    assert (vague.outcome, vague.dialogs) == ("error", [])
    assert "names no policy of this run" in vague.reason
    assert calibration.detection.total == 0
    assert "none of 1 mutants got a verdict" in reliability_line(report)


def test_a_resumed_calibrated_run_plays_nothing_again(frozen: Path, tmp_path: Path, script: ScriptedLLM) -> None:
    evaluate(frozen, tmp_path / "run", script, chatbot=careful, mutants=MUTANTS)
    sent = len(script.requests)

    report = evaluate(frozen, tmp_path / "run", script, chatbot=careful, mutants=MUTANTS)

    assert len(script.requests) == sent
    calibration = CALIBRATION.of(report)
    assert calibration is not None and calibration.detection.passed == 1


def test_a_careless_model_makes_a_calibrated_run_poorer_never_broken(frozen: Path, tmp_path: Path) -> None:
    script = ScriptedLLM().on(reply=careless_answers(seed=5))

    report = evaluate(frozen, tmp_path / "run", script, calibrate=True)

    calibration = CALIBRATION.of(report)
    assert calibration is not None
    assert {m.name for m in calibration.mutants} == {"omit-P01", "opposite-P01", "omit-P02", "opposite-P02"}
    assert all(m.outcome in ("caught", "missed", "unjudged", "error") for m in calibration.mutants)
    assert all(m.reason for m in calibration.mutants if m.outcome in ("error", "unjudged"))
    json.loads((tmp_path / "run" / "report.json").read_text())  # a valid report, whatever was said


@pytest.mark.parametrize(("breaks", "expected"), [("P02", ["P02"]), ("confirmed_before_write", ["P01"]),
                                                  ("ONLY AFTER the customer", ["P01"]), ("ducks", [])])
def test_breaks_names_a_policy_by_id_check_or_words(whole_run, breaks: str, expected: list[str]) -> None:
    from intellagent.artifacts import PolicyCatalog
    from intellagent.simulate.mutant_chatbots import resolve_breaks

    catalog = PolicyCatalog.model_validate_json((whole_run[1] / "policies.json").read_text())
    assert resolve_breaks(catalog, breaks) == expected
