"""Rules for generated carrier rows: what a consistent account, bill and phone look like.

Each message says what to change, because a data generator reads it and tries again. Small slips
with one obvious fix ("Active" for "active", a suspension reason left on an active line, a phone
marked registered while it cannot be) are repaired in place instead.
"""

import re
from datetime import date
from typing import Any

from sqlmodel import Session, select

from intellagent.environment import RowRejected, validator

from .network import can_register
from .schema import (
    BILL_STATUSES,
    CARD_TYPES,
    CURRENT_PERIOD,
    LINE_STATUSES,
    NETWORK_MODES,
    SIM_STATES,
    SUSPENSION_REASONS,
    TODAY,
    Bill,
    Customer,
    Line,
    Phone,
    Plan,
)

MAX_REFUEL_PER_MONTH_GB = 5
"""The most extra data a line may buy in one billing month."""


@validator(Customer)
def customer_is_consistent(customer: Customer, session: Session) -> None:
    """Eight-digit id, a birth date, an e-mail address, and well-formed cards on file."""
    _digits("customer_id", customer.customer_id, 8, "31750284")
    _day("date_of_birth", customer.date_of_birth)
    if "@" not in customer.email:
        raise RowRejected(f"email {customer.email!r} is not an e-mail address; use one like 'name@example.com'")
    _digits("zip_code", customer.zip_code, 5, "97205")
    if not isinstance(customer.payment_methods, list) or not customer.payment_methods:
        raise RowRejected("payment_methods must list at least one card, e.g. "
                          "[{'type': 'credit_card', 'last_four': '4242', 'expires': '2027-08'}]")
    endings = []
    for card in customer.payment_methods:
        _card(card)
        endings.append(card["last_four"])
    if len(set(endings)) < len(endings):
        raise RowRejected("two cards on file end in the same four digits; give each card its own last_four")


@validator(Plan)
def plan_is_consistent(plan: Plan, session: Session) -> None:
    """Prices are not negative; a limited plan has a refuel price, an unlimited one has neither."""
    for key in ("monthly_price", "roaming_price_per_day"):
        if getattr(plan, key) < 0:
            raise RowRejected(f"{key} must be 0 or more dollars")
    if plan.data_limit_gb is None:
        if plan.refuel_price_per_gb is not None:
            raise RowRejected("an unlimited plan (no data_limit_gb) sells no extra data; leave refuel_price_per_gb "
                              "empty")
        return
    if plan.data_limit_gb <= 0:
        raise RowRejected("data_limit_gb must be more than 0 GB, or empty for an unlimited plan")
    if plan.refuel_price_per_gb is None or plan.refuel_price_per_gb <= 0:
        raise RowRejected("a plan with a data limit needs refuel_price_per_gb, more than 0 dollars")


@validator(Line)
def line_is_consistent(line: Line, session: Session) -> None:
    """A ten-digit number; a suspended line says why and since when, an active one neither; usage is sane."""
    _digits("phone_number", line.phone_number, 10, "5035550187")
    line.status = line.status.strip().lower()
    _one_of("status", line.status, LINE_STATUSES)
    if line.status == "active":
        line.suspension_reason = line.suspended_on = None  # nothing to keep on a line in service
    else:
        _one_of("suspension_reason", line.suspension_reason, SUSPENSION_REASONS)
        if line.suspended_on is None:
            raise RowRejected(f"a suspended line needs suspended_on, the day it was suspended (by {TODAY})")
        _day("suspended_on", line.suspended_on)
        if line.suspended_on > TODAY:
            raise RowRejected(f"suspended_on {line.suspended_on} is after today, {TODAY}")
    if line.contract_end is not None:
        _day("contract_end", line.contract_end)
    if line.data_used_gb < 0:
        raise RowRejected("data_used_gb must be 0 or more")
    if not 0 <= line.data_refueled_gb <= MAX_REFUEL_PER_MONTH_GB:
        raise RowRejected(f"data_refueled_gb must be between 0 and {MAX_REFUEL_PER_MONTH_GB} GB")
    plan = session.get(Plan, line.plan_id)
    if plan is not None and plan.data_limit_gb is None and line.data_refueled_gb:
        raise RowRejected(f"plan {plan.plan_id} is unlimited: a line on it buys no extra data; set data_refueled_gb "
                          "to 0")


@validator(Bill)
def bill_is_consistent(bill: Bill, session: Session) -> None:
    """Nine-digit id; the status fits the dates (issued the 1st of the next month, due 20 days later, overdue
    once that day has passed); the amount is the sum of the charges; a paid bill says when and by which card."""
    _digits("bill_id", bill.bill_id, 9, "602318457")
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", bill.period) or bill.period > CURRENT_PERIOD:
        raise RowRejected(f"period {bill.period!r} must be a billing month 'YYYY-MM', {CURRENT_PERIOD} or before")
    bill.status = bill.status.strip().lower()
    _one_of("status", bill.status, BILL_STATUSES)
    _charges(bill)
    if bill.status == "pending":
        if bill.period != CURRENT_PERIOD:
            raise RowRejected(f"only this month's bill ({CURRENT_PERIOD}) is pending; earlier ones were issued")
        if bill.issued_on is not None or bill.due_on is not None or bill.paid_on is not None:
            raise RowRejected("a pending bill is not issued yet: leave issued_on, due_on and paid_on empty")
        return
    if bill.period == CURRENT_PERIOD:
        raise RowRejected(f"this month's bill ({CURRENT_PERIOD}) is not issued yet: its status is 'pending'")
    issued, due = issue_dates(bill.period)
    bill.issued_on, bill.due_on = issued, due  # they follow from the period
    if bill.status == "paid":
        if bill.paid_on is None or bill.paid_with is None:
            raise RowRejected("a paid bill needs paid_on ('YYYY-MM-DD') and paid_with (the card's last four digits)")
        _day("paid_on", bill.paid_on)
        if not issued <= bill.paid_on <= TODAY:
            raise RowRejected(f"paid_on {bill.paid_on} must fall between the issue day {issued} and today {TODAY}")
        _digits("paid_with", bill.paid_with, 4, "4242")
        return
    if bill.paid_on is not None or bill.paid_with is not None:
        raise RowRejected(f"an {bill.status} bill is unpaid: leave paid_on and paid_with empty, or make it 'paid'")
    if bill.status == "open" and due < TODAY:
        raise RowRejected(f"bill for {bill.period} was due {due}, before today {TODAY}: it is 'overdue' or 'paid'")
    if bill.status == "overdue" and due >= TODAY:
        raise RowRejected(f"bill for {bill.period} is due {due}, not before today {TODAY}: it is 'open' or 'paid'")


@validator(Bill)
def one_bill_a_month(bill: Bill, session: Session) -> None:
    """A customer has one bill per billing month."""
    twin = session.exec(select(Bill.bill_id).where(Bill.customer_id == bill.customer_id, Bill.period == bill.period,
                                                   Bill.bill_id != bill.bill_id)).first()
    if twin is not None:
        raise RowRejected(f"customer {bill.customer_id} already has bill {twin} for {bill.period}; one bill a month")


@validator(Phone)
def phone_is_consistent(phone: Phone, session: Session) -> None:
    """SIM state, network mode and APN settings are well-formed; a phone is registered only when it can be."""
    _one_of("sim", phone.sim, SIM_STATES)
    _one_of("network_mode", phone.network_mode, NETWORK_MODES)
    apn = phone.apn
    if not isinstance(apn, dict) or set(apn) != {"name", "mmsc"} or not all(isinstance(v, str) for v in apn.values()):
        raise RowRejected("apn must be an object with text 'name' and 'mmsc', e.g. "
                          "{'name': 'kestrel.internet', 'mmsc': 'http://mms.kestrel.example/mms'}")
    if phone.registered and not can_register(phone, session.get(Line, phone.phone_number)):
        phone.registered = False  # a phone in airplane mode, without a working SIM or on a suspended line is not


def _card(card: Any) -> None:
    if not isinstance(card, dict) or set(card) != {"type", "last_four", "expires"}:
        raise RowRejected("each payment method is an object with exactly 'type', 'last_four' and 'expires'")
    _one_of("a card's type", card["type"], CARD_TYPES)
    if not isinstance(card["last_four"], str) or not re.fullmatch(r"\d{4}", card["last_four"]):
        raise RowRejected(f"a card's last_four {card['last_four']!r} must be four digits as text, e.g. '4242'")
    if not isinstance(card["expires"], str) or not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", card["expires"]):
        raise RowRejected(f"a card's expires {card['expires']!r} must be the last month it works, 'YYYY-MM'")


def _charges(bill: Bill) -> None:
    charges = bill.charges
    if not isinstance(charges, list) or not all(
        isinstance(c, dict) and set(c) == {"description", "amount"} and isinstance(c["description"], str)
        and isinstance(c["amount"], int | float) and not isinstance(c["amount"], bool)
        for c in charges
    ):
        raise RowRejected("charges must be a list of objects with 'description' (text) and 'amount' (dollars)")
    total = round(sum(charge["amount"] for charge in charges), 2)
    if round(bill.amount, 2) != total:
        raise RowRejected(f"amount {bill.amount} is not the sum of the charges, {total}; make them agree")


def issue_dates(period: str) -> tuple[str, str]:
    """The issue day (the 1st of the month after `period`) and the due day, 20 days later."""
    year, month = map(int, period.split("-"))
    issued = date(year + month // 12, month % 12 + 1, 1)
    return issued.isoformat(), date(issued.year, issued.month, 21).isoformat()


def _digits(key: str, value: str, length: int, example: str) -> None:
    if not isinstance(value, str) or not re.fullmatch(rf"\d{{{length}}}", value):
        raise RowRejected(f"{key} {value!r} must be {length} digits, no spaces or signs, e.g. '{example}'")


def _one_of(key: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise RowRejected(f"{key} {value!r} is not one of {', '.join(repr(a) for a in allowed)}; use one of them")


def _day(key: str, value: str) -> None:
    try:
        parsed = date.fromisoformat(value)
    except (TypeError, ValueError):
        raise RowRejected(f"{key} {value!r} is not a date; write it 'YYYY-MM-DD'") from None
    if parsed.isoformat() != value:
        raise RowRejected(f"{key} {value!r} must be written 'YYYY-MM-DD'")
