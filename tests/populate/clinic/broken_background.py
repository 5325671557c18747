"""The clinic's background world with one doctor whose specialty the clinic does not have."""

from sqlmodel import Session

from .background import generate as generate_clinic
from .schema import Doctor


def generate(session: Session, seed: int) -> None:
    """The clinic, plus a row that breaks `doctor_is_consistent`."""
    generate_clinic(session, seed)
    session.add(Doctor(doctor_id="DR-999", name="Dr Who", specialty="time travel"))
