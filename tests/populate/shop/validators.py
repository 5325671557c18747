"""The shop's rules for generated rows."""

from sqlmodel import Session

from intellagent.environment import RowRejected, validator

from .schema import Customer, Order, OrderItem, Product


@validator(Customer)
def customer_is_consistent(customer: Customer, session: Session) -> None:
    """A known tier and an e-mail address."""
    if customer.tier not in ("basic", "vip"):
        raise RowRejected(f"tier {customer.tier!r} is not 'basic' or 'vip'")
    if "@" not in customer.email:
        raise RowRejected(f"email {customer.email!r} has no @")


@validator(Order)
def order_is_consistent(order: Order, session: Session) -> None:
    """A known status."""
    if order.status not in ("open", "shipped"):
        raise RowRejected(f"status {order.status!r} is not 'open' or 'shipped'")


@validator(OrderItem)
def item_in_stock(item: OrderItem, session: Session) -> None:
    """No more units than the warehouse holds."""
    product = session.get(Product, item.sku)
    if product is not None and item.quantity > product.stock:
        raise RowRejected(f"quantity {item.quantity} is more than the {product.stock} units of {item.sku} in stock")
