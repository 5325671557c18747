"""A card desk's world: the bank's cards, and the customer's banking app (the user's side).

Shapes the telecom example lacks: several rows on the user's side, each keyed by a number of its own (an
installation id, digits only) that the user's tools take, and a company row that the user's row must agree
with by a foreign key (the app's card is one of the bank's cards).
"""

from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel


class Card(SQLModel, table=True):
    """A payment card the bank issued."""

    __tablename__ = "cards"

    card_number: str = Field(primary_key=True, description="sixteen digits")
    holder: str
    date_of_birth: str = Field(description="'YYYY-MM-DD'")
    blocked: bool = Field(description="blocked after three wrong PIN entries")


class App(SQLModel, table=True):
    """The banking app on the customer's phone, as the customer has it: only the customer changes it."""

    __tablename__ = "apps"
    __table_args__ = {"info": {"side": "user"}}

    install_id: int = Field(primary_key=True, description="the app's installation number")
    card_number: str = Field(foreign_key="cards.card_number")
    settings: dict[str, Any] = Field(sa_type=JSON, description="switches: online_payments, contactless")
