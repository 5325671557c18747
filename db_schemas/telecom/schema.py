"""A mobile carrier's world as tables: the company's records, and the customers' phones.

The company's side holds customers, the plans it sells, the lines (each a phone number on a plan)
and the bills. The customer's side holds each line's phone as the customer has it in hand: its
switches, its SIM and where it is. Only the customer can change a phone, so its table is marked as
the user's (`info={"side": "user"}`): the chatbot's tools never read or write it, and the
customer's own tools (user_tools.py) write nothing else, reading only the line the phone is on and
that line's plan.

Shapes the airline lacks, on purpose: ids made of digits only (customer numbers, phone numbers, bill
numbers), a phone number as a primary key that another table's primary key refers to, booleans,
an optional number (an unlimited plan has no data limit), and JSON columns that hold a list of
objects (payment methods, a bill's charges) or one object (a phone's APN settings).
Dates are text: days 'YYYY-MM-DD', billing months 'YYYY-MM'.
"""

from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel

NOW = "2025-06-12T10:00:00"
"""The policy's current time (EST)."""
TODAY = NOW[:10]
CURRENT_PERIOD = NOW[:7]
"""The billing month in progress; its bill is `pending` until it is issued on the 1st of next month."""

LINE_STATUSES = ("active", "suspended")
SUSPENSION_REASONS = ("non_payment", "customer_request", "lost_or_stolen")
BILL_STATUSES = ("pending", "open", "overdue", "paid")
CARD_TYPES = ("credit_card", "debit_card")
SIM_STATES = ("active", "missing", "locked")
NETWORK_MODES = ("5g_auto", "4g_auto", "3g_auto", "2g_only")

DEFAULT_APN = {"name": "kestrel.internet", "mmsc": "http://mms.kestrel.example/mms"}
"""The carrier's APN settings, which a phone gets back when its APN settings are reset."""

USER_SIDE = {"info": {"side": "user"}}
"""The `__table_args__` of a table that belongs to the customer, not to the company."""


class Customer(SQLModel, table=True):
    """An account holder, with the payment cards on file."""

    __tablename__ = "customers"

    customer_id: str = Field(primary_key=True, description="eight digits, e.g. '31750284'")
    full_name: str
    date_of_birth: str = Field(description="'YYYY-MM-DD'")
    email: str
    street: str
    city: str
    state: str = Field(description="two-letter code, e.g. 'OR'")
    zip_code: str = Field(description="five digits as text, e.g. '97205'")
    payment_methods: list[dict[str, Any]] = Field(
        sa_type=JSON,
        description="cards on file: objects with 'type' ('credit_card' or 'debit_card'), 'last_four' (four digits "
        "as text) and 'expires' ('YYYY-MM', the last month the card works)",
    )


class Plan(SQLModel, table=True):
    """A monthly plan the carrier sells."""

    __tablename__ = "plans"

    plan_id: str = Field(primary_key=True, description="e.g. 'everyday_15'")
    name: str = Field(description="e.g. 'Everyday 15 GB'")
    monthly_price: float = Field(description="dollars per month")
    data_limit_gb: float | None = Field(default=None, description="data included per month in GB; empty: unlimited")
    refuel_price_per_gb: float | None = Field(
        default=None, description="dollars per GB of extra data; empty on an unlimited plan, which needs none"
    )
    roaming_price_per_day: float = Field(description="dollars per day of data use abroad; 0 when included")


class Line(SQLModel, table=True):
    """A phone number of a customer's account, on a plan, with this month's data use."""

    __tablename__ = "lines"

    phone_number: str = Field(primary_key=True, description="ten digits, no spaces or signs, e.g. '5035550187'")
    customer_id: str = Field(foreign_key="customers.customer_id", description="the account holder")
    plan_id: str = Field(foreign_key="plans.plan_id")
    status: str = Field(description="'active' or 'suspended'")
    suspension_reason: str | None = Field(
        default=None, description="suspended lines only: 'non_payment', 'customer_request' or 'lost_or_stolen'"
    )
    suspended_on: str | None = Field(default=None, description="suspended lines only: 'YYYY-MM-DD'")
    contract_end: str | None = Field(
        default=None, description="last day of a fixed-term contract, 'YYYY-MM-DD'; empty for month to month"
    )
    data_used_gb: float = Field(description="data used this billing month, in GB")
    data_refueled_gb: float = Field(description="extra data bought this billing month, in GB (at most 5)")
    roaming_enabled: bool = Field(description="whether the network lets the line use data abroad")


class Bill(SQLModel, table=True):
    """A customer's bill for one billing month, itemised."""

    __tablename__ = "bills"

    bill_id: str = Field(primary_key=True, description="nine digits, e.g. '602318457'")
    customer_id: str = Field(foreign_key="customers.customer_id")
    period: str = Field(description="the billing month, 'YYYY-MM'")
    status: str = Field(description="'pending' (this month, not issued yet), 'open', 'overdue' or 'paid'")
    issued_on: str | None = Field(
        default=None, description="'YYYY-MM-DD', the 1st of the next month; empty while pending"
    )
    due_on: str | None = Field(default=None, description="'YYYY-MM-DD', 20 days after issue; empty while pending")
    amount: float = Field(description="dollars: the sum of the charges")
    charges: list[dict[str, Any]] = Field(
        sa_type=JSON, description="objects with 'description' (text) and 'amount' (dollars)"
    )
    paid_on: str | None = Field(default=None, description="paid bills only: 'YYYY-MM-DD'")
    paid_with: str | None = Field(default=None, description="paid bills only: the card's last four digits")


class Phone(SQLModel, table=True):
    """The phone a line's SIM is in, as its owner has it in hand: settings, SIM and whereabouts.

    The customer's side of the world: only the customer's own tools change it. Whether the phone has
    service, and how fast its data is, follows from these columns and the line (see user_tools.py).
    """

    __tablename__ = "phones"
    __table_args__ = USER_SIDE

    phone_number: str = Field(foreign_key="lines.phone_number", primary_key=True, description="the line it is on")
    model: str = Field(description="e.g. 'Pixel 8'")
    abroad: bool = Field(description="whether the phone is outside the carrier's home network (its owner travels)")
    airplane_mode: bool
    sim: str = Field(description="'active', 'missing' (not seated in its slot) or 'locked' (needs its PUK code)")
    registered: bool = Field(
        description="whether the phone is registered on the network; it registers again when it restarts, leaves "
        "airplane mode, has its SIM reseated or changes network mode"
    )
    mobile_data: bool = Field(description="the phone's mobile data switch")
    data_roaming: bool = Field(description="the phone's data roaming switch")
    network_mode: str = Field(description="'5g_auto', '4g_auto', '3g_auto' or '2g_only'")
    apn: dict[str, Any] = Field(sa_type=JSON, description="APN settings: an object with 'name' and 'mmsc'")
