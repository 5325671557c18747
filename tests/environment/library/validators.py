"""Rules for generated library rows."""

from sqlmodel import Session

from intellagent.environment import RowRejected, validator

from .schema import Book


@validator(Book)
def copies_not_negative(book: Book, session: Session) -> None:
    """A shelf cannot hold fewer than no copies."""
    if book.copies < 0:
        raise RowRejected(f"copies is {book.copies}; use 0 or more")


@validator(Book)
def title_trimmed(book: Book, session: Session) -> None:
    """Stray spaces around a title are repaired, not rejected."""
    book.title = book.title.strip()
