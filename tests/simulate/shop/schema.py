"""A tiny shop for the simulate tests: orders and their customers."""

from sqlmodel import Field, SQLModel


class Order(SQLModel, table=True):
    """An order a customer placed."""

    __tablename__ = "orders"

    order_id: str = Field(primary_key=True)
    customer: str
    status: str = Field(description="placed, shipped or cancelled")
