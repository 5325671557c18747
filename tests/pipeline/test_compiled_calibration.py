"""Programs compiled from the policy in a whole run of the scripted shop: a mutant that skips a step the rule
requires (looking the order up to check its status) is caught by the assertion compiled from the rule alone,
while the scripted judge and every hand-written check pass it; the report says which programs back each
policy's verdict, and how the dialogs kept to their flow's procedure."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import intellagent
from examples.qa_gate.chatbot import careful
from intellagent.chatbots import ChatbotSession
from intellagent.reports.sections.program_figures import PROGRAMS
from intellagent.reports.sections.seeded_violations import CALIBRATION
from intellagent.reports.summary import summary_text
from tests.pipeline.scripted_pipeline import CONFIRM, config, pipeline_script

# P01 ("Cancel an order only if its status is "placed", ...") compiled: the order is looked up before it is
# cancelled, the same order.
LOOKUP_FIRST = {"assertions": [
    {"kind": "order", "policy": "P01", "before": "get_order", "then": "cancel_order",
     "before_argument": "get_order.order_id", "then_argument": "cancel_order.order_id",
     "rationale": CONFIRM.split(",")[0]}]}
# The flow's procedure: look the order up, get the customer's yes, cancel.
PROCEDURE = {"steps": [{"kind": "call", "tool": "get_order", "policies": ["P01"]},
                       {"kind": "confirm", "text": "the cancellation", "policies": ["P01"]},
                       {"kind": "call", "tool": "cancel_order", "policies": ["P01"]}],
             "edges": [{"before": 1, "after": 2}, {"before": 2, "after": 3}]}


def asked_order(messages: list[dict[str, str]]) -> str | None:
    """The order the customer asked to cancel, in any of their messages."""
    for message in messages:
        found = re.search(r"order (\S+?)[.?]", message["content"])
        if message["role"] == "user" and found and "cancel" in message["content"].lower():
            return found.group(1)
    return None


def cancels(messages: list[dict[str, str]], session: ChatbotSession, *, look_up: bool) -> str:
    """Asks the customer to confirm, then cancels their order; looks it up first when `look_up`."""
    order = asked_order(messages)
    text = messages[-1]["content"].lower()
    if order is None or session.world is None:
        return careful(messages)
    if text.startswith("yes"):
        session.world.call("cancel_order", {"order_id": order})
        return "Done: it is cancelled."
    if look_up:
        session.world.call("get_order", {"order_id": order})
    return careful(messages)


def diligent(messages: list[dict[str, str]], session: ChatbotSession) -> str:
    """Looks the order up, asks, cancels once the customer confirms."""
    return cancels(messages, session, look_up=True)


def unlooked(messages: list[dict[str, str]], session: ChatbotSession) -> str:
    """Asks and cancels once the customer confirms, but never looks the order up: the judge sees nothing amiss."""
    return cancels(messages, session, look_up=False)


@pytest.fixture(scope="module")
def compiled_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A frozen set of the scripted shop whose P01 compiled into the lookup-first assertion, and whose flow has a
    procedure."""
    folder = tmp_path_factory.mktemp("compiled") / "shop"
    intellagent.freeze(config(), output=folder, script=pipeline_script(procedure=PROCEDURE, assertions=LOOKUP_FIRST))
    return folder


def test_a_mutant_skipping_the_required_lookup_is_caught_by_the_compiled_assertion_alone(compiled_set: Path,
                                                                                         tmp_path: Path) -> None:
    report = intellagent.evaluate(config(), scenarios_from=compiled_set, output=tmp_path / "run",
                                  script=pipeline_script(), chatbot=diligent,
                                  mutants={"unlooked": intellagent.Mutant(unlooked, breaks="P01")})
    calibration = CALIBRATION.of(report)
    assert calibration is not None
    (mutant,) = calibration.mutants
    assert (mutant.outcome, mutant.caught_by) == ("caught", ["compiled P01.1"])
    played = {dialog.id: dialog for dialog in report.dialogs}
    assert played["S002"].status == "pass"  # the chatbot under test keeps the rule; the mutant alone is caught


@pytest.fixture(scope="module")
def diligent_run(compiled_set: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[intellagent.Report, Path]:
    """The diligent chatbot evaluated on the set: its report, and its run folder."""
    folder = tmp_path_factory.mktemp("diligent") / "run"
    report = intellagent.evaluate(config(), scenarios_from=compiled_set, output=folder, script=pipeline_script(),
                                  chatbot=diligent)
    return report, folder


def test_the_report_says_which_programs_back_each_policy(diligent_run) -> None:
    report, _ = diligent_run
    # P01 by the confirmation check and its assertion, programs that ruled; P02 (privacy) by the expected outcome
    assert {policy.id: policy.backed_by for policy in report.policies} == {"P01": ["program"], "P02": ["outcome"]}
    programs = PROGRAMS.of(report)
    assert programs is not None
    assert (programs.backed.count, programs.backed.total) == (2, 2)
    (assertion,) = programs.assertions
    assert (assertion.id, assertion.in_force, assertion.dialogs, assertion.breached) == ("P01.1", True, 1, 0)


def test_the_dialogs_of_the_flow_are_read_against_its_procedure(diligent_run) -> None:
    report, _ = diligent_run
    programs = PROGRAMS.of(report)
    assert programs is not None
    (flow,) = programs.flows
    assert (flow.steps, flow.followed.count, flow.followed.total, flow.deviations) == (3, 2, 2, [])


def test_the_summary_the_page_and_junit_give_the_share_of_program_backed_verdicts(diligent_run) -> None:
    report, folder = diligent_run
    summary = summary_text(SimpleNamespace(folder=folder, report=report))
    assert "programs: 2 of 2 policies have a verdict a program backs (100%): 1 by programs, 1 by outcomes" in summary
    assert "step order: F1 followed in 2 of 2 dialogs" in summary
    page = (folder / "report.html").read_text()
    assert "Program-backed verdicts" in page and '<svg class="chart procedure"' in page
    assert "a successful get_order before any cancel_order" in page
    assert '<property name="program_backed" value="1.0"' in (folder / "junit.xml").read_text()
