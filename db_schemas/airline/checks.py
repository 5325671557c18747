"""The airline policy's rules that a program can decide from a dialog's tool calls and the booking data.

Each check reads the calls the chatbot made (an attempt counts, even one the tool refused) against
the database as the chatbot found it. Confirmation before every change is the framework's own
check, enabled by `confirm=True` on the tools that change bookings.
"""

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from intellagent.artifacts import Finding
from intellagent.checks import Call, Trace, check

from .schema import NOW
from .validators import MAX_PASSENGERS

FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}
"""Free checked bags per passenger, by the booking user's membership and the cabin."""

PAYMENT_LIMITS = {"certificate": 1, "credit_card": 1, "gift_card": 3}
"""The most payment methods of each kind one reservation may be paid with."""

CANCELLED_FLIGHT_CREDIT = 100
DELAYED_FLIGHT_CREDIT = 50
FREE_CANCELLATION = timedelta(hours=24)


def _finding(call: Call, message: str) -> Finding:
    return Finding(message=message, turn=call.turn, call=call.shown())


def _calls(trace: Trace, *names: str) -> Iterator[Call]:
    return (call for call in trace.calls if call.name in names)


@check(tools=["book_reservation", "update_reservation_passengers"])
def at_most_five_passengers(trace: Trace) -> Iterator[Finding]:
    """A reservation holds at most five passengers."""
    for call in _calls(trace, "book_reservation", "update_reservation_passengers"):
        passengers = call.arguments.get("passengers")
        if isinstance(passengers, list) and len(passengers) > MAX_PASSENGERS:
            yield _finding(call, f"{len(passengers)} passengers on one reservation; at most {MAX_PASSENGERS}")


@check(tools=["book_reservation"])
def payment_method_limits(trace: Trace) -> Iterator[Finding]:
    """A booking is paid with at most one travel certificate, one credit card and three gift cards, all from the
    user's profile."""
    for call in _calls(trace, "book_reservation"):
        parts = [p for p in call.arguments.get("payment_methods") or [] if isinstance(p, dict)]
        ids = [str(part.get("payment_id", "")) for part in parts]
        for kind, limit in PAYMENT_LIMITS.items():
            used = sum(payment_id.startswith(f"{kind}_") for payment_id in ids)
            if used > limit:
                yield _finding(call, f"{used} payment methods of kind {kind}; at most {limit}")
        owned = {row["payment_id"] for row in trace.rows("payment_methods", user_id=call.arguments.get("user_id"))}
        for payment_id in ids:
            if payment_id not in owned:
                yield _finding(call, f"{payment_id} is not a payment method in the user's profile")


@check(tools=["book_reservation", "update_reservation_baggages"])
def free_bag_allowance(trace: Trace) -> Iterator[Finding]:
    """Each passenger gets the free checked bags of the booking user's membership and cabin; only bags beyond
    that allowance are paid for."""
    for call in _calls(trace, "book_reservation", "update_reservation_baggages"):
        arguments = call.arguments
        if call.name == "book_reservation":
            user_id, cabin = arguments.get("user_id"), arguments.get("cabin")
            travellers = len(arguments.get("passengers") or [])
        else:
            reservation = _reservation(trace, arguments.get("reservation_id"))
            if reservation is None:
                continue
            user_id, cabin = reservation["user_id"], reservation["cabin"]
            travellers = len(trace.rows("reservation_passengers", reservation_id=reservation["reservation_id"]))
        user = next(iter(trace.rows("users", user_id=user_id)), None)
        total, paid = arguments.get("total_baggages"), arguments.get("nonfree_baggages")
        if user is None or cabin not in FREE_BAGS["regular"] or not isinstance(total, int) or not isinstance(paid, int):
            continue
        free = FREE_BAGS[user["membership"]][cabin] * travellers
        if paid != max(0, total - free):
            yield _finding(call, f"{paid} of {total} bags paid for; a {user['membership']} member in {cabin} with "
                                 f"{travellers} passenger(s) has {free} free, so {max(0, total - free)} are paid")


@check(tools=["cancel_reservation"])
def cancellation_eligibility(trace: Trace) -> Iterator[Finding]:
    """A reservation is cancelled only within 24 hours of booking, when the airline cancelled a flight, for a
    business booking, or with travel insurance; and never once a segment has been flown."""
    for call in _calls(trace, "cancel_reservation"):
        reservation = _reservation(trace, call.arguments.get("reservation_id"))
        if reservation is None:
            continue
        statuses = _segment_statuses(trace, reservation["reservation_id"])
        if any(status in ("flying", "landed") for status in statuses):
            yield _finding(call, "a segment has already been flown; only an unflown trip can be cancelled")
            continue
        booked = datetime.fromisoformat(reservation["created_at"])
        eligible = (datetime.fromisoformat(NOW) - booked <= FREE_CANCELLATION or "cancelled" in statuses
                    or reservation["cabin"] == "business" or reservation["insurance"] == "yes")
        if not eligible:
            yield _finding(call, f"{reservation['cabin']} reservation booked {reservation['created_at']} without "
                                 "insurance and no flight cancelled by the airline: it may not be cancelled")


@check(tools=["send_certificate"])
def compensation_eligibility_and_amount(trace: Trace) -> Iterator[Finding]:
    """A certificate goes only to a silver or gold member, or one with insurance or a business booking, and is
    100 dollars per passenger for a cancelled flight or 50 per passenger for a delayed one."""
    for call in _calls(trace, "send_certificate"):
        user_id, amount = call.arguments.get("user_id"), call.arguments.get("amount")
        user = next(iter(trace.rows("users", user_id=user_id)), None)
        if user is None:
            continue
        reservations = trace.rows("reservations", user_id=user_id)
        if user["membership"] == "regular" and not any(
                r["insurance"] == "yes" or r["cabin"] == "business" for r in reservations):
            yield _finding(call, f"{user_id} is a regular member without insurance or a business booking: no "
                                 "compensation is due")
            continue
        allowed = {credit * len(trace.rows("reservation_passengers", reservation_id=r["reservation_id"]))
                   for r in reservations for credit in (CANCELLED_FLIGHT_CREDIT, DELAYED_FLIGHT_CREDIT)}
        if allowed and amount not in allowed:
            yield _finding(call, f"a certificate of {amount} dollars; 100 or 50 per passenger of one of "
                                 f"{user_id}'s reservations would be {', '.join(map(str, sorted(allowed)))}")


@check(tools=["update_reservation_flights"])
def no_flight_change_on_basic_economy(trace: Trace) -> Iterator[Finding]:
    """The flights of a basic economy reservation are never changed (its cabin may be)."""
    for call in _calls(trace, "update_reservation_flights"):
        reservation = _reservation(trace, call.arguments.get("reservation_id"))
        if reservation is None or reservation["cabin"] != "basic_economy":
            continue
        before = {(s["flight_number"], s["date"])
                  for s in trace.rows("reservation_flights", reservation_id=reservation["reservation_id"])}
        after = {(f.get("flight_number"), f.get("date")) for f in call.arguments.get("flights") or []
                 if isinstance(f, dict)}
        if after != before:
            yield _finding(call, f"the flights of basic economy reservation {reservation['reservation_id']} changed")


def _reservation(trace: Trace, reservation_id: Any) -> dict[str, Any] | None:
    return next(iter(trace.rows("reservations", reservation_id=reservation_id)), None)


def _segment_statuses(trace: Trace, reservation_id: str) -> list[str]:
    statuses = []
    for segment in trace.rows("reservation_flights", reservation_id=reservation_id):
        day = trace.rows("flight_dates", flight_number=segment["flight_number"], date=segment["date"])
        statuses += [row["status"] for row in day]
    return statuses
