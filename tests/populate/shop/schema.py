"""A tiny shop: customers, products, orders and their items (table names prefixed, to share one metadata)."""

from sqlmodel import Field, SQLModel


class Customer(SQLModel, table=True):
    """A customer's account."""

    __tablename__ = "shop_customers"

    customer_id: str = Field(primary_key=True, description="first_last_NN, e.g. 'ada_byron_12'")
    first_name: str
    last_name: str
    email: str
    tier: str = Field(description="'basic' or 'vip'")
    note: str | None = Field(default=None, description="set by tools only")


class Product(SQLModel, table=True):
    """A product on sale."""

    __tablename__ = "shop_products"

    sku: str = Field(primary_key=True, description="e.g. 'SKU-1001'")
    name: str
    price: int = Field(description="dollars")
    stock: int = Field(description="units in the warehouse")


class Order(SQLModel, table=True):
    """An order placed by a customer."""

    __tablename__ = "shop_orders"

    order_id: str = Field(primary_key=True, description="e.g. 'ORD-4821'")
    customer_id: str = Field(foreign_key="shop_customers.customer_id")
    placed_at: str = Field(description="'YYYY-MM-DDTHH:MM:SS'")
    status: str = Field(description="'open' or 'shipped'")


class OrderItem(SQLModel, table=True):
    """A line of an order."""

    __tablename__ = "shop_order_items"

    order_id: str = Field(foreign_key="shop_orders.order_id", primary_key=True)
    position: int = Field(primary_key=True, description="order of the line, from 0")
    sku: str = Field(foreign_key="shop_products.sku")
    quantity: int
