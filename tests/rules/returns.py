"""The store's tools, and one more: return a delivered item, refunded to a payment method."""

from sqlmodel import select

from intellagent.environment import InjectedSession, tool
from tests.store.schema import Order, OrderLine, Payment
from tests.store.tools import (  # noqa: F401  (the domain's tools are this module's members)
    cancel_order,
    exchange_item,
    find_customer,
    get_customer,
    get_order,
    get_product,
    remove_item,
)


@tool(writes=True, confirm=True)
def return_item(session: InjectedSession, order_id: str, line_id: int, method_id: str) -> str:
    """Return one line of a delivered order; its price is refunded to a payment method.

    Args:
        order_id: '#W' and seven digits.
        line_id: The line's number, from get_order.
        method_id: The payment method refunded, e.g. 'paypal_4829301'.
    """
    order = session.get(Order, order_id)
    line = session.get(OrderLine, line_id)
    if order is None or order.status != "delivered":
        raise ValueError(f"order {order_id} is not a delivered order")
    if line is None or line.order_id != order_id:
        raise ValueError(f"order {order_id} has no line {line_id}")
    number = len(session.exec(select(Payment)).all()) + 1
    session.add(Payment(payment_id=f"{9000000000 + number}", order_id=order_id, method_id=method_id,
                        amount=line.price * line.quantity, status="refunded"))
    return f"line {line_id} of {order_id} returned; {line.price * line.quantity:.2f} refunded to {method_id}"
