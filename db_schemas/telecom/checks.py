"""The carrier policy's rules that a program can decide from a dialog's tool calls and the account data.

Each check reads the calls the chatbot made (an attempt counts, even one the tool refused) against
the database as the chatbot found it, and the effect of the chatbot's own earlier calls where a rule
depends on them (a bill paid earlier in the dialog is no longer overdue). One reads what the customer
did on their own phone, which the chatbot guides (`Trace.user_calls`). Confirmation before every
change is the framework's own check, enabled by `confirm=True` on the tools that change an account.
"""

import json
from collections.abc import Iterator
from typing import Any

from intellagent.artifacts import Finding
from intellagent.checks import Call, Trace, check

from .schema import CURRENT_PERIOD, TODAY
from .validators import MAX_REFUEL_PER_MONTH_GB

MAX_REFUEL_GB = 2.0
REFUEL_STEP_GB = 0.5
LOOKUPS = ("find_customer_by_phone", "get_customer_details", "find_customer_by_name")
CHANGES = ("refuel_data", "enable_roaming", "disable_roaming", "suspend_line", "resume_line", "pay_bill")


def _finding(call: Call, message: str) -> Finding:
    return Finding(message=message, turn=call.turn, call=call.shown())


def _calls(trace: Trace, *names: str) -> Iterator[Call]:
    return (call for call in trace.calls if call.name in names)


def _worked(call: Call) -> bool:
    """Whether the call returned, and not the framework's `Error: …` observation."""
    return call.result is not None and not call.failed


@check
def refuel_within_limits(trace: Trace) -> Iterator[Finding]:
    """Extra data is added only to an active line on a plan with a data limit, at most 2 GB at a time in steps of
    half a gigabyte, and at most 5 GB per line in a billing month."""
    bought: dict[str, float] = {}
    for call in _calls(trace, "refuel_data"):
        line = _line(trace, call.arguments.get("phone_number"))
        amount = call.arguments.get("gb_amount")
        if line is None or not isinstance(amount, int | float):
            continue
        number = line["phone_number"]
        plan = next(iter(trace.rows("plans", plan_id=line["plan_id"])), None)
        if line["status"] != "active" and not _resumed_before(trace, number, call):
            yield _finding(call, f"line {number} is {line['status']}; extra data is only for active lines")
        if plan is not None and plan["data_limit_gb"] is None:
            yield _finding(call, f"line {number} is on unlimited plan {plan['plan_id']}; it needs no extra data")
        if amount > MAX_REFUEL_GB or amount <= 0 or (amount / REFUEL_STEP_GB) % 1:
            yield _finding(call, f"{amount} GB in one purchase; 0.5, 1, 1.5 or 2 GB are allowed")
        total = bought.get(number, line["data_refueled_gb"]) + amount
        if total > MAX_REFUEL_PER_MONTH_GB:
            yield _finding(call, f"line {number} would have {total:g} GB of extra data in {CURRENT_PERIOD}; at most "
                                 f"{MAX_REFUEL_PER_MONTH_GB} GB a month")
        if _worked(call):
            bought[number] = total


@check
def resume_only_when_allowed(trace: Trace) -> Iterator[Finding]:
    """A line suspended for non-payment is resumed only once none of the customer's bills is overdue, and a line
    whose fixed-term contract has ended is never resumed."""
    for call in _calls(trace, "resume_line"):
        line = _line(trace, call.arguments.get("phone_number"))
        if line is None or line["status"] != "suspended":
            continue
        if line["contract_end"] is not None and line["contract_end"] < TODAY:
            yield _finding(call, f"the contract of line {line['phone_number']} ended on {line['contract_end']}; "
                                 "it cannot be resumed before it is renewed")
        overdue = _overdue_bills(trace, line["customer_id"], before=call)
        if line["suspension_reason"] == "non_payment" and overdue:
            yield _finding(call, f"line {line['phone_number']} was suspended for non-payment and bill(s) "
                                 f"{', '.join(overdue)} are still overdue")


@check
def roaming_only_in_good_standing(trace: Trace) -> Iterator[Finding]:
    """Roaming is enabled only on an active line, and only when none of the customer's bills is overdue."""
    for call in _calls(trace, "enable_roaming"):
        line = _line(trace, call.arguments.get("phone_number"))
        if line is None:
            continue
        if line["status"] != "active" and not _resumed_before(trace, line["phone_number"], call):
            yield _finding(call, f"line {line['phone_number']} is {line['status']}; roaming is only for active lines")
        overdue = _overdue_bills(trace, line["customer_id"], before=call)
        if overdue:
            yield _finding(call, f"bill(s) {', '.join(overdue)} of customer {line['customer_id']} are overdue; "
                                 "roaming needs an account with none")


@check
def payment_with_a_valid_card(trace: Trace) -> Iterator[Finding]:
    """A bill is paid only with a card on the customer's file whose last working month is not before the current
    one."""
    for call in _calls(trace, "pay_bill"):
        customer = next(iter(trace.rows("customers", customer_id=call.arguments.get("customer_id"))), None)
        ending = call.arguments.get("card_last_four")
        if customer is None:
            continue
        card = next((c for c in customer["payment_methods"] if c.get("last_four") == ending), None)
        if card is None:
            yield _finding(call, f"no card ending in {ending} is on file for customer {customer['customer_id']}")
        elif card["expires"] < CURRENT_PERIOD:
            yield _finding(call, f"the card ending in {ending} expired after {card['expires']}; it cannot pay")


@check
def customer_identified_before_changes(trace: Trace) -> Iterator[Finding]:
    """The customer is identified (looked up by a line's phone number, by customer id, or by full name with date of
    birth) before any change to their account."""
    for call in _calls(trace, *CHANGES):
        customer_id = call.arguments.get("customer_id")
        found = {found for lookup in _earlier(trace, call, *LOOKUPS) for found in _customers_found(lookup)}
        if isinstance(customer_id, str) and customer_id not in found:
            yield _finding(call, f"customer {customer_id} was not looked up before this change to their account")


RECOMMENDED_MODE = "5g_auto"
BREAKING = {"toggle_airplane_mode": "Airplane mode is now on", "toggle_mobile_data": "Mobile data is now off",
            "toggle_data_roaming": "Data roaming is now off"}
"""The customer's switches whose result shows the phone left worse off: a change no troubleshooting step asks for."""


@check
def phone_changed_only_as_the_steps_say(trace: Trace) -> Iterator[Finding]:
    """The customer changes their phone only as the troubleshooting steps say: airplane mode off, mobile data on,
    data roaming on, the 5G/4G/3G/2G automatic network mode; never a change that takes service or data away."""
    for call in trace.user_calls:
        broke = BREAKING.get(call.name)
        if broke is not None and (call.result or "").startswith(broke):
            yield _finding(call, f"the customer's phone was left worse off: {broke.lower()}, which no step asks for")
        mode = call.arguments.get("mode")
        if call.name == "set_network_mode" and _worked(call) and mode != RECOMMENDED_MODE:
            yield _finding(call, f"the customer set network mode {mode}; the steps only ever ask for "
                                 f"{RECOMMENDED_MODE} (5G/4G/3G/2G automatic)")


def _line(trace: Trace, phone_number: Any) -> dict[str, Any] | None:
    return next(iter(trace.rows("lines", phone_number=phone_number)), None)


def _overdue_bills(trace: Trace, customer_id: str, *, before: Call) -> list[str]:
    """The customer's overdue bills when `before` was made: overdue at the start, and not paid by an earlier call."""
    paid = {call.arguments.get("bill_id") for call in _earlier(trace, before, "pay_bill") if _worked(call)}
    return [bill["bill_id"] for bill in trace.rows("bills", customer_id=customer_id, status="overdue")
            if bill["bill_id"] not in paid]


def _resumed_before(trace: Trace, phone_number: str, call: Call) -> bool:
    return any(_worked(earlier) and earlier.arguments.get("phone_number") == phone_number
               for earlier in _earlier(trace, call, "resume_line"))


def _earlier(trace: Trace, call: Call, *names: str) -> Iterator[Call]:
    """The calls of the tools `names` made before `call`, in order."""
    for earlier in trace.calls:
        if earlier is call:
            return
        if earlier.name in names:
            yield earlier


def _customers_found(lookup: Call) -> list[str]:
    """The ids of the customers a lookup returned (none when it failed)."""
    try:
        found = json.loads(lookup.result or "")
    except json.JSONDecodeError:
        return []
    records = found if isinstance(found, list) else [found]
    return [record["customer_id"] for record in records if isinstance(record, dict) and "customer_id" in record]
