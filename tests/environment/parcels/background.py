"""A seeded parcel desk: three depots, five customers, eight parcels and their items."""

import random

from sqlmodel import Session

from .schema import Customer, Depot, Item, Parcel

CITIES = {"LON3": "London", "MAN1": "Manchester", "LDS2": "Leeds"}
NAMES = ("Ada Moss", "Ben Hale", "Cleo Park", "Dan Ruiz", "Eve Stone")
GOODS = ("kettle", "lamp", "novel", "scarf", "teapot", "umbrella")
STATUSES = ("in transit", "held", "delivered")


def generate(session: Session, seed: int) -> None:
    """Depots, customers, and parcels with one to three items each."""
    rng = random.Random(seed)
    session.add_all(Depot(code=code, city=city) for code, city in CITIES.items())
    customers = [Customer(customer_id=f"cus_{rng.randint(10000, 99999)}", name=name,
                          phone=f"+44 20 7946 {rng.randint(1000, 9999)}") for name in NAMES]
    session.add_all(customers)
    for number in range(8):
        tracking = str(rng.randint(10**11, 10**12 - 1))
        session.add(Parcel(tracking_number=tracking, customer_id=rng.choice(customers).customer_id,
                           depot=rng.choice(list(CITIES)), label=f"LBL/2024/{10000 + number * 977}",
                           status=rng.choice(STATUSES), weight_grams=rng.randint(200, 9000)))
        for _ in range(rng.randint(1, 3)):
            session.add(Item(item_id=rng.randint(10**9, 10**10 - 1), tracking_number=tracking,
                             description=rng.choice(GOODS), quantity=rng.randint(1, 4),
                             price=round(rng.uniform(5, 120), 2)))
