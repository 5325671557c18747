"""The carrier's base world, the same for a given seed: its plans and devices, a few dozen customers with lines
and bills, and the phone in one customer's hand.

Around the policy's "now" (2025-02-25): January is billed and mostly paid, February's bills were issued on
the 5th and fell due on the 19th (some are paid, some overdue, and most lines of a customer with an overdue
bill are suspended), and March's draft bill gathers this month's extra charges. A few lines' contracts have
ended. The phone is healthy: a scenario's world breaks what its story needs (populate).
"""

import random
from collections.abc import Iterator
from datetime import date, timedelta

from faker import Faker
from sqlmodel import Session

from .schema import Bill, Customer, Device, Line, Phone, Plan

CUSTOMERS = 24
PLANS = (
    Plan(plan_id="P2001", name="Starter", data_limit_gb=3.0, price_per_month=30.0, data_refueling_price_per_gb=6.0),
    Plan(plan_id="P2002", name="Everyday", data_limit_gb=10.0, price_per_month=50.0, data_refueling_price_per_gb=3.5),
    Plan(plan_id="P2003", name="Plus", data_limit_gb=30.0, price_per_month=70.0, data_refueling_price_per_gb=1.5),
    Plan(plan_id="P2004", name="Household", data_limit_gb=40.0, price_per_month=110.0,
         data_refueling_price_per_gb=2.5),
    Plan(plan_id="P2005", name="Sensor", data_limit_gb=0.5, price_per_month=10.0, data_refueling_price_per_gb=8.0),
)
MODELS = {"phone": ("Pixel 8", "iPhone 15", "Galaxy S24", "Moto G Power", "Nothing Phone 2"),
          "tablet": ("iPad Air", "Galaxy Tab S9"), "watch": ("Watch Ultra",), "router": ("Home Hub 5G",)}
PAYMENT_TYPES = ("Credit Card", "Debit Card", "PayPal")
JANUARY, FEBRUARY, MARCH = date(2025, 1, 1), date(2025, 2, 1), date(2025, 3, 1)


def generate(session: Session, seed: int) -> None:
    """Add the plans, devices, customers with their lines and bills, and one customer's phone to an empty world."""
    rng = random.Random(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    session.add_all(Plan.model_validate(plan.model_dump()) for plan in PLANS)
    numbers: set[str] = set()
    serial = iter(range(1001, 10_000))
    first_line: Line | None = None
    for index in range(CUSTOMERS):
        customer = _customer(rng, fake, f"C{2001 + index}", numbers)
        overdue = rng.random() < 0.15
        lines = []
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            device = _device(rng, f"D{next(serial)}")
            line = _line(rng, f"L{next(serial)}", customer.customer_id, _number(rng, numbers), device.device_id,
                         overdue=overdue)
            session.add(device)
            lines.append(line)
        session.add(customer)
        session.add_all(lines)
        for bill in _bills(rng, customer.customer_id, lines, serial, overdue=overdue):
            session.add(bill)
        if first_line is None and lines[0].status == "Active":
            first_line = lines[0]
            session.add(Phone(owner=customer.full_name, phone_number=first_line.phone_number))


def _customer(rng: random.Random, fake: Faker, customer_id: str, numbers: set[str]) -> Customer:
    first, last = fake.first_name(), fake.last_name()
    methods = [{"method_type": kind, "account_number_last_4": f"{rng.randint(0, 9999):04d}",
                "expiration_date": f"{rng.randint(1, 12):02d}/{rng.randint(2025, 2029)}"}
               for kind in rng.sample(PAYMENT_TYPES, rng.choice((1, 1, 2)))]
    return Customer(
        customer_id=customer_id, full_name=f"{first} {last}",
        date_of_birth=date.fromordinal(date(1950, 1, 1).toordinal() + rng.randint(0, 55 * 365)).isoformat(),
        email=f"{first}.{last}".lower().replace("'", "").replace(" ", "") + "@example.com",
        phone_number=_number(rng, numbers),
        address={"street": fake.street_address(), "city": fake.city(), "state": fake.state_abbr(),
                 "zip_code": fake.zipcode()},
        account_status="Active", created_at=f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:00:00",
        payment_methods=methods, goodwill_credit_used_this_year=float(rng.choice((0, 0, 0, 15, 25))),
    )


def _number(rng: random.Random, numbers: set[str]) -> str:
    while True:
        number = f"{rng.randint(200, 989)}-555-{rng.randint(0, 9999):04d}"
        if number not in numbers:
            numbers.add(number)
            return number


def _device(rng: random.Random, device_id: str) -> Device:
    kind = rng.choice(("phone",) * 6 + ("tablet", "watch", "router"))
    return Device(device_id=device_id, device_type=kind, model=rng.choice(MODELS[kind]),
                  imei="".join(str(rng.randint(0, 9)) for _ in range(15)), is_esim_capable=rng.random() < 0.8,
                  activated=True, activation_date=f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T12:00:00")


def _line(rng: random.Random, line_id: str, customer_id: str, number: str, device_id: str, *, overdue: bool) -> Line:
    plan = rng.choice(PLANS)
    ended = rng.random() < 0.1
    line = Line(line_id=line_id, customer_id=customer_id, phone_number=number, status="Active", plan_id=plan.plan_id,
                device_id=device_id, data_used_gb=round(rng.uniform(0, plan.data_limit_gb * 1.1), 1),
                roaming_enabled=rng.random() < 0.3,
                contract_end_date="2025-01-31" if ended else f"{rng.randint(2025, 2027)}-{rng.randint(3, 12):02d}-28",
                last_plan_change_date=f"2024-{rng.randint(1, 12):02d}-15")
    if overdue and rng.random() < 0.7:
        line.status, line.suspension_start_date = "Suspended", "2025-02-21"
    return line


def _bills(rng: random.Random, customer_id: str, lines: list[Line], serial: Iterator[int], *,
           overdue: bool) -> list[Bill]:
    prices = {plan.plan_id: plan for plan in PLANS}
    bills = []
    for start, status in ((JANUARY, "Paid"), (FEBRUARY, "Overdue" if overdue else rng.choice(("Paid", "Issued"))),
                          (MARCH, "Draft")):
        issued = start + timedelta(days=4)
        items = [] if status == "Draft" else [
            {"description": f"{prices[line.plan_id].name} - Line {line.phone_number}",
             "amount": prices[line.plan_id].price_per_month, "date": issued.isoformat(), "item_type": "Plan Charge"}
            for line in lines]
        end = (start.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
        bills.append(Bill(bill_id=f"B{next(serial)}", customer_id=customer_id, period_start=start.isoformat(),
                          period_end=end.isoformat(), issue_date=issued.isoformat(),
                          total_due=round(sum(item["amount"] for item in items), 2),
                          due_date=(issued + timedelta(days=14)).isoformat(), line_items=items, status=status))
    return bills
