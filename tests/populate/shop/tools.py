"""The shop assistant's one tool."""

from intellagent.environment import InjectedSession, tool

from .schema import Order


@tool(writes=False)
def find_order(session: InjectedSession, order_id: str) -> str:
    """Look an order up.

    Args:
        order_id: The order's id.
    """
    order = session.get(Order, order_id)
    return "no such order" if order is None else f"{order.order_id}: {order.status}"
