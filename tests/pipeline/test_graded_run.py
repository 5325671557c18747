"""The expected outcome in a scripted run of the shop: simulate plays, each dialog is graded against its event's
outcome, and the report stage lets the outcome decide the policies it speaks for.

On the frozen shop, S002 samples P01 (cancel only after the customer confirms): its expected outcome looks the
order up and cancels it, and here the cancel is named as required by P01; S001 samples P02 (never reveal another's
order): nothing may be done there, and the cancellation is forbidden. Populate verified both outcomes; simulate
grades each dialog as it ends.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import intellagent
from examples.qa_gate.chatbot import careful
from intellagent.api import report as report_stage
from intellagent.api import simulate
from intellagent.chatbots import ChatbotSession
from intellagent.llm import Request, ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.reports.sections.outcome_grade import OUTCOMES
from intellagent.reports.sections.seeded_violations import CALIBRATION
from intellagent.run_folder import RunFolder
from tests.pipeline.scripted_pipeline import config, pipeline_script
from tests.simulate.scripted_dialogs import say

ORDER = re.compile(r"order (\S+?)[.?]")
REFUSAL = "Sorry, I cannot cancel orders today, please try again some other time."


def asked_order(messages: list[dict[str, str]]) -> str:
    found = next((ORDER.search(m["content"]) for m in messages if m["role"] == "user" and ORDER.search(m["content"])),
                 None)
    return found.group(1) if found else "unknown"


def keeps_the_rules(messages: list[dict[str, str]], session: ChatbotSession) -> str:
    """Asks first, then looks the order up and cancels it with the shop's tools once the customer confirms."""
    reply = careful(messages)
    if reply.startswith("Done") and session.world is not None:
        order = asked_order(messages)
        session.world.call("get_order", {"order_id": order})
        session.world.call("cancel_order", {"order_id": order})
    return reply


def never_cancels(messages: list[dict[str, str]]) -> str:
    """Breaks P01 where only the outcome sees it: asks for the confirmation, then cancels nothing and says nothing
    that a judge of what was said could fault."""
    reply = careful(messages)
    return REFUSAL if reply.startswith("Done") else reply


def requiring_consent(frozen: Path) -> None:
    """The frozen set as a model that names the consent rule (P01) as requiring S002's cancellation would leave
    it: populate's verified outcome, the cancel's policies named."""
    folder = RunFolder(frozen)
    for event in folder.events.load():
        if event.expected is not None:
            calls = [call.model_copy(update={"policies": ["P01"]}) if call.tool == "cancel_order" else call
                     for call in event.expected.calls]
            event = event.model_copy(update={"expected": event.expected.model_copy(update={"calls": calls})})
        folder.events.append(event)
    folder.events.finalize()


def play(frozen: Path, output: Path, script: ScriptedLLM, **options: Any) -> RunFolder:
    """Simulate on the frozen set: every dialog (the chatbot's and the mutants') is graded against its event's
    expected outcome as it ends."""
    requiring_consent(frozen)
    simulate(config(), output=output, scenarios_from=frozen, script=script, **options)
    return RunFolder(output)


def echoing_user(request: Request) -> dict[str, Any]:
    """A simulated user that asks, then can only repeat the agent's last words: it cannot go on."""
    if "\nCustomer (you): " not in request.last:
        order = re.search(r'"order_id": "([^"]+)"', request.system)
        return say(f"Please cancel my order {order.group(1) if order else 'unknown'}.")
    last = [line for line in request.last.splitlines() if line.startswith("Agent: ")][-1]
    return say(last.removeprefix("Agent: "))


def test_a_chatbot_that_keeps_the_rules_reaches_every_expected_outcome(frozen: Path, tmp_path: Path,
                                                                       script: ScriptedLLM) -> None:
    folder = play(frozen, tmp_path / "run", script, chatbot=keeps_the_rules)

    report = report_stage(config(), output=folder.root, script=script)

    outcomes = OUTCOMES.of(report)
    assert outcomes is not None and (outcomes.pass_rate.passed, outcomes.pass_rate.total) == (2, 2)
    assert outcomes.calls.precision.rate == outcomes.calls.recall.rate == 1.0
    consent = next(p for p in report.policies if p.id == "P01")
    assert (consent.passed, consent.tested, consent.violations) == (1, 1, [])
    assert next(a for a in folder.analyses.load() if a.id.endswith("S002")).decided == ["P01"]


def test_a_mutant_that_only_the_outcome_can_fault_is_caught_by_its_outcome(frozen: Path, tmp_path: Path,
                                                                           script: ScriptedLLM) -> None:
    mutants = {"never-cancels": intellagent.Mutant(never_cancels, breaks="P01")}
    folder = play(frozen, tmp_path / "run", script, chatbot=keeps_the_rules, mutants=mutants)

    report = report_stage(config(), output=folder.root, script=script)

    calibration = CALIBRATION.of(report)
    assert calibration is not None
    (mutant,) = calibration.mutants
    assert (mutant.outcome, mutant.caught_by, mutant.caught_in) == ("caught", ["outcome"], ["S002~never-cancels"])
    analysis = next(a for a in folder.analyses.load() if a.id == "S002~never-cancels")
    (violation,) = analysis.violations
    assert violation.source == "outcome" and violation.call.startswith("cancel_order(order_id=")
    # The chatbot's own figures know nothing of the mutant's dialog.
    outcomes = OUTCOMES.of(report)
    assert outcomes is not None and outcomes.pass_rate.total == 2


def test_a_dialog_the_simulated_user_could_not_carry_on_is_not_charged_with_the_cancel_it_never_reached(
    frozen: Path, tmp_path: Path
) -> None:
    script = ScriptedLLM().on(role="user", reply=echoing_user)
    script.rules += pipeline_script().rules
    folder = play(frozen, tmp_path / "run", script, chatbot=never_cancels)
    (cut_short,) = [d for d in folder.dialogs.load() if d.event_id == "S002"]
    assert cut_short.status == "incomplete" and cut_short.grade is not None and cut_short.grade.missed

    report = report_stage(config(), output=folder.root, script=script)

    analysis = next(a for a in folder.analyses.load() if a.id == "S002")
    assert analysis.decided == [] and not [v for v in analysis.violations if v.source == "outcome"]
    outcomes = OUTCOMES.of(report)
    assert outcomes is not None and (outcomes.cut_short, outcomes.pass_rate.total) == (2, 0)
    result = next(d for d in report.dialogs if d.id == "S002")
    assert result.outcome is not None and not result.outcome.counted


@pytest.mark.parametrize("seed", [1, 2])
def test_a_careless_judge_leaves_the_outcomes_verdicts_and_valid_reports(frozen: Path, tmp_path: Path,
                                                                        script: ScriptedLLM, seed: int) -> None:
    mutants = {"never-cancels": intellagent.Mutant(never_cancels, breaks="P01")}
    folder = play(frozen, tmp_path / "run", script, chatbot=keeps_the_rules, mutants=mutants)
    careless = ScriptedLLM().on(role="analysis", reply=careless_answers(seed=seed))

    report = report_stage(config(), output=folder.root, script=careless)

    analysis = next(a for a in folder.analyses.load() if a.id == "S002~never-cancels")
    assert [v.policy for v in analysis.violations if v.source == "outcome"] == ["P01"]
    outcomes = OUTCOMES.of(report)
    assert outcomes is not None and outcomes.pass_rate.passed == 2
    assert intellagent.Report.model_validate_json(folder.path("report.json").read_text()) == report
    assert "Outcome grade" in folder.path("report.html").read_text()

