"""A parcel desk: ids of digits only (twelve-digit tracking numbers, ten-digit item numbers), depot codes, and a
printed label that identifies a parcel though the schema does not declare it unique."""

from sqlmodel import Field, SQLModel


class Depot(SQLModel, table=True):
    """A depot parcels wait in."""

    __tablename__ = "depots"

    code: str = Field(primary_key=True, description="e.g. 'LON3'")
    city: str


class Customer(SQLModel, table=True):
    """A customer who sends or receives parcels."""

    __tablename__ = "parcel_customers"

    customer_id: str = Field(primary_key=True, description="e.g. 'cus_48213'")
    name: str
    phone: str = Field(description="e.g. '+44 20 7946 0018'")


class Parcel(SQLModel, table=True):
    """A parcel on its way."""

    __tablename__ = "parcels"

    tracking_number: str = Field(primary_key=True, description="twelve digits, e.g. '420183659201'")
    customer_id: str = Field(foreign_key="parcel_customers.customer_id")
    depot: str = Field(foreign_key="depots.code")
    label: str = Field(description="the printed label, e.g. 'LBL/2024/55812'")
    status: str = Field(description="'in transit', 'held' or 'delivered'")
    weight_grams: int


class Item(SQLModel, table=True):
    """An item packed in a parcel."""

    __tablename__ = "parcel_items"

    item_id: int = Field(primary_key=True, description="ten digits, e.g. 4821093375")
    tracking_number: str = Field(foreign_key="parcels.tracking_number")
    description: str
    quantity: int
    price: float = Field(description="dollars")
