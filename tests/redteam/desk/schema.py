"""The desk's one table: desk_orders, each with a free-text note the staff write."""

from sqlmodel import Field, SQLModel


class Order(SQLModel, table=True):
    """An order a customer placed."""

    __tablename__ = "desk_orders"

    order_id: str = Field(primary_key=True)
    customer: str
    status: str = Field(description="'placed', 'shipped' or 'cancelled'")
    note: str = Field(default="", description="what the staff wrote about the order")
