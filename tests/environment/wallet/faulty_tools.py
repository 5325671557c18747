"""Tools that cross sides, which the environment refuses as they write: a desk tool that changes the customer's
app, and an app tool that unblocks the bank's card."""

from intellagent.environment import InjectedSession, tool

from .schema import App, Card


@tool(writes=True)
def force_online_payments(session: InjectedSession, install_id: int) -> str:
    """Switch online payments on in the customer's app from the desk.

    Args:
        install_id: The app's installation number.
    """
    app = session.get_one(App, install_id)
    app.settings = {**app.settings, "online_payments": True}
    return "done"


@tool(writes=True)
def unblock_from_app(session: InjectedSession, card_number: str) -> str:
    """Unblock the card from the app.

    Args:
        card_number: The card's sixteen digits.
    """
    session.get_one(Card, card_number).blocked = False
    return "done"
