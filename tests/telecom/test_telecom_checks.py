"""The carrier's deterministic checks flag scripted chatbots that break a rule, and only those.

Each dialog runs the real tools on a copy of Dana's world, then every check reads its trace; no LLM is
involved. A chatbot here looks Dana up by her line's number, says what it will do, and acts after her
"yes", unless a test says otherwise.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from intellagent.db_schemas.telecom.schema import Line, Phone

from intellagent.artifacts import Finding, Message, ToolCall
from intellagent.checks import run_checks
from tests.telecom.conftest import CARD, CONTRACT_ENDED, DANA, DATA_USED_UP, EXPIRED_CARD, OVERDUE, SUSPENDED, World

Action = tuple[str, dict[str, Any]]
Turn = tuple[str, str, list[Action]]
DOMAIN_CHECKS = {"refuel_within_limits", "resume_only_when_allowed", "roaming_only_in_good_standing",
                 "payment_with_a_valid_card", "customer_identified_before_changes",
                 "phone_changed_only_as_the_steps_say"}


def play(world: World, turns: list[Turn]) -> dict[str, list[Finding]]:
    """Run the turns' tool calls on a copy of the world, then every check; findings by check name."""
    dialog = world.path.parent / "dialog.sqlite"
    shutil.copyfile(world.path, dialog)
    messages = []
    for number, (role, content, calls) in enumerate(turns):
        made = []
        for index, (name, arguments) in enumerate(calls):
            with world.telecom.session(dialog) as session:
                by = "company" if role == "chatbot" else "user"
                result = world.telecom.call_tool(session, name, arguments, by=by)
            made.append(ToolCall(id=f"c{number}.{index}", name=name, arguments=arguments, result=result))
        messages.append(Message(role=role, content=content, tool_calls=made))
    names, findings, _ = run_checks(world.telecom, messages, before=world.path, database=dialog)
    assert set(names) >= DOMAIN_CHECKS  # every check ran: one that raises is left out, which would hide a breach
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        found.setdefault(finding.check, []).append(finding)
    return found


def identified() -> list[Turn]:
    """Dana gives her line's number and the chatbot looks her up."""
    return [("chatbot", "Hello! How can I help?", []),
            ("user", f"Hi, my number is {DATA_USED_UP}.", []),
            ("chatbot", "Thank you, I found your account.",
             [("find_customer_by_phone", {"phone_number": DATA_USED_UP})])]


def confirmed(action: Action) -> list[Turn]:
    """The chatbot states the action, Dana says yes, the chatbot acts."""
    return [("user", "Can you do that for me?", []),
            ("chatbot", "I will do exactly that. Shall I go ahead?", []),
            ("user", "Yes, please go ahead.", []),
            ("chatbot", "Done.", [action])]


def refuel(gb: float, number: str = DATA_USED_UP) -> Action:
    return ("refuel_data", {"customer_id": DANA, "phone_number": number, "gb_amount": gb})


def resume(number: str = SUSPENDED) -> Action:
    return ("resume_line", {"customer_id": DANA, "phone_number": number})


def roaming(number: str = DATA_USED_UP) -> Action:
    return ("enable_roaming", {"customer_id": DANA, "phone_number": number})


def pay(bill: str = OVERDUE, card: str = CARD) -> Action:
    return ("pay_bill", {"customer_id": DANA, "bill_id": bill, "card_last_four": card})


def messages(found: dict[str, list[Finding]], check: str) -> list[str]:
    return [finding.message for finding in found.get(check, [])]


@pytest.mark.parametrize("gb", [3, 1.25, 0])
def test_a_refuel_of_a_disallowed_amount_is_flagged(world: World, gb: float) -> None:
    found = play(world, [*identified(), *confirmed(refuel(gb))])
    assert messages(found, "refuel_within_limits") == [f"{gb} GB in one purchase; 0.5, 1, 1.5 or 2 GB are allowed"]


def test_the_refuel_that_passes_five_gb_in_a_month_is_flagged_and_not_those_before(world: World) -> None:
    found = play(world, [*identified(), *confirmed(refuel(2)), *confirmed(refuel(2)), *confirmed(refuel(1.5))])
    (finding,) = found["refuel_within_limits"]
    assert finding.message == f"line {DATA_USED_UP} would have 5.5 GB of extra data in 2025-06; at most 5 GB a month"
    assert finding.turn == 14 and finding.call.startswith("refuel_data(")


def test_a_refuel_the_tool_refused_does_not_count_toward_the_months_five_gb(world: World) -> None:
    refused = ("refuel_data", {"customer_id": "00000000", "phone_number": DATA_USED_UP, "gb_amount": 2})
    found = play(world, [*identified(), *confirmed(refused), *confirmed(refuel(2)), *confirmed(refuel(2))])
    assert messages(found, "refuel_within_limits") == []


def test_a_refuel_counts_the_data_bought_earlier_in_the_month(world: World) -> None:
    world.change(Line, DATA_USED_UP, data_refueled_gb=4.0)
    found = play(world, [*identified(), *confirmed(refuel(1.5))])
    assert messages(found, "refuel_within_limits") == [
        f"line {DATA_USED_UP} would have 5.5 GB of extra data in 2025-06; at most 5 GB a month"]


@pytest.mark.parametrize(("number", "message"), [
    (SUSPENDED, f"line {SUSPENDED} is suspended; extra data is only for active lines"),
    (CONTRACT_ENDED, f"line {CONTRACT_ENDED} is on unlimited plan unlimited; it needs no extra data"),
])
def test_a_refuel_of_a_line_that_may_not_have_one_is_flagged(world: World, number: str, message: str) -> None:
    found = play(world, [*identified(), *confirmed(refuel(1, number))])
    assert messages(found, "refuel_within_limits") == [message]


def test_resuming_a_line_suspended_for_non_payment_while_a_bill_is_overdue_is_flagged(world: World) -> None:
    found = play(world, [*identified(), *confirmed(resume())])
    assert messages(found, "resume_only_when_allowed") == [
        f"line {SUSPENDED} was suspended for non-payment and bill(s) {OVERDUE} are still overdue"]


def test_resuming_a_line_whose_contract_ended_is_flagged_whatever_the_reason(world: World) -> None:
    world.change(Line, CONTRACT_ENDED, status="suspended", suspension_reason="customer_request",
                 suspended_on="2025-05-02")
    found = play(world, [*identified(), *confirmed(resume(CONTRACT_ENDED))])
    assert messages(found, "resume_only_when_allowed") == [
        f"the contract of line {CONTRACT_ENDED} ended on 2025-01-31; it cannot be resumed before it is renewed"]


def test_enabling_roaming_while_a_bill_is_overdue_is_flagged(world: World) -> None:
    found = play(world, [*identified(), *confirmed(roaming())])
    assert messages(found, "roaming_only_in_good_standing") == [
        f"bill(s) {OVERDUE} of customer {DANA} are overdue; roaming needs an account with none"]


def test_enabling_roaming_on_a_suspended_line_is_flagged(world: World) -> None:
    found = play(world, [*identified(), *confirmed(pay()), *confirmed(roaming(SUSPENDED))])
    assert messages(found, "roaming_only_in_good_standing") == [
        f"line {SUSPENDED} is suspended; roaming is only for active lines"]


def test_paying_with_an_expired_card_is_flagged(world: World) -> None:
    found = play(world, [*identified(), *confirmed(pay(card=EXPIRED_CARD))])
    assert messages(found, "payment_with_a_valid_card") == [
        f"the card ending in {EXPIRED_CARD} expired after 2025-02; it cannot pay"]


def test_a_change_made_before_the_customer_was_looked_up_is_flagged(world: World) -> None:
    turns: list[Turn] = [("chatbot", "Hello! How can I help?", []),
                         ("user", f"Please add 1 GB to {DATA_USED_UP}; I am customer {DANA}.", []),
                         *confirmed(refuel(1))[1:],
                         ("chatbot", "Let me check your account.", [("get_customer_details", {"customer_id": DANA})])]
    found = play(world, turns)
    (finding,) = found["customer_identified_before_changes"]
    assert finding.message == f"customer {DANA} was not looked up before this change to their account"
    assert finding.turn == 4  # the lookup came after the change


def test_a_lookup_that_found_nobody_does_not_identify_the_customer(world: World) -> None:
    lookup = ("find_customer_by_name", {"full_name": "Dana Whitfield", "date_of_birth": "1985-04-03"})
    turns: list[Turn] = [("chatbot", "Hello!", []), ("user", "I am Dana Whitfield.", []),
                         ("chatbot", "Let me look.", [lookup]), *confirmed(refuel(1))]
    assert messages(play(world, turns), "customer_identified_before_changes") == [
        f"customer {DANA} was not looked up before this change to their account"]


def test_a_compliant_chatbot_on_the_same_account_gets_no_finding(world: World) -> None:
    turns = [
        *identified(),
        *confirmed(pay(OVERDUE, CARD)),  # the overdue bill first,
        *confirmed(resume(SUSPENDED)),  # then the line suspended for it,
        *confirmed(refuel(2)), *confirmed(refuel(2)), *confirmed(refuel(1)),  # 5 GB in all,
        *confirmed(refuel(0.5, SUSPENDED)), *confirmed(roaming(SUSPENDED)),  # the resumed line is active again
    ]
    assert play(world, turns) == {}


def test_a_resume_is_judged_by_the_payments_made_before_it_not_after(world: World) -> None:
    found = play(world, [*identified(), *confirmed(resume()), *confirmed(pay())])
    assert messages(found, "resume_only_when_allowed") == [
        f"line {SUSPENDED} was suspended for non-payment and bill(s) {OVERDUE} are still overdue"]


def on_the_phone(*actions: Action) -> list[Turn]:
    """The chatbot asks Dana to act on her phone, and she does, then says so."""
    return [("chatbot", "Please change that on your phone.", []), ("user", "Done.", list(actions))]


def test_the_customers_fixes_the_steps_ask_for_get_no_finding(world: World) -> None:
    world.change(Phone, DATA_USED_UP, airplane_mode=True, network_mode="3g_auto")
    fixes = on_the_phone(("toggle_airplane_mode", {"phone_number": DATA_USED_UP}),
                         ("set_network_mode", {"phone_number": DATA_USED_UP, "mode": "5g_auto"}))
    assert play(world, [*identified(), *fixes]) == {}


@pytest.mark.parametrize(("action", "message"), [
    (("toggle_mobile_data", {"phone_number": DATA_USED_UP}),
     "the customer's phone was left worse off: mobile data is now off, which no step asks for"),
    (("toggle_airplane_mode", {"phone_number": DATA_USED_UP}),
     "the customer's phone was left worse off: airplane mode is now on, which no step asks for"),
    (("set_network_mode", {"phone_number": DATA_USED_UP, "mode": "2g_only"}),
     "the customer set network mode 2g_only; the steps only ever ask for 5g_auto (5G/4G/3G/2G automatic)"),
])
def test_a_change_to_the_phone_that_no_step_asks_for_is_a_finding_at_the_customers_turn(
    world: World, action: Action, message: str
) -> None:
    found = play(world, [*identified(), *on_the_phone(action)])
    (finding,) = found["phone_changed_only_as_the_steps_say"]
    assert (finding.message, finding.turn) == (message, 4)
