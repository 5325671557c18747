"""The carrier chatbot's tools (τ²-bench's telecom agent tools): look customers, lines, plans, devices and bills up;
suspend and resume lines, ask for a payment, add data, switch roaming, hand over to a person.

The tools keep the records consistent (a line must belong to the customer named, one bill at a time awaits
payment) but enforce no rule of the policy: whether a line may be resumed, whether a bill is overdue before
its payment is asked for, how much data may be added are the chatbot's to keep, and that is what is tested.
They never touch the customer's phone (the `phones` table is the customer's side); the customer's own tools
are in user_tools.py. A tool that cannot do what it is asked raises, and the chatbot gets `Error: ...`.
"""

from datetime import date, timedelta
from typing import Any

from sqlmodel import Session, col, select

from intellagent.environment import InjectedSession, tool

from .schema import TODAY, Bill, Customer, Device, Line, Plan

Record = dict[str, Any]
SUSPENSION_FEE = "Line suspended successfully. $5/month holding fee will apply."


@tool(writes=False)
def get_customer_by_phone(session: InjectedSession, phone_number: str) -> Record:
    """Find a customer by their contact number or by the number of one of their lines.

    Args:
        phone_number: The number, such as '555-123-2002'.
    """
    for customer in _customers(session):
        if customer.phone_number == phone_number or phone_number in _line_ids(session, customer, numbers=True):
            return customer_record(session, customer)
    raise ValueError(f"Customer with phone number {phone_number} not found")


@tool(writes=False)
def get_customer_by_id(session: InjectedSession, customer_id: str) -> Record:
    """Get a customer by their id.

    Args:
        customer_id: The customer's id, such as 'C1001'.
    """
    return customer_record(session, _customer(session, customer_id))


@tool(writes=False)
def get_customer_by_name(session: InjectedSession, full_name: str, dob: str) -> list[Record]:
    """Find customers by full name and date of birth; both must match (the name in any case).

    Args:
        full_name: The customer's full name.
        dob: The customer's date of birth, 'YYYY-MM-DD'.
    """
    return [customer_record(session, customer) for customer in _customers(session)
            if customer.full_name.lower() == full_name.lower() and customer.date_of_birth == dob]


@tool(writes=False)
def get_details_by_id(session: InjectedSession, id: str) -> Record:
    """Get the record of a customer, line, device, bill or plan by its id (its first letter says which: C, L, D, B
    or P).

    Args:
        id: The id, such as 'L1002'.
    """
    kinds: dict[str, Any] = {"L": _line, "D": _device, "B": _bill, "P": _plan}
    if id.startswith("C"):
        return customer_record(session, _customer(session, id))
    if id[:1] not in kinds:
        raise ValueError(f"Unknown ID format or type: {id}")
    return _record(kinds[id[:1]](session, id))


@tool(writes=True)
def suspend_line(session: InjectedSession, customer_id: str, line_id: str, reason: str) -> Record:
    """Suspend an active line from today (for at most six months); a holding fee applies.

    Args:
        customer_id: The id of the customer who holds the line.
        line_id: The line's id.
        reason: Why the line is suspended.
    """
    line = _customers_line(session, customer_id, line_id)
    if line.status != "Active":
        raise ValueError("Line must be active to suspend")
    line.status, line.suspension_start_date = "Suspended", TODAY
    return {"message": SUSPENSION_FEE, "line": _record(line)}


@tool(writes=True)
def resume_line(session: InjectedSession, customer_id: str, line_id: str) -> Record:
    """Resume a suspended line (or activate a pending one); the phone gets service once it looks for the network
    again.

    Args:
        customer_id: The id of the customer who holds the line.
        line_id: The line's id.
    """
    line = _customers_line(session, customer_id, line_id)
    if line.status not in ("Suspended", "Pending Activation"):
        raise ValueError("Line must be suspended to resume")
    line.status, line.suspension_start_date = "Active", None
    return {"message": "Line resumed successfully", "line": _record(line)}


@tool(writes=False)
def get_bills_for_customer(session: InjectedSession, customer_id: str, limit: int = 12) -> list[Record]:
    """List a customer's bills, the latest issued first.

    Args:
        customer_id: The customer's id.
        limit: The most bills to list.
    """
    bills = sorted(_bills(session, _customer(session, customer_id)), key=lambda bill: bill.issue_date, reverse=True)
    return [_record(bill) for bill in bills[:limit]]


@tool(writes=True)
def send_payment_request(session: InjectedSession, customer_id: str, bill_id: str) -> str:
    """Ask the customer to pay one of their bills; the bill then awaits payment, and the customer sees the request on
    their phone. It does not check that the bill is unpaid or overdue: check its status first.

    Args:
        customer_id: The id of the customer the bill belongs to.
        bill_id: The bill's id.
    """
    customer = _customer(session, customer_id)
    bills = _bills(session, customer)
    if any(bill.status == "Awaiting Payment" for bill in bills):
        raise ValueError("A bill is already awaiting payment for this customer")
    bill = next((bill for bill in bills if bill.bill_id == bill_id), None)
    if bill is None:
        raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
    bill.status = "Awaiting Payment"
    return f"Payment request sent to the customer for bill {bill_id}"


@tool(writes=False)
def get_data_usage(session: InjectedSession, customer_id: str, line_id: str) -> Record:
    """Get a line's data use this billing cycle: used, the plan's limit, data added, and when the cycle ends.

    Args:
        customer_id: The id of the customer who holds the line.
        line_id: The line's id.
    """
    line = _customers_line(session, customer_id, line_id)
    plan = _plan(session, line.plan_id)
    return {"line_id": line_id, "data_used_gb": line.data_used_gb, "data_limit_gb": plan.data_limit_gb,
            "data_refueling_gb": line.data_refueling_gb,
            "cycle_end_date": _month_end(date.fromisoformat(TODAY)).isoformat()}


@tool(writes=True)
def enable_roaming(session: InjectedSession, customer_id: str, line_id: str) -> str:
    """Let a line use data abroad, on other carriers' networks.

    Args:
        customer_id: The id of the customer who holds the line.
        line_id: The line's id.
    """
    line = _customers_line(session, customer_id, line_id)
    if line.roaming_enabled:
        return "Roaming was already enabled"
    line.roaming_enabled = True
    return "Roaming enabled successfully"


@tool(writes=True)
def disable_roaming(session: InjectedSession, customer_id: str, line_id: str) -> str:
    """Stop a line from using data abroad.

    Args:
        customer_id: The id of the customer who holds the line.
        line_id: The line's id.
    """
    line = _customers_line(session, customer_id, line_id)
    if not line.roaming_enabled:
        return "Roaming was already disabled"
    line.roaming_enabled = False
    return "Roaming disabled successfully"


@tool(writes=False, ends_dialog=True)
def transfer_to_human_agents(summary: str) -> str:
    """Hand the customer over to a human agent, with a summary of their issue: only when they ask for a person, or
    when the policy and these tools cannot solve it.

    Args:
        summary: The customer's issue, in a few sentences.
    """
    return "Transfer successful"


@tool(writes=True, confirm=True)
def refuel_data(session: InjectedSession, customer_id: str, line_id: str, gb_amount: float) -> Record:
    """Add data to a line for this billing cycle, at its plan's price per GB, charged on the customer's next bill.

    Args:
        customer_id: The id of the customer who holds the line.
        line_id: The line's id.
        gb_amount: The data to add, in GB.
    """
    line = _customers_line(session, customer_id, line_id)
    if gb_amount <= 0:
        raise ValueError("Refuel amount must be positive")
    plan = _plan(session, line.plan_id)
    charge = gb_amount * plan.data_refueling_price_per_gb
    line.data_refueling_gb += gb_amount
    price = plan.data_refueling_price_per_gb
    add_charge(session, customer_id, charge, f"Data refueling: {gb_amount} GB at ${price}/GB")
    return {"message": f"Successfully added {gb_amount} GB of data for line {line_id} for ${charge:.2f}",
            "new_data_refueling_gb": line.data_refueling_gb, "charge": charge}


def add_charge(session: Session, customer_id: str, amount: float, description: str) -> None:
    """Add a charge (or, negative, a credit) to the customer's draft bill, opening one for next month if they have
    none."""
    customer = _customer(session, customer_id)
    bill = next((bill for bill in _bills(session, customer) if bill.status == "Draft"), None)
    if bill is None:
        start = _month_end(date.fromisoformat(TODAY)) + timedelta(days=1)
        bill = Bill(bill_id=next_bill_id(session), customer_id=customer_id, period_start=start.isoformat(),
                    period_end=_month_end(start).isoformat(), issue_date=start.isoformat(), total_due=0.0,
                    due_date=(start + timedelta(days=14)).isoformat(), line_items=[], status="Draft")
        session.add(bill)
    item = {"description": description, "amount": amount, "date": TODAY,
            "item_type": "Credit" if amount < 0 else "Charge"}
    bill.line_items = [*bill.line_items, item]
    bill.total_due += amount


def next_bill_id(session: Session) -> str:
    """A bill id no bill has: one more than the largest number among the ids."""
    numbers = [int(bill_id[1:]) for bill_id in session.exec(select(Bill.bill_id)).all() if bill_id[1:].isdigit()]
    return f"B{max(numbers, default=1000) + 1}"


def customer_record(session: Session, customer: Customer) -> Record:
    """A customer as the tools show one: the profile, with the ids of the customer's lines and bills."""
    return {**customer.model_dump(), "line_ids": _line_ids(session, customer),
            "bill_ids": [bill.bill_id for bill in _bills(session, customer)]}


def _customers(session: Session) -> list[Customer]:
    return list(session.exec(select(Customer).order_by(col(Customer.customer_id))).all())


def _customer(session: Session, customer_id: str) -> Customer:
    customer = session.get(Customer, customer_id)
    if customer is None:
        raise ValueError(f"Customer with ID {customer_id} not found")
    return customer


def _line_ids(session: Session, customer: Customer, *, numbers: bool = False) -> list[str]:
    column = Line.phone_number if numbers else Line.line_id
    query = select(column).where(Line.customer_id == customer.customer_id).order_by(col(Line.line_id))
    return list(session.exec(query).all())


def _bills(session: Session, customer: Customer) -> list[Bill]:
    query = select(Bill).where(Bill.customer_id == customer.customer_id).order_by(col(Bill.bill_id))
    return list(session.exec(query).all())


def _customers_line(session: Session, customer_id: str, line_id: str) -> Line:
    customer = _customer(session, customer_id)
    if line_id not in _line_ids(session, customer):
        raise ValueError(f"Line {line_id} not found for customer {customer_id}")
    return _line(session, line_id)


def _line(session: Session, line_id: str) -> Line:
    return _found(session.get(Line, line_id), "Line", line_id)


def _device(session: Session, device_id: str) -> Device:
    return _found(session.get(Device, device_id), "Device", device_id)


def _bill(session: Session, bill_id: str) -> Bill:
    return _found(session.get(Bill, bill_id), "Bill", bill_id)


def _plan(session: Session, plan_id: str) -> Plan:
    return _found(session.get(Plan, plan_id), "Plan", plan_id)


def _found(row: Any, kind: str, key: str) -> Any:
    if row is None:
        raise ValueError(f"{kind} with ID {key} not found")
    return row


def _record(row: Any) -> Record:
    """A row as the tools show it; a line without its holder's id, as a line's own record has none."""
    values = row.model_dump()
    if isinstance(row, Line):
        values.pop("customer_id")
    return values


def _month_end(day: date) -> date:
    following = (day.replace(day=28) + timedelta(days=4)).replace(day=1)
    return following - timedelta(days=1)
