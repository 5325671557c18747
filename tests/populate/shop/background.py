"""A seeded shop: a few products and two customers."""

import random

from sqlmodel import Session

from .schema import Customer, Order, Product


def generate(session: Session, seed: int) -> None:
    """Stock the shop."""
    rng = random.Random(seed)
    for number in range(4):
        session.add(Product(sku=f"SKU-{1001 + number}", name=f"Gadget {number}", price=rng.randint(5, 90),
                            stock=rng.randint(3, 9)))
    for first, last in (("ada", "byron"), ("alan", "turing")):
        customer_id = f"{first}_{last}_{rng.randint(10, 99)}"
        session.add(Customer(customer_id=customer_id, first_name=first.title(), last_name=last.title(),
                             email=f"{first}.{last}@example.com", tier=rng.choice(("basic", "vip"))))
        session.add(Order(order_id=f"ORD-{rng.randint(1000, 9999)}", customer_id=customer_id,
                          placed_at="2024-02-20T10:00:00", status="shipped"))
