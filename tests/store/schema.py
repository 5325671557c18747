"""The store's tables: customers and their payment methods, products and their variants, orders with
their lines, payments and shipments.

Ids are written as the store's systems write them: ten digits for customers, products, variants and
payments, '#W' and seven digits for orders, twelve digits for tracking numbers, the kind and seven
digits for payment methods, a running number for order lines. A variant's options, an address and a
product's tags are JSON. An order line repeats what was bought as it was then (its product's name, its
variant's options and price), and an order ships to its customer's address unless told otherwise.
"""

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel

from intellagent.environment import generation

NOW = "2024-05-15T12:00:00"
"""The policy's present moment: every order was placed before it."""

ORDER_STATUSES = ("pending", "processed", "delivered", "cancelled")
METHOD_KINDS = ("credit_card", "paypal", "gift_card")
CATEGORIES = ("shoes", "jackets", "bags", "lamps", "headphones")
CARRIERS = ("ups", "fedex", "usps")
ADDRESS_KEYS = ("street", "city", "state", "zip")


class Customer(SQLModel, table=True):
    """A customer's account."""

    __tablename__ = "store_customers"

    customer_id: str = Field(primary_key=True, description="ten digits, e.g. '4820193756'")
    first_name: str
    last_name: str
    email: str
    address: dict[str, str] = Field(sa_type=JSON, description="street, city, state (two letters) and zip")


class PaymentMethod(SQLModel, table=True):
    """A way a customer pays, saved on their account."""

    __tablename__ = "store_payment_methods"

    method_id: str = Field(primary_key=True, description="the kind and seven digits, e.g. 'paypal_4829301'")
    customer_id: str = Field(foreign_key="store_customers.customer_id")
    kind: str = Field(description="'credit_card', 'paypal' or 'gift_card'")


class Product(SQLModel, table=True):
    """A product of the catalogue; what is bought is one of its variants."""

    __tablename__ = "store_products"

    product_id: str = Field(primary_key=True, description="ten digits")
    name: str = Field(description="e.g. 'Trail Running Shoe'")
    category: str
    tags: list[str] = Field(sa_type=JSON, description="search words, e.g. ['outdoor', 'waterproof']")


class Variant(SQLModel, table=True):
    """One buyable version of a product: its options, price and availability."""

    __tablename__ = "store_variants"

    variant_id: str = Field(primary_key=True, description="ten digits")
    product_id: str = Field(foreign_key="store_products.product_id")
    options: dict[str, str] = Field(sa_type=JSON, description="option → value, e.g. {'color': 'blue', 'size': 'M'}")
    price: float = Field(description="dollars")
    available: bool


class Order(SQLModel, table=True):
    """An order a customer placed."""

    __tablename__ = "store_orders"

    order_id: str = Field(primary_key=True, description="'#W' and seven digits, e.g. '#W4817420'")
    customer_id: str = Field(foreign_key="store_customers.customer_id")
    placed_at: str = Field(description="'YYYY-MM-DDTHH:MM:SS'")
    status: str = Field(description="'pending', 'processed', 'delivered' or 'cancelled'")
    address: dict[str, str] = Field(sa_type=JSON, schema_extra=generation(inherit=True),
                                    description="where it ships; the customer's address unless they gave another")


class OrderLine(SQLModel, table=True):
    """One variant bought in an order, as it was when bought."""

    __tablename__ = "store_order_lines"

    line_id: int = Field(primary_key=True)
    order_id: str = Field(foreign_key="store_orders.order_id")
    product_id: str = Field(foreign_key="store_products.product_id")
    variant_id: str = Field(foreign_key="store_variants.variant_id", description="a variant of the line's product")
    name: str = Field(schema_extra=generation(inherit=True), description="the product's name")
    options: dict[str, str] = Field(sa_type=JSON, schema_extra=generation(inherit=True),
                                    description="the variant's options")
    price: float = Field(schema_extra=generation(inherit=True), description="the variant's price, in dollars")
    quantity: int


class Payment(SQLModel, table=True):
    """Money taken for an order, or given back, with one of its customer's payment methods."""

    __tablename__ = "store_payments"

    payment_id: str = Field(primary_key=True, description="ten digits")
    order_id: str = Field(foreign_key="store_orders.order_id")
    method_id: str = Field(foreign_key="store_payment_methods.method_id",
                           description="a payment method of the order's customer")
    amount: float = Field(description="dollars")
    status: str = Field(description="'paid' or 'refunded'")


class Shipment(SQLModel, table=True):
    """A parcel of a processed or delivered order."""

    __tablename__ = "store_shipments"

    tracking_id: str = Field(primary_key=True, description="twelve digits")
    order_id: str = Field(foreign_key="store_orders.order_id")
    carrier: str = Field(description="'ups', 'fedex' or 'usps'")
    shipped_at: str = Field(description="'YYYY-MM-DD'")

