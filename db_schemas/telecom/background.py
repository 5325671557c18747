"""The carrier's base world, the same for a given seed: its plans, and a few dozen customers with lines,
bills and phones.

Around the policy's "now" (2025-06-12): March and April are billed and mostly paid, some April bills
are overdue (and most lines of those customers were suspended for it on June 4), May's bills are
open until June 21, and June's are pending. Most phones work; a few have a fault of the kind the
technical support procedure fixes, so a search of the world finds every shape a scenario may need.
"""

import random
from datetime import date

from faker import Faker
from sqlmodel import Session

from .network import can_register
from .schema import CURRENT_PERIOD, DEFAULT_APN, Bill, Customer, Line, Phone, Plan
from .validators import MAX_REFUEL_PER_MONTH_GB, issue_dates

CUSTOMERS = 36
PLANS = (
    Plan(plan_id="starter_5", name="Starter 5 GB", monthly_price=25.0, data_limit_gb=5.0, refuel_price_per_gb=5.0,
         roaming_price_per_day=12.0),
    Plan(plan_id="everyday_15", name="Everyday 15 GB", monthly_price=40.0, data_limit_gb=15.0,
         refuel_price_per_gb=4.0, roaming_price_per_day=12.0),
    Plan(plan_id="max_40", name="Max 40 GB", monthly_price=60.0, data_limit_gb=40.0, refuel_price_per_gb=3.0,
         roaming_price_per_day=8.0),
    Plan(plan_id="unlimited", name="Unlimited", monthly_price=80.0, roaming_price_per_day=0.0),
)
MODELS = ("Pixel 8", "Pixel 7a", "iPhone 15", "iPhone 13", "Galaxy S24", "Galaxy A54", "Moto G Power",
          "Nothing Phone 2")
BILLED = ("2025-03", "2025-04", "2025-05")
"""The billing months already issued, oldest first; CURRENT_PERIOD is still pending."""
SUSPENDED_FOR_OVERDUE_ON = "2025-06-04"
"""The day the network suspended lines whose April bill was two weeks overdue."""


def generate(session: Session, seed: int) -> None:
    """Add the plans and the customers, with their lines, phones and bills, to an empty carrier database."""
    rng = random.Random(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    session.add_all(Plan.model_validate(plan.model_dump()) for plan in PLANS)
    customer_ids: set[str] = set()
    numbers: set[str] = set()
    bill_number = 600_000_000 + rng.randrange(1_000_000)
    while len(customer_ids) < CUSTOMERS:
        customer = _customer(rng, fake)
        if customer.customer_id in customer_ids:
            continue
        customer_ids.add(customer.customer_id)
        overdue = rng.random() < 0.15
        lines = []
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
            number = _phone_number(rng)
            if number not in numbers:
                numbers.add(number)
                lines.append(_line(rng, customer.customer_id, number, overdue=overdue))
        session.add(customer)
        session.add_all(lines)
        session.add_all(_phone(rng, line) for line in lines)
        for period in (*BILLED, CURRENT_PERIOD):
            bill_number += rng.randint(1, 9)
            session.add(_bill(rng, customer, lines, period, f"{bill_number:09d}", overdue=overdue))


def _customer(rng: random.Random, fake: Faker) -> Customer:
    first, last = fake.first_name(), fake.last_name()
    handle = f"{first}.{last}".lower().replace("'", "").replace(" ", "")
    cards = []
    for type_ in rng.sample(("credit_card", "debit_card"), rng.choice((1, 1, 2))):
        year = rng.randint(2025, 2029)
        month = rng.randint(1, 12) if year > 2025 else rng.randint(3, 12)  # a few ran out before June 2025
        cards.append({"type": type_, "last_four": f"{rng.randint(0, 9999):04d}", "expires": f"{year}-{month:02d}"})
    if len(cards) == 2 and cards[0]["last_four"] == cards[1]["last_four"]:
        cards.pop()
    return Customer(
        customer_id=f"{rng.randint(10_000_000, 99_999_999)}",
        full_name=f"{first} {last}",
        date_of_birth=date.fromordinal(date(1950, 1, 1).toordinal() + rng.randint(0, 55 * 365)).isoformat(),
        email=f"{handle}{rng.randint(1, 99)}@example.com",
        street=fake.street_address(),
        city=fake.city(),
        state=fake.state_abbr(include_territories=False),
        zip_code=fake.zipcode(),
        payment_methods=cards,
    )


def _phone_number(rng: random.Random) -> str:
    return f"{rng.randint(2, 9)}{rng.randint(0, 99):02d}555{rng.randint(0, 9999):04d}"


def _line(rng: random.Random, customer_id: str, number: str, *, overdue: bool) -> Line:
    plan = rng.choice(PLANS)
    refueled = 0.0 if plan.data_limit_gb is None else rng.choice((0.0, 0.0, 0.0, 1.0, 2.0, MAX_REFUEL_PER_MONTH_GB))
    limit = (plan.data_limit_gb or 60.0) + refueled
    line = Line(
        phone_number=number, customer_id=customer_id, plan_id=plan.plan_id, status="active",
        contract_end=rng.choice((None, None, f"{rng.randint(2025, 2026)}-{rng.randint(1, 12):02d}-28")),
        data_used_gb=round(rng.uniform(0, limit * (1.1 if plan.data_limit_gb else 1.0)), 1),
        data_refueled_gb=refueled, roaming_enabled=rng.random() < 0.25,
    )
    if overdue and rng.random() < 0.7:
        line.status, line.suspension_reason, line.suspended_on = "suspended", "non_payment", SUSPENDED_FOR_OVERDUE_ON
    elif rng.random() < 0.08:
        line.status, line.suspension_reason = "suspended", rng.choice(("customer_request", "lost_or_stolen"))
        line.suspended_on = f"2025-{rng.randint(2, 6):02d}-{rng.randint(1, 11):02d}"
    return line


def _phone(rng: random.Random, line: Line) -> Phone:
    """A phone as its owner left it: most work, about one in three has one fault."""
    abroad = rng.random() < 0.12
    phone = Phone(
        phone_number=line.phone_number, model=rng.choice(MODELS), abroad=abroad, airplane_mode=False, sim="active",
        registered=True, mobile_data=True, data_roaming=abroad, network_mode="5g_auto", apn=dict(DEFAULT_APN),
    )
    fault = rng.choice((None,) * 16 + ("airplane", "sim", "locked", "data", "roaming", "mode", "apn", "restart"))
    if fault == "airplane":
        phone.airplane_mode = True
    elif fault in ("sim", "locked"):
        phone.sim = "missing" if fault == "sim" else "locked"
    elif fault == "data":
        phone.mobile_data = False
    elif fault == "roaming":
        phone.data_roaming = False
    elif fault == "mode":
        phone.network_mode = rng.choice(("3g_auto", "2g_only"))
    elif fault == "apn":
        phone.apn = {"name": "internet", "mmsc": ""}
    elif fault == "restart":
        phone.registered = False
    phone.registered = phone.registered and can_register(phone, line)
    return phone


def _bill(rng: random.Random, customer: Customer, lines: list[Line], period: str, bill_id: str, *,
          overdue: bool) -> Bill:
    prices = {plan.plan_id: plan for plan in PLANS}
    charges = [{"description": f"{prices[line.plan_id].name} plan, line {line.phone_number}",
                "amount": prices[line.plan_id].monthly_price} for line in lines]
    for line in lines:
        price = prices[line.plan_id].refuel_price_per_gb
        # This month's bill lists the data bought so far; an earlier month's, now and then some.
        bought = line.data_refueled_gb if period == CURRENT_PERIOD else rng.choice((0.0,) * 4 + (1.0,))
        if price is not None and bought:
            charges.append({"description": f"Extra data {bought:g} GB, line {line.phone_number}",
                            "amount": round(bought * price, 2)})
    bill = Bill(bill_id=bill_id, customer_id=customer.customer_id, period=period, status="pending",
                amount=round(sum(charge["amount"] for charge in charges), 2), charges=charges)
    if period == CURRENT_PERIOD:
        return bill
    bill.issued_on, bill.due_on = issue_dates(period)
    issued = date.fromisoformat(bill.issued_on)
    if period == "2025-04" and overdue:
        bill.status = "overdue"
    elif period == "2025-05" and rng.random() < 0.7:
        bill.status = "open"
    else:
        paid = issued.replace(day=rng.randint(2, 20 if period != "2025-05" else 11)).isoformat()
        working = [card for card in customer.payment_methods if card["expires"] >= paid[:7]]
        card = rng.choice(working or customer.payment_methods)
        bill.status, bill.paid_on, bill.paid_with = "paid", paid, card["last_four"]
    return bill
