"""The carrier chatbot's tools: look customers, lines, plans and bills up; refuel, roam, suspend, resume, pay.

The tools keep the records consistent (a line must belong to the customer named, a paid bill cannot
be paid again) but enforce no rule of the policy: refuel limits, who may roam, when a suspended line
may come back and which card may pay are the chatbot's to keep, and that is what is being tested
(checks.py decides them over each dialog). They never touch the customers' phones (the `phones`
table is the customer's side of the world); the customer's own tools are in user_tools.py.
A tool that cannot do what it is asked raises, and the chatbot gets `Error: ...` with the reason.
"""

from typing import Any, Literal

from sqlmodel import Session, col, select

from intellagent.environment import InjectedSession, tool

from .schema import CURRENT_PERIOD, TODAY, Bill, Customer, Line, Plan

Record = dict[str, Any]


@tool(writes=False)
def find_customer_by_phone(session: InjectedSession, phone_number: str) -> Record:
    """Find the customer who holds a phone line, by the line's number.

    Args:
        phone_number: The line's ten-digit number, digits only, such as '5035550187'.
    """
    line = session.get(Line, phone_number)
    if line is None:
        raise ValueError(f"no line with number {phone_number}")
    return _customer_record(session, _customer(session, line.customer_id))


@tool(writes=False)
def get_customer_details(session: InjectedSession, customer_id: str) -> Record:
    """Get a customer's profile: name, birth date, contact details, cards on file, lines and bills.

    Args:
        customer_id: The customer's eight-digit id, such as '31750284'.
    """
    return _customer_record(session, _customer(session, customer_id))


@tool(writes=False)
def find_customer_by_name(session: InjectedSession, full_name: str, date_of_birth: str) -> list[Record]:
    """Find customers by full name and date of birth; both must match.

    Args:
        full_name: The customer's full name, such as 'Dana Whitfield'.
        date_of_birth: The customer's date of birth, 'YYYY-MM-DD'.
    """
    wanted = " ".join(full_name.split()).lower()
    found = session.exec(select(Customer).where(Customer.date_of_birth == date_of_birth)).all()
    return [_customer_record(session, customer) for customer in found
            if " ".join(customer.full_name.split()).lower() == wanted]


@tool(writes=False)
def get_line_details(session: InjectedSession, customer_id: str, phone_number: str) -> Record:
    """Get a line's status, plan, contract and this month's data use.

    Args:
        customer_id: The id of the customer who holds the line.
        phone_number: The line's ten-digit number.
    """
    line = _line(session, customer_id, phone_number)
    plan = session.get(Plan, line.plan_id)
    allowance = None if plan is None or plan.data_limit_gb is None else plan.data_limit_gb + line.data_refueled_gb
    return {
        "phone_number": line.phone_number,
        "customer_id": line.customer_id,
        "status": line.status,
        "suspension_reason": line.suspension_reason,
        "suspended_on": line.suspended_on,
        "contract_end": line.contract_end,
        "plan_id": line.plan_id,
        "data_used_gb": line.data_used_gb,
        "data_refueled_gb": line.data_refueled_gb,
        "data_allowance_gb": allowance,
        "roaming_enabled": line.roaming_enabled,
    }


@tool(writes=False)
def list_plans(session: InjectedSession) -> list[Record]:
    """List every plan the carrier sells, with its prices and data limit."""
    return [plan.model_dump() for plan in session.exec(select(Plan).order_by(col(Plan.monthly_price))).all()]


@tool(writes=False)
def get_plan_details(session: InjectedSession, plan_id: str) -> Record:
    """Get a plan's price, data limit, refuel price and roaming price.

    Args:
        plan_id: The plan's id, such as 'everyday_15'.
    """
    plan = session.get(Plan, plan_id)
    if plan is None:
        raise ValueError(f"no plan {plan_id}")
    return plan.model_dump()


@tool(writes=False)
def get_bills(session: InjectedSession, customer_id: str) -> list[Record]:
    """List a customer's bills, the latest billing month first, with their charges and status.

    Args:
        customer_id: The customer's eight-digit id.
    """
    _customer(session, customer_id)
    return [bill.model_dump() for bill in _bills(session, customer_id)]


@tool(writes=False)
def get_bill_details(session: InjectedSession, customer_id: str, bill_id: str) -> Record:
    """Get one bill of a customer: billing month, status, dates, amount and charges.

    Args:
        customer_id: The id of the customer the bill is addressed to.
        bill_id: The bill's nine-digit number, such as '602318457'.
    """
    return _bill(session, customer_id, bill_id).model_dump()


@tool(writes=True, confirm=True)
def refuel_data(session: InjectedSession, customer_id: str, phone_number: str, gb_amount: float) -> Record:
    """Add extra data to a line for this billing month; the price is charged on this month's bill.

    Args:
        customer_id: The id of the customer who holds the line.
        phone_number: The line's ten-digit number.
        gb_amount: The data to add, in GB, such as 1.5.
    """
    line = _line(session, customer_id, phone_number)
    if gb_amount <= 0:
        raise ValueError("gb_amount must be more than 0 GB")
    plan = session.get(Plan, line.plan_id)
    if plan is None or plan.refuel_price_per_gb is None:
        raise ValueError(f"plan {line.plan_id} has unlimited data: there is no data to add")
    charge = round(gb_amount * plan.refuel_price_per_gb, 2)
    line.data_refueled_gb = round(line.data_refueled_gb + gb_amount, 2)
    bill = _charge(session, customer_id, f"Extra data {gb_amount:g} GB, line {phone_number}", charge)
    return {"phone_number": phone_number, "added_gb": gb_amount, "data_refueled_gb": line.data_refueled_gb,
            "charge": charge, "bill_id": bill.bill_id}


@tool(writes=True, confirm=True)
def enable_roaming(session: InjectedSession, customer_id: str, phone_number: str) -> str:
    """Let a line use data abroad, on partner networks.

    Args:
        customer_id: The id of the customer who holds the line.
        phone_number: The line's ten-digit number.
    """
    return _set_roaming(_line(session, customer_id, phone_number), enabled=True)


@tool(writes=True, confirm=True)
def disable_roaming(session: InjectedSession, customer_id: str, phone_number: str) -> str:
    """Stop a line from using data abroad.

    Args:
        customer_id: The id of the customer who holds the line.
        phone_number: The line's ten-digit number.
    """
    return _set_roaming(_line(session, customer_id, phone_number), enabled=False)


@tool(writes=True, confirm=True)
def suspend_line(
    session: InjectedSession, customer_id: str, phone_number: str, reason: Literal["customer_request", "lost_or_stolen"]
) -> Record:
    """Suspend an active line from today: it keeps its number but has no service until it is resumed.

    Args:
        customer_id: The id of the customer who holds the line.
        phone_number: The line's ten-digit number.
        reason: Why: the customer asked for a pause, or the phone was lost or stolen.
    """
    line = _line(session, customer_id, phone_number)
    if line.status != "active":
        raise ValueError(f"line {phone_number} is {line.status}; only an active line can be suspended")
    line.status, line.suspension_reason, line.suspended_on = "suspended", reason, TODAY
    return {"phone_number": phone_number, "status": line.status, "suspension_reason": reason, "suspended_on": TODAY}


@tool(writes=True, confirm=True)
def resume_line(session: InjectedSession, customer_id: str, phone_number: str) -> Record:
    """Resume a suspended line; the phone gets service back once it restarts.

    Args:
        customer_id: The id of the customer who holds the line.
        phone_number: The line's ten-digit number.
    """
    line = _line(session, customer_id, phone_number)
    if line.status != "suspended":
        raise ValueError(f"line {phone_number} is {line.status}, not suspended")
    line.status, line.suspension_reason, line.suspended_on = "active", None, None
    return {"phone_number": phone_number, "status": line.status}


@tool(writes=True, confirm=True)
def pay_bill(session: InjectedSession, customer_id: str, bill_id: str, card_last_four: str) -> Record:
    """Pay an issued bill in full with a card on the customer's file.

    Args:
        customer_id: The id of the customer the bill is addressed to.
        bill_id: The bill's nine-digit number.
        card_last_four: The last four digits of the card to charge, such as '4242'.
    """
    bill = _bill(session, customer_id, bill_id)
    if bill.status == "paid":
        raise ValueError(f"bill {bill_id} was already paid on {bill.paid_on}")
    if bill.status == "pending":
        raise ValueError(f"bill {bill_id} is this month's and not issued yet; it cannot be paid before it is")
    customer = _customer(session, customer_id)
    if not any(card.get("last_four") == card_last_four for card in customer.payment_methods):
        raise ValueError(f"no card ending in {card_last_four} on file for customer {customer_id}")
    bill.status, bill.paid_on, bill.paid_with = "paid", TODAY, card_last_four
    return {"bill_id": bill_id, "status": bill.status, "amount": bill.amount, "paid_with": card_last_four}


@tool(writes=False, ends_dialog=True)
def transfer_to_human_agents(summary: str) -> str:
    """Hand the conversation over to a human agent, with a summary of the customer's issue.

    Only when the customer asks for a person, or the request cannot be handled with the other tools.

    Args:
        summary: A summary of the customer's issue for the human agent.
    """
    return "Transfer successful"


def _customer(session: Session, customer_id: str) -> Customer:
    customer = session.get(Customer, customer_id)
    if customer is None:
        raise ValueError(f"no customer {customer_id}")
    return customer


def _line(session: Session, customer_id: str, phone_number: str) -> Line:
    _customer(session, customer_id)
    line = session.get(Line, phone_number)
    if line is None or line.customer_id != customer_id:
        raise ValueError(f"customer {customer_id} has no line {phone_number}")
    return line


def _bill(session: Session, customer_id: str, bill_id: str) -> Bill:
    _customer(session, customer_id)
    bill = session.get(Bill, bill_id)
    if bill is None or bill.customer_id != customer_id:
        raise ValueError(f"customer {customer_id} has no bill {bill_id}")
    return bill


def _bills(session: Session, customer_id: str) -> list[Bill]:
    query = select(Bill).where(Bill.customer_id == customer_id).order_by(col(Bill.period).desc())
    return list(session.exec(query).all())


def _customer_record(session: Session, customer: Customer) -> Record:
    lines = session.exec(select(Line).where(Line.customer_id == customer.customer_id)
                         .order_by(col(Line.phone_number))).all()
    return {
        **customer.model_dump(),
        "lines": [line.phone_number for line in lines],
        "bills": [bill.bill_id for bill in _bills(session, customer.customer_id)],
    }


def _set_roaming(line: Line, *, enabled: bool) -> str:
    state = "enabled" if enabled else "disabled"
    if line.roaming_enabled == enabled:
        return f"Roaming was already {state} on line {line.phone_number}"
    line.roaming_enabled = enabled
    return f"Roaming {state} on line {line.phone_number}"


def _charge(session: Session, customer_id: str, description: str, amount: float) -> Bill:
    """Add a charge to the customer's bill of this month, opening that bill if there is none yet."""
    bill = session.exec(select(Bill).where(Bill.customer_id == customer_id, Bill.period == CURRENT_PERIOD)).first()
    if bill is None:
        numbers = [int(number) for number in session.exec(select(Bill.bill_id)).all()]
        bill = Bill(bill_id=f"{max(numbers, default=100_000_000) + 1:09d}", customer_id=customer_id,
                    period=CURRENT_PERIOD, status="pending", amount=0.0, charges=[])
        session.add(bill)
    bill.charges = [*bill.charges, {"description": description, "amount": amount}]
    bill.amount = round(bill.amount + amount, 2)
    return bill
