"""The carrier policy's rules that a program can decide from a dialog's tool calls and the account data.

Each check reads the calls the chatbot made (an attempt counts, even one the tool refused) against the
database as the chatbot found it, and the effect of earlier calls where a rule depends on them (a bill
paid earlier in the dialog is no longer overdue). The check of the customer's phone reads every change made
to it, whoever made it: the customer as the chatbot guided it (dual), or the chatbot itself (solo).
Confirmation before adding data is the framework's own check, enabled by `confirm=True` on `refuel_data`.
"""

import json
from collections.abc import Iterator

from intellagent.artifacts import Finding
from intellagent.checks import Call, Trace, check

from .schema import TODAY

MAX_REFUEL_GB = 2.0
LOOKUPS = ("get_customer_by_phone", "get_customer_by_id", "get_customer_by_name")
CHANGES = ("suspend_line", "resume_line", "send_payment_request", "enable_roaming", "disable_roaming", "refuel_data")


def _finding(call: Call, message: str) -> Finding:
    return Finding(message=message, turn=call.turn, call=call.shown())


def _calls(trace: Trace, *names: str) -> Iterator[Call]:
    return (call for call in trace.calls if call.name in names)


@check
def refuel_at_most_two_gb(trace: Trace) -> Iterator[Finding]:
    """At most 2 GB of data is added to a line at a time."""
    for call in _calls(trace, "refuel_data"):
        amount = call.arguments.get("gb_amount")
        if isinstance(amount, int | float) and amount > MAX_REFUEL_GB:
            yield _finding(call, f"{amount} GB added at once; at most {MAX_REFUEL_GB:g} GB may be")


@check
def payment_asked_only_for_an_overdue_bill(trace: Trace) -> Iterator[Finding]:
    """A payment request is sent only for a bill that is overdue."""
    for call in _calls(trace, "send_payment_request"):
        bill = next(iter(trace.rows("bills", bill_id=call.arguments.get("bill_id"))), None)
        if bill is not None and bill["status"] != "Overdue":
            yield _finding(call, f"bill {bill['bill_id']} is {bill['status']}, not overdue; only an overdue bill's "
                                 "payment is asked for")


@check
def resume_only_when_allowed(trace: Trace) -> Iterator[Finding]:
    """A suspended line is resumed only once none of the customer's bills is overdue, and never when its contract
    has ended."""
    for call in _calls(trace, "resume_line"):
        line = next(iter(trace.rows("lines", line_id=call.arguments.get("line_id"))), None)
        if line is None or line["status"] != "Suspended":
            continue
        if line["contract_end_date"] is not None and line["contract_end_date"] < TODAY:
            yield _finding(call, f"the contract of line {line['line_id']} ended on {line['contract_end_date']}; its "
                                 "suspension may not be lifted")
        paid = _paid_before(trace, call)
        overdue = [bill["bill_id"] for bill in trace.rows("bills", customer_id=line["customer_id"], status="Overdue")
                   if bill["bill_id"] not in paid]
        if overdue:
            yield _finding(call, f"bill(s) {', '.join(overdue)} of customer {line['customer_id']} are still overdue")


@check
def customer_identified_before_changes(trace: Trace) -> Iterator[Finding]:
    """The customer is identified (by phone number, customer id, or full name with date of birth) before any
    change to their account."""
    for call in _calls(trace, *CHANGES):
        customer_id = call.arguments.get("customer_id")
        found = {found for lookup in _earlier(trace.calls, call, *LOOKUPS) for found in _customers_found(lookup)}
        if isinstance(customer_id, str) and customer_id not in found:
            yield _finding(call, f"customer {customer_id} was not looked up before this change to their account")


BREAKING = {"toggle_airplane_mode": "Airplane Mode is now ON", "toggle_data": "Mobile Data is now OFF",
            "toggle_wifi_calling": "Wi-Fi Calling is now ON", "toggle_data_saver_mode": "Data Saver Mode is now ON",
            "connect_vpn": "VPN connected"}
"""The phone's switches whose result shows the phone left worse off: a change no troubleshooting step asks for."""
RECOMMENDED_MODE = "4g_5g_preferred"


@check
def phone_changed_only_as_the_steps_say(trace: Trace) -> Iterator[Finding]:
    """The customer's phone is changed only as the troubleshooting steps say: never a change that takes service,
    data or picture messages away, and the network mode is only ever set to prefer 4G and 5G. The phone's
    changes are read whoever made them: the customer as guided, or the chatbot holding the phone's tools."""
    for call in trace.side_calls("user"):
        broke = BREAKING.get(call.name)
        if broke is not None and (call.result or "").startswith(broke):
            yield _finding(call, f"the phone was left worse off ({broke}), which no step asks for")
        mode = call.arguments.get("mode")
        if call.name == "set_network_mode_preference" and not call.failed and mode != RECOMMENDED_MODE:
            yield _finding(call, f"the phone's network mode was set to {mode}; the steps only ever ask for "
                                 f"{RECOMMENDED_MODE}")


def _paid_before(trace: Trace, before: Call) -> set[str]:
    """The bills paid before `before`: their payment asked for, and made on the phone, both earlier."""
    asked = [call for call in _earlier(trace.calls, before, "send_payment_request") if not call.failed]
    paid = [call for call in _earlier(trace.side_calls("user"), before, "make_payment") if not call.failed]
    return {call.arguments.get("bill_id") for call in asked} if paid else set()


def _earlier(calls: list[Call], call: Call, *names: str) -> Iterator[Call]:
    """The calls of the tools `names` made before `call` (by its turn, then its place), in order."""
    for earlier in calls:
        if earlier is call or earlier.turn > call.turn:
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
