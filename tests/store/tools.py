"""The store agent's tools: look customers, products and orders up; cancel an order, remove or exchange one of
its items."""

from typing import Any

from sqlmodel import select

from intellagent.environment import InjectedSession, tool

from .schema import Customer, Order, OrderLine, Payment, PaymentMethod, Product, Shipment, Variant


@tool(writes=False)
def find_customer(session: InjectedSession, email: str) -> dict[str, Any] | str:
    """Find a customer by their e-mail address.

    Args:
        email: The address the customer gives, e.g. 'ana.silva12@example.com'.
    """
    customer = session.exec(select(Customer).where(Customer.email == email.strip().lower())).first()
    return "Error: no customer with that e-mail" if customer is None else customer.model_dump()


@tool(writes=False)
def get_customer(session: InjectedSession, customer_id: str) -> dict[str, Any] | str:
    """A customer's profile, payment methods and order ids.

    Args:
        customer_id: Ten digits, e.g. '4820193756'.
    """
    customer = session.get(Customer, customer_id)
    if customer is None:
        return "Error: no such customer"
    methods = session.exec(select(PaymentMethod).where(PaymentMethod.customer_id == customer_id)).all()
    orders = session.exec(select(Order.order_id).where(Order.customer_id == customer_id)).all()
    return {**customer.model_dump(), "payment_methods": [m.model_dump() for m in methods], "orders": list(orders)}


@tool(writes=False)
def get_product(session: InjectedSession, product_id: str) -> dict[str, Any] | str:
    """A product with all its variants.

    Args:
        product_id: Ten digits, e.g. '6086499569'.
    """
    product = session.get(Product, product_id)
    if product is None:
        return "Error: no such product"
    variants = session.exec(select(Variant).where(Variant.product_id == product_id)).all()
    return {**product.model_dump(), "variants": [variant.model_dump() for variant in variants]}


@tool(writes=False)
def get_order(session: InjectedSession, order_id: str) -> dict[str, Any] | str:
    """An order with its lines, payments and shipments.

    Args:
        order_id: '#W' and seven digits, e.g. '#W4817420'.
    """
    order = session.get(Order, order_id)
    if order is None:
        return "Error: no such order"
    parts = {name: [row.model_dump() for row in session.exec(select(table).where(table.order_id == order_id))]
             for name, table in (("lines", OrderLine), ("payments", Payment), ("shipments", Shipment))}
    return {**order.model_dump(), **parts}


@tool(writes=True, confirm=True)
def cancel_order(session: InjectedSession, order_id: str) -> str:
    """Cancel a pending order; its payments are refunded to the methods that paid.

    Args:
        order_id: '#W' and seven digits.
    """
    order = _pending(session, order_id)
    order.status = "cancelled"
    for payment in session.exec(select(Payment).where(Payment.order_id == order_id)):
        payment.status = "refunded"
    return f"order {order_id} cancelled"


@tool(writes=True, confirm=True)
def remove_item(session: InjectedSession, order_id: str, line_id: int) -> str:
    """Take one line out of a pending order.

    Args:
        order_id: '#W' and seven digits.
        line_id: The line's number, from get_order.
    """
    _pending(session, order_id)
    line = session.get(OrderLine, line_id)
    if line is None or line.order_id != order_id:
        raise ValueError(f"order {order_id} has no line {line_id}")
    session.delete(line)
    return f"line {line_id} removed from {order_id}"


@tool(writes=True, confirm=True)
def exchange_item(session: InjectedSession, order_id: str, line_id: int, variant_id: str) -> str:
    """Exchange a delivered line for another available variant of the same product.

    Args:
        order_id: '#W' and seven digits.
        line_id: The line's number, from get_order.
        variant_id: The new variant: ten digits, a variant of the same product.
    """
    order = session.get(Order, order_id)
    line = session.get(OrderLine, line_id)
    variant = session.get(Variant, variant_id)
    if order is None or order.status != "delivered":
        raise ValueError(f"order {order_id} is not a delivered order")
    if line is None or line.order_id != order_id:
        raise ValueError(f"order {order_id} has no line {line_id}")
    if variant is None or variant.product_id != line.product_id or not variant.available:
        raise ValueError(f"{variant_id} is not an available variant of product {line.product_id}")
    line.variant_id, line.options, line.price = variant.variant_id, dict(variant.options), variant.price
    return f"line {line_id} of {order_id} is now variant {variant_id}"


def _pending(session: InjectedSession, order_id: str) -> Order:
    order = session.get(Order, order_id)
    if order is None:
        raise ValueError(f"order {order_id} not found")
    if order.status != "pending":
        raise ValueError(f"order {order_id} is {order.status}, not pending")
    return order
