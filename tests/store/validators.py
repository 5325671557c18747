"""The store's rules: each row's own, and one over an order and its related rows."""

import re
from datetime import datetime

from sqlmodel import Session, select

from intellagent.environment import RowRejected, validator

from .schema import (
    ADDRESS_KEYS,
    CARRIERS,
    CATEGORIES,
    METHOD_KINDS,
    NOW,
    ORDER_STATUSES,
    Customer,
    Order,
    OrderLine,
    Payment,
    PaymentMethod,
    Product,
    Shipment,
    Variant,
)


@validator(Customer)
def customer_is_consistent(customer: Customer, session: Session) -> None:
    """Ten digits, an e-mail, a whole address."""
    _digits("customer_id", customer.customer_id, 10)
    if "@" not in customer.email:
        raise RowRejected(f"email {customer.email!r} has no @")
    _address(customer.address)


@validator(PaymentMethod)
def payment_method_is_consistent(method: PaymentMethod, session: Session) -> None:
    """A known kind, and an id made of the kind and seven digits."""
    _one_of("kind", method.kind, METHOD_KINDS)
    if not re.fullmatch(rf"{method.kind}_\d{{7}}", method.method_id):
        raise RowRejected(f"method_id {method.method_id!r} must be '{method.kind}_' and seven digits")


@validator(Product)
def product_is_consistent(product: Product, session: Session) -> None:
    """Ten digits, a known category, a few words as tags."""
    _digits("product_id", product.product_id, 10)
    _one_of("category", product.category, CATEGORIES)
    if not product.tags or not all(isinstance(tag, str) and tag for tag in product.tags):
        raise RowRejected(f"tags {product.tags!r} must be a list of one or more words")


@validator(Variant)
def variant_is_consistent(variant: Variant, session: Session) -> None:
    """Ten digits, options named by words, a price above zero."""
    _digits("variant_id", variant.variant_id, 10)
    if not variant.options or not all(isinstance(value, str) and value for value in variant.options.values()):
        raise RowRejected(f"options {variant.options!r} must name each option's value, e.g. {{'color': 'blue'}}")
    if variant.price <= 0:
        raise RowRejected(f"price {variant.price} must be above zero")


@validator(Order)
def order_is_consistent(order: Order, session: Session) -> None:
    """'#W' and seven digits, a known status, placed before now, a whole address."""
    if not re.fullmatch(r"#W\d{7}", order.order_id):
        raise RowRejected(f"order_id {order.order_id!r} must be '#W' and seven digits")
    _one_of("status", order.status, ORDER_STATUSES)
    try:
        placed = datetime.strptime(order.placed_at, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        raise RowRejected(f"placed_at {order.placed_at!r} is not 'YYYY-MM-DDTHH:MM:SS'") from None
    if placed > datetime.fromisoformat(NOW):
        raise RowRejected(f"placed_at {order.placed_at} is after now ({NOW})")
    _address(order.address)


@validator(OrderLine)
def line_matches_its_variant(line: OrderLine, session: Session) -> None:
    """The variant is one of the line's product, and the line repeats its options and price."""
    variant = session.get(Variant, line.variant_id)
    if variant is not None and variant.product_id != line.product_id:
        raise RowRejected(f"variant {line.variant_id} is a variant of product {variant.product_id}, "
                          f"not of product {line.product_id}")
    if variant is not None and (line.options != variant.options or line.price != variant.price):
        raise RowRejected(f"options and price must be those of variant {line.variant_id}: "
                          f"{variant.options!r} at {variant.price}")
    if not 1 <= line.quantity <= 10:
        raise RowRejected(f"quantity {line.quantity} is not between 1 and 10")


@validator(Payment)
def payment_uses_the_customers_method(payment: Payment, session: Session) -> None:
    """The method is the order's customer's, the amount above zero, the status known."""
    order, method = session.get(Order, payment.order_id), session.get(PaymentMethod, payment.method_id)
    if order is not None and method is not None and method.customer_id != order.customer_id:
        raise RowRejected(f"method {payment.method_id} belongs to customer {method.customer_id}, not to the "
                          f"order's customer {order.customer_id}")
    if payment.amount <= 0:
        raise RowRejected(f"amount {payment.amount} must be above zero")
    _one_of("status", payment.status, ("paid", "refunded"))


@validator(Shipment)
def shipment_is_consistent(shipment: Shipment, session: Session) -> None:
    """Twelve digits, a known carrier, an order that left the warehouse."""
    _digits("tracking_id", shipment.tracking_id, 12)
    _one_of("carrier", shipment.carrier, CARRIERS)
    order = session.get(Order, shipment.order_id)
    if order is not None and order.status not in ("processed", "delivered"):
        raise RowRejected(f"order {order.order_id} is {order.status}; only a processed or delivered order ships")


@validator(Order, related=(OrderLine, Payment))
def order_has_lines_and_a_payment(order: Order, session: Session) -> None:
    """An order holds at least one line and at least one payment."""
    for table, what in ((OrderLine, "line"), (Payment, "payment")):
        if session.exec(select(table).where(table.order_id == order.order_id)).first() is None:
            raise RowRejected(f"order {order.order_id} has no {what}; an order holds at least one")


def _digits(key: str, value: str, count: int) -> None:
    if not re.fullmatch(rf"\d{{{count}}}", value):
        raise RowRejected(f"{key} {value!r} must be {count} digits")


def _one_of(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise RowRejected(f"{key} {value!r} is not one of {', '.join(allowed)}")


def _address(address: dict[str, str]) -> None:
    missing = [key for key in ADDRESS_KEYS if not address.get(key)]
    if missing:
        raise RowRejected(f"address {address!r} lacks {', '.join(missing)}")
    if not re.fullmatch(r"\d{5}", address["zip"]):
        raise RowRejected(f"address zip {address['zip']!r} must be five digits")
