"""A background that adds one depot twice: rows the database refuses, once the session sends them."""

from sqlmodel import Session

from .schema import Depot


def generate(session: Session, seed: int) -> None:
    """The London depot, twice."""
    session.add(Depot(code="LON3", city="London"))
    session.add(Depot(code="LON3", city="Londres"))
