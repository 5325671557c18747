"""A seeded store: thirty customers with their payment methods, a catalogue of twelve products with their
variants, and forty orders, each with its lines and payments, and a shipment once it left."""

import random
from datetime import datetime, timedelta

from faker import Faker
from sqlmodel import Session

from .schema import (
    CARRIERS,
    CATEGORIES,
    METHOD_KINDS,
    NOW,
    Customer,
    Order,
    OrderLine,
    Payment,
    PaymentMethod,
    Product,
    Shipment,
    Variant,
)

CATALOGUE = {
    "shoes": (["Trail Running Shoe", "Canvas Sneaker", "Leather Boot"], {"color": ["black", "white", "tan"],
                                                                      "size": ["7", "8", "9", "10", "11"]}),
    "jackets": (["Rain Shell", "Down Parka"], {"color": ["navy", "olive", "red"], "size": ["S", "M", "L", "XL"]}),
    "bags": (["Travel Duffel", "Laptop Backpack", "Tote"], {"color": ["black", "grey"], "material": ["canvas",
                                                                                                  "nylon"]}),
    "lamps": (["Desk Lamp", "Floor Lamp"], {"color": ["white", "brass"], "bulb": ["LED", "halogen"]}),
    "headphones": (["Wireless Earbuds", "Studio Headphones"], {"color": ["black", "silver"],
                                                               "connectivity": ["wireless", "wired"]}),
}
STATUSES = ("pending", "processed", "delivered", "delivered", "cancelled")
"""An order's status, drawn with delivered orders twice as likely."""
TAGS = ("outdoor", "waterproof", "travel", "office", "gift", "bestseller", "new", "eco")


def generate(session: Session, seed: int) -> None:
    """Open the store and give it a history."""
    rng = random.Random(seed)
    fake = Faker("en_US")
    fake.seed_instance(seed)
    customers = [_customer(fake, rng) for _ in range(30)]
    methods = {customer.customer_id: _methods(customer, rng) for customer in customers}
    session.add_all(customers)
    session.add_all(method for owned in methods.values() for method in owned)
    variants, names_of = [], {}
    for category in CATEGORIES:
        names, options = CATALOGUE[category]
        for name in names:
            product = Product(product_id=_digits(rng, 10), name=name, category=category,
                              tags=rng.sample(TAGS, rng.randint(1, 3)))
            session.add(product)
            names_of[product.product_id] = name
            for _ in range(rng.randint(2, 4)):
                chosen = {option: rng.choice(values) for option, values in options.items()}
                variants.append(Variant(variant_id=_digits(rng, 10), product_id=product.product_id, options=chosen,
                                        price=round(rng.uniform(15, 300), 2), available=rng.random() < 0.8))
    session.add_all(variants)
    line_id = 1
    now = datetime.fromisoformat(NOW)
    for _ in range(40):
        customer = rng.choice(customers)
        placed = now - timedelta(days=rng.randint(1, 60), minutes=rng.randint(0, 24 * 60))
        order = Order(order_id=f"#W{_digits(rng, 7)}", customer_id=customer.customer_id,
                      placed_at=placed.strftime("%Y-%m-%dT%H:%M:%S"), status=rng.choice(STATUSES),
                      address=dict(customer.address))
        session.add(order)
        total = 0.0
        for variant in rng.sample(variants, rng.randint(1, 3)):
            quantity = rng.randint(1, 2)
            session.add(OrderLine(line_id=line_id, order_id=order.order_id, product_id=variant.product_id,
                                  variant_id=variant.variant_id, name=names_of[variant.product_id],
                                  options=variant.options, price=variant.price, quantity=quantity))
            line_id += 1
            total += variant.price * quantity
        session.add(Payment(payment_id=_digits(rng, 10), order_id=order.order_id,
                            method_id=rng.choice(methods[customer.customer_id]).method_id, amount=round(total, 2),
                            status="refunded" if order.status == "cancelled" else "paid"))
        if order.status in ("processed", "delivered"):
            session.add(Shipment(tracking_id=_digits(rng, 12), order_id=order.order_id, carrier=rng.choice(CARRIERS),
                                 shipped_at=(placed + timedelta(days=1)).strftime("%Y-%m-%d")))


def _customer(fake: Faker, rng: random.Random) -> Customer:
    first, last = fake.first_name(), fake.last_name()
    address = {"street": fake.street_address(), "city": fake.city(), "state": fake.state_abbr(), "zip": fake.zipcode()}
    return Customer(customer_id=_digits(rng, 10), first_name=first, last_name=last,
                    email=f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@example.com", address=address)


def _methods(customer: Customer, rng: random.Random) -> list[PaymentMethod]:
    kinds = rng.sample(METHOD_KINDS, rng.randint(1, 2))
    return [PaymentMethod(method_id=f"{kind}_{_digits(rng, 7)}", customer_id=customer.customer_id, kind=kind)
            for kind in kinds]


def _digits(rng: random.Random, count: int) -> str:
    return str(rng.randint(10 ** (count - 1), 10**count - 1))
