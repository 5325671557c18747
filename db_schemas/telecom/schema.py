"""A mobile carrier's world as tables, shaped as τ²-bench's telecom domain: the company's records, and the
customer's phone.

The company's side holds the plans it sells, the devices it knows, its customers, their lines (a phone
number on a plan, in a device) and their bills. The customer's side is one phone, the one in the customer's
hand, with its settings and what it sees of the network where it is (`info={"side": "user"}`): only the
customer's own tools (user_tools.py) change it. Whether the phone has service, how fast its data is and
whether it can send a picture message follow from its state and its line (phone.py). A payment the customer
makes on the phone reaches the company's bill through the world's one rule across the two sides (sync.py).

Shapes the airline lacks, on purpose: JSON columns holding one object (an address, APN settings, a VPN's
details), a list of objects (payment methods, a bill's line items) or a mapping (apps by name, signal per
network technology); an optional foreign key (a line with no device); and a table of one row.
Dates are text: days 'YYYY-MM-DD', moments 'YYYY-MM-DDTHH:MM:SS'.
"""

from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel

NOW = "2025-02-25T12:08:00"
"""The policy's current time (EST), τ²-bench's."""
TODAY = NOW[:10]

LINE_STATUSES = ("Active", "Suspended", "Pending Activation", "Closed")
ACCOUNT_STATUSES = ("Active", "Suspended", "Pending Verification", "Closed")
BILL_STATUSES = ("Draft", "Issued", "Awaiting Payment", "Paid", "Overdue", "Disputed")
DEVICE_TYPES = ("phone", "router", "tablet", "watch", "other")
PAYMENT_TYPES = ("Credit Card", "Debit Card", "PayPal")

SIM_STATUSES = ("active", "missing", "locked_pin", "locked_puk")
TECHNOLOGIES = ("none", "2G", "3G", "4G", "5G")
NETWORK_MODES = ("4g_5g_preferred", "4g_only", "3g_only", "2g_only")
SIGNALS = ("none", "poor", "fair", "good", "excellent")
CONNECTION_STATUSES = ("connected", "searching", "no_service", "emergency_only")
PERFORMANCE_LEVELS = ("unknown", "poor", "fair", "good", "excellent")
APN_NAMES = ("internet", "broken")
PERMISSIONS = ("sms", "storage", "phone", "network")

DEFAULT_APN: dict[str, Any] = {"apn_name": "internet", "reset_at_reboot": False, "mms_apn": "mms",
                               "mmsc_url": "http://mms.carrier.com/mms/wapenc", "mms_proxy": None, "mms_port": None}
"""The carrier's APN settings, which a phone gets back when its reset ones take effect at a reboot."""
DEFAULT_APPS: dict[str, Any] = {
    "messaging": {"app_name": "messaging", "permissions": {"sms": True, "storage": True, "phone": True,
                                                           "network": False}},
    "browser": {"app_name": "browser", "permissions": {"sms": False, "storage": True, "phone": False,
                                                       "network": True}},
}
HOME_SIGNAL: dict[str, str] = {"2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent"}
"""The signal each network technology has where the customer is."""

USER_SIDE = {"info": {"side": "user"}}
"""The `__table_args__` of a table that belongs to the customer, not to the company."""


class Plan(SQLModel, table=True):
    """A monthly plan the carrier sells."""

    __tablename__ = "plans"

    plan_id: str = Field(primary_key=True, description="'P' and four digits, e.g. 'P1001'")
    name: str = Field(description="e.g. 'Basic Plan'")
    data_limit_gb: float = Field(description="data included per month, in GB")
    price_per_month: float = Field(description="dollars per month")
    data_refueling_price_per_gb: float = Field(description="dollars per GB of data added in a month")


class Device(SQLModel, table=True):
    """A device the carrier knows of."""

    __tablename__ = "devices"

    device_id: str = Field(primary_key=True, description="'D' and four digits, e.g. 'D1001'")
    device_type: str = Field(description="'phone', 'router', 'tablet', 'watch' or 'other'")
    model: str = Field(description="e.g. 'Pixel 7'")
    imei: str | None = Field(default=None, description="fifteen digits")
    is_esim_capable: bool
    activated: bool
    activation_date: str | None = Field(default=None, description="'YYYY-MM-DDTHH:MM:SS'")
    last_esim_transfer_date: str | None = Field(default=None, description="'YYYY-MM-DDTHH:MM:SS'")


class Customer(SQLModel, table=True):
    """An account holder."""

    __tablename__ = "customers"

    customer_id: str = Field(primary_key=True, description="'C' and four digits, e.g. 'C1001'")
    full_name: str
    date_of_birth: str = Field(description="'YYYY-MM-DD'")
    email: str
    phone_number: str = Field(description="contact number, 'NNN-NNN-NNNN'")
    address: dict[str, Any] = Field(sa_type=JSON, description="an object with 'street', 'city', 'state' (two "
                                    "letters) and 'zip_code'")
    account_status: str = Field(description="'Active', 'Suspended', 'Pending Verification' or 'Closed'")
    created_at: str = Field(description="'YYYY-MM-DDTHH:MM:SS'")
    payment_methods: list[dict[str, Any]] = Field(
        sa_type=JSON, description="objects with 'method_type' ('Credit Card', 'Debit Card' or 'PayPal'), "
        "'account_number_last_4' (four digits as text) and 'expiration_date' ('MM/YYYY')")
    last_extension_date: str | None = Field(default=None, description="last payment extension, 'YYYY-MM-DD'")
    goodwill_credit_used_this_year: float = Field(default=0.0, description="dollars")


class Line(SQLModel, table=True):
    """A phone number of a customer's account, on a plan, with this month's data use."""

    __tablename__ = "lines"

    line_id: str = Field(primary_key=True, description="'L' and four digits, e.g. 'L1001'")
    customer_id: str = Field(foreign_key="customers.customer_id", description="the account holder")
    phone_number: str = Field(unique=True, description="'NNN-NNN-NNNN'")
    status: str = Field(description="'Active', 'Suspended', 'Pending Activation' or 'Closed'")
    plan_id: str = Field(foreign_key="plans.plan_id")
    device_id: str | None = Field(default=None, foreign_key="devices.device_id")
    data_used_gb: float = Field(default=0.0, description="data used this billing month, in GB")
    data_refueling_gb: float = Field(default=0.0, description="data added this billing month, in GB")
    roaming_enabled: bool = Field(default=False, description="whether the network lets the line use data abroad")
    contract_end_date: str | None = Field(default=None, description="'YYYY-MM-DD'")
    last_plan_change_date: str | None = Field(default=None, description="'YYYY-MM-DD'")
    last_sim_replacement_date: str | None = Field(default=None, description="'YYYY-MM-DD'")
    suspension_start_date: str | None = Field(default=None, description="suspended lines only: 'YYYY-MM-DD'")


class Bill(SQLModel, table=True):
    """A customer's bill for one billing period, itemised."""

    __tablename__ = "bills"

    bill_id: str = Field(primary_key=True, description="'B' and digits, e.g. 'B1001'")
    customer_id: str = Field(foreign_key="customers.customer_id")
    period_start: str = Field(description="'YYYY-MM-DD'")
    period_end: str = Field(description="'YYYY-MM-DD'")
    issue_date: str = Field(description="'YYYY-MM-DD'")
    total_due: float = Field(description="dollars: the sum of the line items")
    due_date: str = Field(description="'YYYY-MM-DD'")
    line_items: list[dict[str, Any]] = Field(
        sa_type=JSON, description="objects with 'description', 'amount' (dollars, negative for a credit), 'date' "
        "('YYYY-MM-DD') and 'item_type' (e.g. 'Plan Charge', 'Overage', 'Fee', 'Charge', 'Credit')")
    status: str = Field(description="'Draft', 'Issued', 'Awaiting Payment', 'Paid', 'Overdue' or 'Disputed'")


class Phone(SQLModel, table=True):
    """The customer's own phone, as its owner has it in hand, and what it sees of the network where it is.

    The customer's side of the world, one row: only the customer's own tools change it. What the network
    lets it do also depends on its line (status, roaming, data left), which the phone reads from the company's
    records as the network would (phone.py).
    """

    __tablename__ = "phones"
    __table_args__ = USER_SIDE

    id: int = Field(default=1, primary_key=True, description="always 1: the customer has one phone, in hand")
    owner: str | None = Field(default=None, description="the customer's name")
    phone_number: str | None = Field(default=None, description="the phone's number, 'NNN-NNN-NNNN'")
    is_abroad: bool = Field(default=False, description="whether the customer is outside the carrier's home network")
    signal_strength: dict[str, str] = Field(
        sa_type=JSON, default_factory=lambda: dict(HOME_SIGNAL),
        description="the signal each technology ('2G', '3G', '4G', '5G') has where the customer is: 'none', 'poor', "
        "'fair', 'good' or 'excellent'")
    sim_card_status: str = Field(default="active", description="'active', 'locked_pin' or 'locked_puk'")
    sim_card_missing: bool = Field(default=False, description="whether the SIM card is out of its slot")
    airplane_mode: bool = False
    network_signal_strength: str = Field(default="good", description="the signal the phone has now")
    network_technology_connected: str = Field(default="5G", description="'none', '2G', '3G', '4G' or '5G'")
    network_connection_status: str = Field(default="connected", description="'connected', 'searching', "
                                           "'no_service' or 'emergency_only'")
    battery_level: int = Field(default=80, description="percent")
    data_enabled: bool = Field(default=True, description="the mobile data switch")
    roaming_enabled: bool = Field(default=False, description="the phone's data roaming switch")
    network_mode_preference: str = Field(default="4g_5g_preferred", description="'4g_5g_preferred', '4g_only', "
                                         "'3g_only' or '2g_only'")
    apn_settings: dict[str, Any] = Field(
        sa_type=JSON, default_factory=lambda: dict(DEFAULT_APN),
        description="the active APN settings: 'apn_name' ('internet' or 'broken'), 'reset_at_reboot', 'mms_apn', "
        "'mmsc_url' (empty: picture messages cannot be sent), 'mms_proxy', 'mms_port'")
    wifi_enabled: bool = False
    wifi_connected: bool = False
    wifi_ssid: str | None = None
    wifi_signal_strength: str = Field(default="none", description="'none', 'poor', 'fair', 'good' or 'excellent'")
    wifi_calling_enabled: bool = False
    wifi_calling_mms_over_wifi: bool = Field(default=False, description="whether picture messages go over Wi-Fi "
                                             "calling, which the carrier does not support")
    data_saver_mode: bool = False
    vpn_enabled_setting: bool = False
    vpn_connected: bool = False
    vpn_details: dict[str, Any] | None = Field(
        default=None, sa_type=JSON,
        description="while connected: 'server_address', 'protocol' and 'server_performance' ('unknown', 'poor', "
        "'fair', 'good' or 'excellent')")
    app_statuses: dict[str, Any] = Field(
        sa_type=JSON, default_factory=lambda: {name: dict(app) for name, app in DEFAULT_APPS.items()},
        description="apps by name: objects with 'app_name' and 'permissions' ('sms', 'storage', 'phone', 'network', "
        "each true or false)")
    payment_made: str | None = Field(default=None, description="the bill the customer just paid on the phone, until "
                                     "the carrier records the payment")
