"""A second, tiny domain: books on a shelf and the loans of them."""

from sqlmodel import Field, SQLModel

from intellagent.environment import ExactNumber, Number


class Book(SQLModel, table=True):
    """A title the library holds."""

    __tablename__ = "books"

    isbn: str = Field(primary_key=True)
    title: str
    copies: int = Field(description="copies on the shelf")


class Loan(SQLModel, table=True):
    """A copy lent to a member."""

    __tablename__ = "loans"

    isbn: str = Field(foreign_key="books.isbn", primary_key=True)
    member: str = Field(primary_key=True)
    due: str = Field(description="'YYYY-MM-DD'")
    fine: Number = Field(default=0, sa_type=ExactNumber, description="dollars owed, int or float as charged")
