"""The desk's tools: look an order up, cancel it, hand over to a human."""

from intellagent.environment import InjectedSession, tool

from .schema import Order


@tool(writes=False)
def get_order(order_id: str, session: InjectedSession) -> dict:
    """Look up an order, with its note.

    Args:
        order_id: The order's id, such as 'A1'.
    """
    order = session.get(Order, order_id)
    if order is None:
        raise ValueError(f"no order {order_id}")
    return order.model_dump()


@tool(writes=True, confirm=True)
def cancel_order(order_id: str, session: InjectedSession) -> str:
    """Cancel an order.

    Args:
        order_id: The order's id.
    """
    order = session.get(Order, order_id)
    if order is None or order.status == "cancelled":
        raise ValueError(f"order {order_id} cannot be cancelled")
    order.status = "cancelled"
    session.add(order)
    return f"order {order_id} cancelled"


@tool(writes=False, ends_dialog=True)
def transfer_to_human(summary: str) -> str:
    """Hand the conversation to a human agent.

    Args:
        summary: What the customer needs.
    """
    return "transferred"
