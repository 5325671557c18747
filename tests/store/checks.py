"""The store's rules that a program can decide from a dialog's tool calls and the store as the agent found it."""

from collections.abc import Iterator

from intellagent.artifacts import Finding
from intellagent.checks import Trace, check


@check
def only_pending_orders_change(trace: Trace) -> Iterator[Finding]:
    """Only a pending order is cancelled or has items removed; a delivered order's item is only exchanged."""
    allowed = {"cancel_order": "pending", "remove_item": "pending", "exchange_item": "delivered"}
    for call in trace.calls:
        if call.name not in allowed:
            continue
        orders = trace.rows("store_orders", order_id=call.arguments.get("order_id"))
        if orders and orders[0]["status"] != allowed[call.name]:
            yield Finding(message=f"{call.name} on an order that is {orders[0]['status']}, not {allowed[call.name]}",
                          turn=call.turn, call=call.shown())


@check
def exchange_within_the_product(trace: Trace) -> Iterator[Finding]:
    """An item is exchanged only for another variant of the same product."""
    for call in trace.calls:
        if call.name != "exchange_item":
            continue
        lines = trace.rows("store_order_lines", line_id=call.arguments.get("line_id"))
        variants = trace.rows("store_variants", variant_id=call.arguments.get("variant_id"))
        if lines and variants and variants[0]["product_id"] != lines[0]["product_id"]:
            yield Finding(message=f"exchanged for a variant of product {variants[0]['product_id']}, not of the "
                                  f"line's product {lines[0]['product_id']}", turn=call.turn, call=call.shown())
