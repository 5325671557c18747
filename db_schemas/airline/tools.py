"""The airline chatbot's 14 tools, behaving exactly like τ-bench's airline tools, on the SQL tables.

Checks, error strings, writes and return values match τ-bench, so replaying the same calls leads to
the same database hash. τ-bench's quirks are kept on purpose and marked where they live (Q1-Q15).
The tools enforce no policy rule (Q10: basic-economy limits, cancellation eligibility, free bags,
payment-method limits, compensation amounts): keeping to the policy is the chatbot's job, and that
is what is being tested. The tools that change bookings live in booking.py.
"""

import ast
import math

from sqlmodel import select

from intellagent.environment import InjectedSession, Number, tool

from .booking import (
    book_reservation,
    cancel_reservation,
    update_reservation_baggages,
    update_reservation_flights,
    update_reservation_passengers,
)
from .records import (
    Record,
    find_reservation_record,
    find_user_record,
    flight_fields,
    ordered,
    status_record,
)
from .schema import AIRPORTS, Flight, FlightDate, PaymentMethod, User

__all__ = [
    "book_reservation",
    "calculate",
    "cancel_reservation",
    "get_reservation_details",
    "get_user_details",
    "list_all_airports",
    "search_direct_flight",
    "search_onestop_flight",
    "send_certificate",
    "think",
    "transfer_to_human_agents",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
]

# Q8: certificate ids are fixed; an id is free again once that certificate has been spent.
_CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")


@tool(writes=False)
def calculate(expression: str) -> str:
    """Calculate the result of an arithmetic expression, rounded to two decimals.

    Args:
        expression: The expression, made of numbers, the operators + - * /, parentheses and spaces, such as '2 + 2'.
    """
    if not all(character in "0123456789+-*/(). " for character in expression):
        return "Error: invalid characters in expression"
    try:
        # Only digits and operators get this far, and builtins are off, so eval reaches nothing else.
        tree = ast.parse(expression, filename="<string>", mode="eval")
        _refuse_huge_powers(tree.body)
        # Q12: always a float string, rounded half-to-even on the binary value ('4.0', '2.67' for 2.675).
        return str(round(float(_value(tree.body)), 2))
    except Exception as exc:
        return f"Error: {exc}"


MAX_POWER_DIGITS = 4300
"""A power with more digits than this is refused: evaluating '9**9**9' would hold the process for good."""


def _refuse_huge_powers(node: ast.AST) -> None:
    """Raise before any power whose result would have more than MAX_POWER_DIGITS digits is computed."""
    for child in ast.iter_child_nodes(node):  # the inner powers first: their values are the outer's operands
        _refuse_huge_powers(child)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exponent = _value(node.left), _value(node.right)
        numbers = all(isinstance(value, int | float) for value in (base, exponent))
        if numbers and exponent > 0 and exponent * math.log10(max(abs(base), 2)) > MAX_POWER_DIGITS:
            raise OverflowError("the result is too large")


def _value(node: ast.expr) -> object:
    return eval(compile(ast.Expression(node), "<string>", "eval"), {"__builtins__": None}, {})


@tool(writes=False)
def get_reservation_details(session: InjectedSession, reservation_id: str) -> str | Record:
    """Get the details of a reservation.

    Args:
        reservation_id: The reservation's id, such as '8JX2WO'.
    """
    record = find_reservation_record(session, reservation_id)
    return "Error: user not found" if record is None else record  # Q1: says "user" for a missing reservation


@tool(writes=False)
def get_user_details(session: InjectedSession, user_id: str) -> str | Record:
    """Get a user's profile: contact details, membership, payment methods, saved passengers and reservations.

    Args:
        user_id: The user's id, such as 'sara_doe_496'.
    """
    record = find_user_record(session, user_id)
    return "Error: user not found" if record is None else record


@tool(writes=False)
def list_all_airports() -> dict[str, str]:
    """List every airport the airline serves, as IATA code and city."""
    return dict(AIRPORTS)


@tool(writes=False)
def search_direct_flight(session: InjectedSession, origin: str, destination: str, date: str) -> list[Record]:
    """Search the direct flights between two airports that can be booked on a date.

    Args:
        origin: IATA code of the departure airport, such as 'JFK'.
        destination: IATA code of the arrival airport, such as 'LAX'.
        date: The date of the flight, 'YYYY-MM-DD', such as '2024-05-01'.
    """
    query = (
        select(Flight, FlightDate)
        .join(FlightDate, FlightDate.flight_number == Flight.flight_number)
        .where(Flight.origin == origin, Flight.destination == destination)
        .where(FlightDate.date == date, FlightDate.status == "available")
        .order_by(Flight.flight_number)
    )
    return [{**flight_fields(flight), **status_record(day)} for flight, day in session.exec(query).all()]


@tool(writes=False)
def search_onestop_flight(
    session: InjectedSession, origin: str, destination: str, date: str
) -> list[list[Record]]:
    """Search the pairs of connecting flights, with one stop, between two airports on a date.

    Args:
        origin: IATA code of the departure airport, such as 'JFK'.
        destination: IATA code of the final arrival airport, such as 'LAX'.
        date: The date of the first flight, 'YYYY-MM-DD', such as '2024-05-01'.
    """
    results = []
    for first in session.exec(select(Flight).where(Flight.origin == origin).order_by(Flight.flight_number)):
        connections = select(Flight).where(Flight.origin == first.destination, Flight.destination == destination)
        for second in session.exec(connections.order_by(Flight.flight_number)).all():
            # Q9: the next day is neither zero-padded nor moved past May ('2024-05-6' never matches).
            overnight = "+1" in first.scheduled_arrival_time_est
            second_date = f"2024-05-{int(date[-2:]) + 1}" if overnight else date
            # Q9: times are compared as text, '+1' suffix included.
            if first.scheduled_arrival_time_est > second.scheduled_departure_time_est:
                continue
            first_day = session.get(FlightDate, (first.flight_number, date))
            second_day = session.get(FlightDate, (second.flight_number, second_date))
            if first_day is None or second_day is None:
                continue
            if first_day.status != "available" or second_day.status != "available":
                continue
            # Q9: the second leg shows its seats and prices on the first leg's date, not on its own.
            shown = session.get(FlightDate, (second.flight_number, date))
            if shown is None:
                raise KeyError(date)
            results.append(
                [
                    {**flight_fields(first), **status_record(first_day), "date": date},
                    {**flight_fields(second), **status_record(shown), "date": second_date},
                ]
            )
    return results


@tool(writes=True)
def send_certificate(session: InjectedSession, user_id: str, amount: Number) -> str | None:
    """Add a travel certificate to a user's payment methods, as a goodwill gesture.

    Args:
        user_id: The id of the user to receive the certificate, such as 'sara_doe_496'.
        amount: The certificate's value in dollars.
    """
    if session.get(User, user_id) is None:
        return "Error: user not found"
    methods = ordered(session, PaymentMethod, user_id=user_id)
    taken = {method.payment_id for method in methods}
    for payment_id in _CERTIFICATE_IDS:
        if payment_id not in taken:
            position = max((method.position for method in methods), default=-1) + 1
            certificate = PaymentMethod(
                user_id=user_id, payment_id=payment_id, position=position, source="certificate", amount=amount
            )
            session.add(certificate)
            return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
    return None  # Q8: with all three ids taken nothing is added and there is no message (sent as 'null')


@tool(writes=False)
def think(thought: str) -> str:
    """Think something through step by step; nothing is looked up or changed.

    Args:
        thought: The reasoning to write down.
    """
    return ""


@tool(writes=False, ends_dialog=True)
def transfer_to_human_agents(summary: str) -> str:
    """Hand the conversation over to a human agent, with a summary of the user's issue.

    Only when the user asks for a human, or the request cannot be handled with the other tools.

    Args:
        summary: A summary of the user's issue for the human agent.
    """
    return "Transfer successful"
