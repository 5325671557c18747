"""The parcel desk's tools; `list_depots` takes no argument but the session."""

from sqlmodel import select

from intellagent.environment import InjectedSession, tool

from .schema import Depot, Item, Parcel


@tool(writes=False)
def list_depots(session: InjectedSession) -> list[dict[str, str]]:
    """List every depot with its city."""
    return [{"code": depot.code, "city": depot.city} for depot in session.exec(select(Depot))]


@tool(writes=False)
def track_parcel(session: InjectedSession, tracking_number: str) -> dict[str, object]:
    """Look a parcel up, with its items.

    Args:
        tracking_number: The parcel's twelve-digit tracking number.
    """
    parcel = session.get(Parcel, tracking_number)
    if parcel is None:
        raise LookupError(f"no parcel {tracking_number}")
    items = session.exec(select(Item).where(Item.tracking_number == tracking_number))
    return {"status": parcel.status, "depot": parcel.depot, "label": parcel.label,
            "items": [{"item_id": item.item_id, "description": item.description, "quantity": item.quantity,
                       "price": item.price} for item in items]}


@tool(writes=True, confirm=True)
def hold_parcel(session: InjectedSession, tracking_number: str) -> str:
    """Hold a parcel in transit at its depot.

    Args:
        tracking_number: The parcel's twelve-digit tracking number.
    """
    parcel = session.get(Parcel, tracking_number)
    if parcel is None:
        raise LookupError(f"no parcel {tracking_number}")
    if parcel.status != "in transit":
        raise ValueError(f"parcel {tracking_number} is {parcel.status}; only a parcel in transit can be held")
    parcel.status = "held"
    return f"parcel {tracking_number} is held at {parcel.depot}"
