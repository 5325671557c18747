"""Calibration of a compiled assertion: a mutant that skips a step the rule requires (looking the order up to
check its status) is caught by the assertion compiled from the rule alone, while the scripted judge and every
hand-written check pass it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import intellagent
from examples.qa_gate.chatbot import careful
from intellagent.chatbots import ChatbotSession
from tests.pipeline.scripted_pipeline import CONFIRM, config, pipeline_script

# P01 ("Cancel an order only if its status is "placed", ...") compiled: the order is looked up before it is
# cancelled, the same order.
LOOKUP_FIRST = {"assertions": [
    {"kind": "order", "policy": "P01", "before": "get_order", "then": "cancel_order",
     "before_argument": "get_order.order_id", "then_argument": "cancel_order.order_id",
     "rationale": CONFIRM.split(",")[0]}]}


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
    """A frozen set of the scripted shop whose P01 compiled into the lookup-first assertion."""
    folder = tmp_path_factory.mktemp("compiled") / "shop"
    intellagent.freeze(config(), output=folder, script=pipeline_script(assertions=LOOKUP_FIRST))
    return folder


def test_a_mutant_skipping_the_required_lookup_is_caught_by_the_compiled_assertion_alone(compiled_set: Path,
                                                                                         tmp_path: Path) -> None:
    report = intellagent.evaluate(config(), scenarios_from=compiled_set, output=tmp_path / "run",
                                  script=pipeline_script(), chatbot=diligent,
                                  mutants={"unlooked": intellagent.Mutant(unlooked, breaks="P01")})
    assert report.calibration is not None
    (mutant,) = report.calibration.mutants
    assert (mutant.outcome, mutant.caught_by) == ("caught", ["compiled P01.1"])
    played = {dialog.id: dialog for dialog in report.dialogs}
    assert played["S002"].status == "pass"  # the chatbot under test keeps the rule; the mutant alone is caught


def test_the_report_says_a_program_backs_the_compiled_rule(compiled_set: Path, tmp_path: Path) -> None:
    report = intellagent.evaluate(config(), scenarios_from=compiled_set, output=tmp_path / "run",
                                  script=pipeline_script(), chatbot=diligent)
    backed = {policy.id: policy.backed_by for policy in report.policies}
    assert backed["P01"][-1] == "assertion" and "assertion" not in backed["P02"]
    assert report.programs is not None
    (assertion,) = report.programs.assertions
    assert (assertion.id, assertion.in_force, assertion.dialogs, assertion.breached) == ("P01.1", True, 1, 0)
