"""The carrier's deterministic checks flag scripted chatbots that break a rule, and only those.

Each dialog runs the real tools on a copy of τ²-bench's data (John Smith's phone in hand), then every check reads
its trace; no LLM is involved. A chatbot here looks John up by his line's number, says what it will do, and acts
after his "yes", unless a test says otherwise. The check of the phone reads its changes whoever made them: the
customer in a dual dialog, the chatbot holding the phone's tools in a solo one.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from intellagent.artifacts import Finding, Message, ToolCall
from intellagent.checks import run_checks
from intellagent.environment import Environment
from tests.telecom.conftest import BASIC_LINE, JOHN, NUMBER, PREMIUM_LINE, World

Action = tuple[str, dict[str, Any]]
Turn = tuple[str, str, list[Action]]
DOMAIN_CHECKS = {"refuel_at_most_two_gb", "payment_asked_only_for_an_overdue_bill", "resume_only_when_allowed",
                 "customer_identified_before_changes", "phone_changed_only_as_the_steps_say"}


def play(world: World, turns: list[Turn], *, environment: Environment | None = None) -> dict[str, list[Finding]]:
    """Run the turns' tool calls on a copy of the world (each side's own, or every tool by the chatbot when the
    environment is the solo one), then every check; findings by check name."""
    env = environment or world.telecom
    dialog = world.path.parent / "dialog.sqlite"
    shutil.copyfile(world.path, dialog)
    messages = []
    for number, (role, content, calls) in enumerate(turns):
        made = []
        for index, (name, arguments) in enumerate(calls):
            with env.session(dialog) as session:
                result = env.call_tool(session, name, arguments, by="company" if role == "chatbot" else "user")
            made.append(ToolCall(id=f"c{number}.{index}", name=name, arguments=arguments, result=result))
        messages.append(Message(role=role, content=content, tool_calls=made))
    names, findings, _ = run_checks(env, messages, before=world.path, database=dialog)
    assert set(names) >= DOMAIN_CHECKS  # every check ran: one that raises is left out, which would hide a breach
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        found.setdefault(finding.check, []).append(finding)
    return found


def identified() -> list[Turn]:
    return [("chatbot", "Hello! How can I help?", []), ("user", f"Hi, my number is {NUMBER}.", []),
            ("chatbot", "Thank you, I found your account.", [("get_customer_by_phone", {"phone_number": NUMBER})])]


def confirmed(action: Action) -> list[Turn]:
    return [("user", "Can you do that for me?", []), ("chatbot", "I will do exactly that. Shall I go ahead?", []),
            ("user", "Yes, please go ahead.", []), ("chatbot", "Done.", [action])]


def on_the_phone(*actions: Action) -> list[Turn]:
    """The chatbot asks John to act on his phone, and he does, then says so."""
    return [("chatbot", "Please change that on your phone.", []), ("user", "Done.", list(actions))]


def suspended_for_a_bill(world: World, *, contract_ended: bool = False) -> None:
    world.tau("assistant", "suspend_line_for_overdue_bill", customer_id=JOHN, line_id=PREMIUM_LINE,
              new_bill_id="B1234321", contract_ended=contract_ended)


def messages(found: dict[str, list[Finding]], check: str) -> list[str]:
    return [finding.message for finding in found.get(check, [])]


def test_adding_more_than_two_gb_at_once_is_flagged(world: World) -> None:
    found = play(world, [*identified(), *confirmed(("refuel_data", {"customer_id": JOHN, "line_id": BASIC_LINE,
                                                                     "gb_amount": 3.0}))])
    assert messages(found, "refuel_at_most_two_gb") == ["3.0 GB added at once; at most 2 GB may be"]


def test_asking_payment_of_a_bill_that_is_not_overdue_is_flagged(world: World) -> None:
    found = play(world, [*identified(), *confirmed(("send_payment_request", {"customer_id": JOHN,
                                                                             "bill_id": "B1002"}))])
    assert messages(found, "payment_asked_only_for_an_overdue_bill") == [
        "bill B1002 is Issued, not overdue; only an overdue bill's payment is asked for"]


def test_resuming_before_the_overdue_bill_is_paid_is_flagged(world: World) -> None:
    suspended_for_a_bill(world)
    found = play(world, [*identified(), *confirmed(("resume_line", {"customer_id": JOHN, "line_id": PREMIUM_LINE}))])
    assert messages(found, "resume_only_when_allowed") == ["bill(s) B1234321 of customer C1001 are still overdue"]


def test_resuming_a_line_whose_contract_ended_is_flagged_even_once_paid(world: World) -> None:
    suspended_for_a_bill(world, contract_ended=True)
    paid = [*confirmed(("send_payment_request", {"customer_id": JOHN, "bill_id": "B1234321"})),
            *on_the_phone(("make_payment", {}))]
    found = play(world, [*identified(), *paid,
                         *confirmed(("resume_line", {"customer_id": JOHN, "line_id": PREMIUM_LINE}))])
    assert messages(found, "resume_only_when_allowed") == [
        "the contract of line L1002 ended on 2025-01-31; its suspension may not be lifted"]


def test_the_overdue_bill_path_done_in_order_gets_no_finding(world: World) -> None:
    suspended_for_a_bill(world)
    turns = [*identified(), *confirmed(("send_payment_request", {"customer_id": JOHN, "bill_id": "B1234321"})),
             *on_the_phone(("check_payment_request", {}), ("make_payment", {})),
             *confirmed(("resume_line", {"customer_id": JOHN, "line_id": PREMIUM_LINE})),
             *on_the_phone(("reboot_device", {}))]
    assert play(world, turns) == {}


def test_a_change_made_before_the_customer_was_looked_up_is_flagged(world: World) -> None:
    found = play(world, [("chatbot", "Hello!", []), ("user", "Please turn roaming on for C1001, line L1001.", []),
                         ("chatbot", "Done.", [("enable_roaming", {"customer_id": JOHN, "line_id": BASIC_LINE})])])
    assert messages(found, "customer_identified_before_changes") == [
        "customer C1001 was not looked up before this change to their account"]


@pytest.mark.parametrize(("action", "message"), [
    (("toggle_data", {}), "the phone was left worse off (Mobile Data is now OFF), which no step asks for"),
    (("toggle_wifi_calling", {}), "the phone was left worse off (Wi-Fi Calling is now ON), which no step asks for"),
    (("set_network_mode_preference", {"mode": "3g_only"}),
     "the phone's network mode was set to 3g_only; the steps only ever ask for 4g_5g_preferred"),
])
def test_a_change_to_the_phone_that_no_step_asks_for_is_a_finding_at_the_customers_turn(
        world: World, action: Action, message: str) -> None:
    (finding,) = play(world, [*identified(), *on_the_phone(action)])["phone_changed_only_as_the_steps_say"]
    assert (finding.message, finding.turn) == (message, 4)


def test_in_a_solo_dialog_the_chatbot_calls_the_phones_tools_and_the_phone_check_reads_its_change(
        world: World) -> None:
    solo = world.telecom.solo
    turns: list[Turn] = [*identified(), ("chatbot", "I turned your mobile data off and on.", [("toggle_data", {})])]
    (finding,) = play(world, turns, environment=solo)["phone_changed_only_as_the_steps_say"]
    assert finding.turn == 3 and finding.call == "toggle_data({})"  # the dual environment refuses it the call:
    with world.telecom.session(world.path) as session:
        assert world.telecom.call_tool(session, "toggle_data", {}).startswith("Error: unknown tool 'toggle_data'")
