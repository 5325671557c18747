"""The shop assistant's one tool."""

from .schema import Order
from intellagent.environment import InjectedSession, tool


@tool(writes=False)
def find_order(session: InjectedSession, order_id: str) -> str:
    """Look an order up.

    Args:
        order_id: The order's id.
    """
    order = session.get(Order, order_id)
    return "no such order" if order is None else f"{order.order_id}: {order.status}"
