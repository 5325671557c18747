"""The library desk's two tools."""

from intellagent.environment import InjectedSession, tool

from .schema import Book, Loan


@tool(writes=False)
def find_book(session: InjectedSession, isbn: str) -> str | dict[str, object]:
    """Look a book up.

    Args:
        isbn: The book's ISBN.
    """
    book = session.get(Book, isbn)
    return "no such book" if book is None else {"title": book.title, "copies": book.copies}


@tool(writes=True)
def lend_book(session: InjectedSession, isbn: str, member: str) -> str:
    """Lend a copy of a book to a member.

    Args:
        isbn: The book's ISBN.
        member: The member's name.
    """
    book = session.get(Book, isbn)
    if book is None:
        raise LookupError(f"no book {isbn}")
    book.copies -= 1
    # Checked after the copy is taken, so that a failure must be rolled back by the environment.
    if not member.strip():
        raise ValueError("member must not be blank")
    session.add(Loan(isbn=isbn, member=member, due="2024-06-01"))
    return f"lent {book.title} to {member}"
