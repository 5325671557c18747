"""The expected outcome in a scripted run of the shop: simulate plays, each dialog is graded against its event's
outcome, and the report stage lets the outcome decide the policies it speaks for.

On the frozen shop, S002 samples P01 (cancel only after the customer confirms): its expected outcome looks the
order up and cancels it; S001 samples P02 (never reveal another's order): nothing may be done there. The dialogs
are graded here as the simulate stage's grader grades them (`graded`), so that these tests depend on the report
stage alone.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import intellagent
from examples.qa_gate.chatbot import careful
from intellagent.api import report as report_stage
from intellagent.api import simulate
from intellagent.artifacts import Dialog, ExpectedCall, ExpectedOutcome, OutcomeGrade
from intellagent.artifacts.outcomes import call_key, call_text
from intellagent.chatbots import ChatbotSession
from intellagent.llm import Request, ScriptedLLM
from intellagent.llm.careless import careless_answers
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


def with_outcomes(frozen: Path) -> dict[str, ExpectedOutcome]:
    """The frozen set's events with their expected outcomes, as populate records them; returns them by event id."""
    folder = RunFolder(frozen)
    outcomes = {}
    for event in folder.events.load():
        order = event.symbols["O1"]
        if event.policies == ["P01"]:
            outcomes[event.id] = ExpectedOutcome(calls=[
                ExpectedCall(tool="get_order", arguments={"order_id": order}, writes=False),
                ExpectedCall(tool="cancel_order", arguments={"order_id": order}, writes=True, policies=["P01"]),
            ])
        else:
            outcomes[event.id] = ExpectedOutcome()  # a refusal: nothing may be done
        folder.events.append(event.model_copy(update={"expected": outcomes[event.id]}))
    folder.events.finalize()
    return outcomes


def graded(dialog: Dialog, expected: ExpectedOutcome, writes: frozenset[str] = frozenset({"cancel_order"})) -> Dialog:
    """The dialog with its grade: calls matched by tool and canonical arguments, the writes it missed or made apart."""
    ran = [(c.name, c.arguments) for m in dialog.transcript for c in m.tool_calls if not c.reported and not c.failed]
    left = Counter(call_key(*c) for c in ran)
    missed, missed_reads, tools = [], [], {}
    for call in expected.calls:
        key = call_key(call.tool, call.arguments)
        counts = tools.setdefault(call.tool, [0, 0, 0])
        counts[0] += 1
        if left[key]:
            left[key] -= 1
            counts[2] += 1
        else:
            (missed if call.writes else missed_reads).append(call.text())
    for name, _ in ran:
        tools.setdefault(name, [0, 0, 0])[1] += 1
    wanted = {call_key(call.tool, call.arguments) for call in expected.calls}
    unexpected = [call_text(*c) for c in ran if c[0] in writes and call_key(*c) not in wanted]
    matched = sum(counts[2] for counts in tools.values())
    state = not missed and not unexpected
    grade = OutcomeGrade(
        reward=float(state), state_match=state, missed=missed, missed_reads=missed_reads, unexpected=unexpected,
        forbidden_made=[call_text(*c) for c in ran if any(f.forbids(*c) for f in expected.forbidden)],
        expected_calls=len(expected.calls), made_calls=len(ran), matched_calls=matched, tools=tools,
        progress=matched / len(expected.calls) if expected.calls else 1.0,
    )
    return dialog.model_copy(update={"grade": grade})


def play_and_grade(frozen: Path, output: Path, script: ScriptedLLM, **options: Any) -> RunFolder:
    """Simulate on the frozen set with its outcomes, then grade every dialog (the chatbot's and the mutants')."""
    outcomes = with_outcomes(frozen)
    simulate(config(), output=output, scenarios_from=frozen, script=script, **options)
    folder = RunFolder(output)
    for dialog in folder.dialogs.load():
        folder.dialogs.append(graded(dialog, outcomes[dialog.event_id]))
    folder.dialogs.finalize()
    return folder


def echoing_user(request: Request) -> dict[str, Any]:
    """A simulated user that asks, then can only repeat the agent's last words: it cannot go on."""
    if "\nCustomer (you): " not in request.last:
        order = re.search(r'"order_id": "([^"]+)"', request.system)
        return say(f"Please cancel my order {order.group(1) if order else 'unknown'}.")
    last = [line for line in request.last.splitlines() if line.startswith("Agent: ")][-1]
    return say(last.removeprefix("Agent: "))


def test_a_chatbot_that_keeps_the_rules_reaches_every_expected_outcome(frozen: Path, tmp_path: Path,
                                                                       script: ScriptedLLM) -> None:
    folder = play_and_grade(frozen, tmp_path / "run", script, chatbot=keeps_the_rules)

    report = report_stage(config(), output=folder.root, script=script)

    assert report.outcomes is not None and (report.outcomes.pass_rate.passed, report.outcomes.pass_rate.total) == (2, 2)
    assert report.outcomes.calls.precision.rate == report.outcomes.calls.recall.rate == 1.0
    consent = next(p for p in report.policies if p.id == "P01")
    assert (consent.passed, consent.tested, consent.violations) == (1, 1, [])
    assert next(a for a in folder.analyses.load() if a.id.endswith("S002")).decided == ["P01"]


def test_a_mutant_that_only_the_outcome_can_fault_is_caught_by_its_outcome(frozen: Path, tmp_path: Path,
                                                                           script: ScriptedLLM) -> None:
    mutants = {"never-cancels": intellagent.Mutant(never_cancels, breaks="P01")}
    folder = play_and_grade(frozen, tmp_path / "run", script, chatbot=keeps_the_rules, mutants=mutants)

    report = report_stage(config(), output=folder.root, script=script)

    assert report.calibration is not None
    (mutant,) = report.calibration.mutants
    assert (mutant.outcome, mutant.caught_by, mutant.caught_in) == ("caught", ["outcome"], ["S002~never-cancels"])
    analysis = next(a for a in folder.analyses.load() if a.id == "S002~never-cancels")
    (violation,) = analysis.violations
    assert violation.source == "outcome" and violation.call.startswith("cancel_order(order_id=")
    # The chatbot's own figures know nothing of the mutant's dialog.
    assert report.outcomes is not None and report.outcomes.pass_rate.total == 2


def test_a_dialog_the_simulated_user_could_not_carry_on_is_not_charged_with_the_cancel_it_never_reached(
    frozen: Path, tmp_path: Path
) -> None:
    script = ScriptedLLM().on(role="user", reply=echoing_user)
    script.rules += pipeline_script().rules
    folder = play_and_grade(frozen, tmp_path / "run", script, chatbot=never_cancels)
    (cut_short,) = [d for d in folder.dialogs.load() if d.event_id == "S002"]
    assert cut_short.status == "incomplete" and cut_short.grade is not None and cut_short.grade.missed

    report = report_stage(config(), output=folder.root, script=script)

    analysis = next(a for a in folder.analyses.load() if a.id == "S002")
    assert analysis.decided == [] and not [v for v in analysis.violations if v.source == "outcome"]
    assert report.outcomes is not None and (report.outcomes.cut_short, report.outcomes.pass_rate.total) == (2, 0)
    result = next(d for d in report.dialogs if d.id == "S002")
    assert result.outcome is not None and not result.outcome.counted


@pytest.mark.parametrize("seed", [1, 2])
def test_a_careless_judge_leaves_the_outcomes_verdicts_and_valid_reports(frozen: Path, tmp_path: Path,
                                                                        script: ScriptedLLM, seed: int) -> None:
    mutants = {"never-cancels": intellagent.Mutant(never_cancels, breaks="P01")}
    folder = play_and_grade(frozen, tmp_path / "run", script, chatbot=keeps_the_rules, mutants=mutants)
    careless = ScriptedLLM().on(role="analysis", reply=careless_answers(seed=seed))

    report = report_stage(config(), output=folder.root, script=careless)

    analysis = next(a for a in folder.analyses.load() if a.id == "S002~never-cancels")
    assert [v.policy for v in analysis.violations if v.source == "outcome"] == ["P01"]
    assert report.outcomes is not None and report.outcomes.pass_rate.passed == 2
    assert intellagent.Report.model_validate_json(folder.path("report.json").read_text()) == report
    assert "Outcome grade" in folder.path("report.html").read_text()

