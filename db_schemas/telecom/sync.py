"""The one rule that carries a change across the two sides of the carrier's world (`environment.sync`).

A payment the customer makes on the phone is the customer's act, on the customer's side; the carrier records
it on its own side, and marks the bill paid, as soon as it is made (τ²-bench's environment does the same
after every call). Everything else the phone learns from the carrier (its line active or suspended, roaming
allowed, data left, a payment asked for) it reads from the carrier's records when it needs it (phone.py).
"""

from sqlmodel import Session, select

from .schema import Bill, Phone


def sync(session: Session) -> None:
    """Record on the bill a payment the customer has just made on the phone."""
    for phone in session.exec(select(Phone).where(Phone.payment_made.is_not(None))).all():  # type: ignore[union-attr]
        bill = session.get(Bill, phone.payment_made)
        if bill is not None:
            bill.status = "Paid"
        phone.payment_made = None
