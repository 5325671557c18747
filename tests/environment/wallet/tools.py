"""The card desk's tools: look a card up and unblock it. None reads or writes the customer's app."""

from typing import Any

from intellagent.environment import InjectedSession, tool

from .schema import Card


@tool(writes=False)
def get_card(session: InjectedSession, card_number: str) -> dict[str, Any]:
    """Look a card up by its number.

    Args:
        card_number: The card's sixteen digits.
    """
    card = session.get(Card, card_number)
    if card is None:
        raise ValueError(f"no card {card_number}")
    return card.model_dump()


@tool(writes=True)
def unblock_card(session: InjectedSession, card_number: str) -> str:
    """Unblock a card blocked after wrong PIN entries.

    Args:
        card_number: The card's sixteen digits.
    """
    card = session.get(Card, card_number)
    if card is None:
        raise ValueError(f"no card {card_number}")
    card.blocked = False
    return "unblocked"
