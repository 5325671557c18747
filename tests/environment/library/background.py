"""A seeded shelf of books."""

from faker import Faker
from sqlmodel import Session

from .schema import Book


def generate(session: Session, seed: int) -> None:
    """Put three books on the shelf."""
    fake = Faker()
    fake.seed_instance(seed)
    for _ in range(3):
        session.add(Book(isbn=fake.isbn13(), title=fake.catch_phrase(), copies=fake.random_int(0, 3)))
