"""Rules for generated carrier rows: what a consistent account, line, bill and phone look like.

Each message says what to change, because a data generator reads it and tries again. Slips with one
obvious fix ("active" for "Active", a suspension date left on an active line, a phone's row numbered
other than 1) are repaired in place instead.
"""

import re
from datetime import date
from typing import Any

from sqlmodel import Session, select

from intellagent.environment import RowRejected, validator

from .schema import (
    ACCOUNT_STATUSES,
    APN_NAMES,
    BILL_STATUSES,
    CONNECTION_STATUSES,
    DEVICE_TYPES,
    LINE_STATUSES,
    NETWORK_MODES,
    PAYMENT_TYPES,
    PERMISSIONS,
    SIGNALS,
    SIM_STATUSES,
    TECHNOLOGIES,
    TODAY,
    Bill,
    Customer,
    Device,
    Line,
    Phone,
    Plan,
)

NUMBER = re.compile(r"\d{3}-\d{3}-\d{4}")


@validator(Plan)
def plan_is_consistent(plan: Plan, session: Session) -> None:
    """A 'P' id; a data limit and prices above zero."""
    _id("plan_id", plan.plan_id, "P", "P1001")
    for key in ("data_limit_gb", "price_per_month", "data_refueling_price_per_gb"):
        if getattr(plan, key) <= 0:
            raise RowRejected(f"{key} must be more than 0")


@validator(Device)
def device_is_consistent(device: Device, session: Session) -> None:
    """A 'D' id, a known device type, a fifteen-digit IMEI when there is one."""
    _id("device_id", device.device_id, "D", "D1001")
    device.device_type = device.device_type.strip().lower()
    _one_of("device_type", device.device_type, DEVICE_TYPES)
    if device.imei is not None and not re.fullmatch(r"\d{15}", device.imei):
        raise RowRejected(f"imei {device.imei!r} must be fifteen digits, or empty")


@validator(Customer)
def customer_is_consistent(customer: Customer, session: Session) -> None:
    """A 'C' id, a birth date, an e-mail address, a contact number, an address and well-formed payment methods."""
    _id("customer_id", customer.customer_id, "C", "C1001")
    _day("date_of_birth", customer.date_of_birth)
    if "@" not in customer.email:
        raise RowRejected(f"email {customer.email!r} is not an e-mail address; use one like 'name@example.com'")
    _number("phone_number", customer.phone_number)
    address = customer.address
    if not isinstance(address, dict) or set(address) != {"street", "city", "state", "zip_code"}:
        raise RowRejected("address must be an object with exactly 'street', 'city', 'state' and 'zip_code'")
    customer.account_status = _cased(customer.account_status, ACCOUNT_STATUSES)
    _one_of("account_status", customer.account_status, ACCOUNT_STATUSES)
    if not isinstance(customer.payment_methods, list):
        raise RowRejected("payment_methods must be a list")
    for method in customer.payment_methods:
        _payment_method(method)


@validator(Line)
def line_is_consistent(line: Line, session: Session) -> None:
    """An 'L' id and a number; a suspended line says since when, another line does not; data use is not negative."""
    _id("line_id", line.line_id, "L", "L1001")
    _number("phone_number", line.phone_number)
    line.status = _cased(line.status, LINE_STATUSES)
    _one_of("status", line.status, LINE_STATUSES)
    if line.status == "Suspended":
        if line.suspension_start_date is None:
            raise RowRejected(f"a suspended line needs suspension_start_date, the day it was suspended (by {TODAY})")
        _day("suspension_start_date", line.suspension_start_date)
    else:
        line.suspension_start_date = None  # only a suspended line has one
    for key in ("contract_end_date", "last_plan_change_date", "last_sim_replacement_date"):
        if getattr(line, key) is not None:
            _day(key, getattr(line, key))
    if line.data_used_gb < 0 or line.data_refueling_gb < 0:
        raise RowRejected("data_used_gb and data_refueling_gb must be 0 or more")


@validator(Bill)
def bill_is_consistent(bill: Bill, session: Session) -> None:
    """A 'B' id, a known status, dates in order, and a total that is the sum of the line items."""
    _id("bill_id", bill.bill_id, "B", "B1001")
    bill.status = _cased(bill.status, BILL_STATUSES)
    _one_of("status", bill.status, BILL_STATUSES)
    for key in ("period_start", "period_end", "issue_date", "due_date"):
        _day(key, getattr(bill, key))
    if bill.period_end < bill.period_start or bill.due_date < bill.issue_date:
        raise RowRejected("a bill's period must end after it starts, and it must fall due after it is issued")
    items = bill.line_items
    if not isinstance(items, list) or not all(
        isinstance(item, dict) and {"description", "amount", "date", "item_type"} == set(item)
        and isinstance(item["amount"], int | float) and not isinstance(item["amount"], bool) for item in items
    ):
        raise RowRejected("line_items must be objects with 'description', 'amount' (dollars), 'date' and 'item_type'")
    total = round(sum(item["amount"] for item in items), 2)
    if round(bill.total_due, 2) != total:
        raise RowRejected(f"total_due {bill.total_due} is not the sum of the line items, {total}; make them agree")


@validator(Phone)
def phone_is_consistent(phone: Phone, session: Session) -> None:
    """The customer's one phone (its row is 1), with settings of known values."""
    phone.id = 1  # one phone, the one in the customer's hand
    if phone.phone_number is not None:
        _number("phone_number", phone.phone_number)
    for key, allowed in (("sim_card_status", SIM_STATUSES[:1] + SIM_STATUSES[2:]), ("network_signal_strength", SIGNALS),
                         ("network_technology_connected", TECHNOLOGIES), ("network_connection_status",
                                                                         CONNECTION_STATUSES),
                         ("network_mode_preference", NETWORK_MODES), ("wifi_signal_strength", SIGNALS)):
        _one_of(key, getattr(phone, key), allowed)
    if not 0 <= phone.battery_level <= 100:
        raise RowRejected("battery_level is a percentage, 0 to 100")
    if not isinstance(phone.apn_settings, dict) or phone.apn_settings.get("apn_name") not in APN_NAMES:
        raise RowRejected("apn_settings must be an object whose 'apn_name' is 'internet' or 'broken', with 'mmsc_url' "
                          "(the MMS centre's address, or empty)")
    signal = phone.signal_strength
    if not isinstance(signal, dict) or not all(value in SIGNALS for value in signal.values()):
        raise RowRejected("signal_strength must map '2G', '3G', '4G' and '5G' to 'none', 'poor', 'fair', 'good' or "
                          "'excellent'")
    _apps(phone.app_statuses)


@validator(Phone, related=(Line,))
def phone_is_on_a_line(phone: Phone, session: Session) -> None:
    """The phone's number is one of the carrier's lines."""
    if phone.phone_number is not None and session.exec(
            select(Line.line_id).where(Line.phone_number == phone.phone_number)).first() is None:
        raise RowRejected(f"the phone's number {phone.phone_number} is no line's; give it the number of the "
                          "customer's line")


def _apps(apps: Any) -> None:
    if not isinstance(apps, dict) or not all(
        isinstance(app, dict) and isinstance(app.get("permissions"), dict)
        and set(app["permissions"]) <= set(PERMISSIONS) for app in apps.values()
    ):
        raise RowRejected("app_statuses must map app names to objects with 'app_name' and 'permissions' (any of "
                          "'sms', 'storage', 'phone', 'network', each true or false)")


def _payment_method(method: Any) -> None:
    if not isinstance(method, dict) or set(method) != {"method_type", "account_number_last_4", "expiration_date"}:
        raise RowRejected("each payment method is an object with exactly 'method_type', 'account_number_last_4' and "
                          "'expiration_date'")
    _one_of("a payment method's method_type", method["method_type"], PAYMENT_TYPES)
    if not isinstance(method["account_number_last_4"], str) or not re.fullmatch(r"\d{4}",
                                                                                 method["account_number_last_4"]):
        raise RowRejected("a payment method's account_number_last_4 must be four digits as text, e.g. '4242'")
    if not isinstance(method["expiration_date"], str) or not re.fullmatch(r"(0[1-9]|1[0-2])/\d{4}",
                                                                          method["expiration_date"]):
        raise RowRejected("a payment method's expiration_date must be 'MM/YYYY', e.g. '08/2027'")


def _cased(value: str, allowed: tuple[str, ...]) -> str:
    """`value` as `allowed` spells it, when it differs in case or spaces only."""
    wanted = " ".join(value.split()).lower()
    return next((choice for choice in allowed if choice.lower() == wanted), value)


def _id(key: str, value: str, letter: str, example: str) -> None:
    if not isinstance(value, str) or not re.fullmatch(rf"{letter}\d+", value):
        raise RowRejected(f"{key} {value!r} must be '{letter}' followed by digits, e.g. '{example}'")


def _number(key: str, value: str) -> None:
    if not isinstance(value, str) or not NUMBER.fullmatch(value):
        raise RowRejected(f"{key} {value!r} must be written 'NNN-NNN-NNNN', e.g. '555-123-2002'")


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
