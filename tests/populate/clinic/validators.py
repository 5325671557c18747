"""The clinic's rules for a row."""

import re
from datetime import date, datetime

from sqlmodel import Session

from intellagent.environment import RowRejected, validator

from .schema import APPOINTMENT_STATUSES, PLANS, REFERRAL_STATUSES, SPECIALTIES, Appointment, Doctor, Patient, Referral


@validator(Doctor)
def doctor_is_consistent(doctor: Doctor, session: Session) -> None:
    """An id 'DR-' and three digits, and a known specialty."""
    if not re.fullmatch(r"DR-\d{3}", doctor.doctor_id):
        raise RowRejected(f"doctor_id {doctor.doctor_id!r} must be 'DR-' and three digits")
    _one_of("specialty", doctor.specialty, SPECIALTIES)


@validator(Patient)
def patient_is_consistent(patient: Patient, session: Session) -> None:
    """An id 'PT' and five digits, an e-mail, a birth date in the past, a known plan."""
    if not re.fullmatch(r"PT\d{5}", patient.patient_id):
        raise RowRejected(f"patient_id {patient.patient_id!r} must be 'PT' and five digits")
    if "@" not in patient.email:
        raise RowRejected(f"email {patient.email!r} has no @")
    try:
        born = date.fromisoformat(patient.dob)
    except ValueError:
        raise RowRejected(f"dob {patient.dob!r} is not 'YYYY-MM-DD'") from None
    if born.year < 1900 or born > date(2024, 6, 3):
        raise RowRejected(f"dob {patient.dob} is not a living patient's birth date")
    _one_of("plan", patient.plan, PLANS)


@validator(Referral)
def referral_is_consistent(referral: Referral, session: Session) -> None:
    """Written by a general practitioner, to another specialty, at a minute, with a known status."""
    if not re.fullmatch(r"RF-\d{4}-\d{4}", referral.referral_id):
        raise RowRejected(f"referral_id {referral.referral_id!r} must be 'RF-', the year, '-' and four digits")
    writer = session.get(Doctor, referral.doctor_id)
    if writer is not None and writer.specialty != "general_practice":
        raise RowRejected(f"{referral.doctor_id} is a {writer.specialty} doctor; only a general practitioner refers")
    _one_of("specialty", referral.specialty, SPECIALTIES[1:])
    _minute("issued_at", referral.issued_at)
    _one_of("status", referral.status, REFERRAL_STATUSES)


@validator(Appointment)
def appointment_is_consistent(appointment: Appointment, session: Session) -> None:
    """On the quarter hour in opening hours, 15 to 60 minutes, a known status, the patient's own referral."""
    if not re.fullmatch(r"AP-\d{6}", appointment.appointment_id):
        raise RowRejected(f"appointment_id {appointment.appointment_id!r} must be 'AP-' and six digits")
    start = _minute("starts_at", appointment.starts_at)
    if not (8 <= start.hour < 18 and start.minute % 15 == 0):
        raise RowRejected(f"starts_at {appointment.starts_at} is not a quarter hour between 08:00 and 17:45")
    if appointment.duration_minutes not in (15, 30, 45, 60):
        raise RowRejected(f"duration_minutes {appointment.duration_minutes} is not 15, 30, 45 or 60")
    _one_of("status", appointment.status, APPOINTMENT_STATUSES)
    if appointment.referral_id is not None:
        referral = session.get(Referral, appointment.referral_id)
        if referral is not None and referral.patient_id != appointment.patient_id:
            raise RowRejected(f"referral {referral.referral_id} belongs to {referral.patient_id}, not this patient")


def _one_of(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise RowRejected(f"{key} {value!r} is not one of {', '.join(allowed)}")


def _minute(key: str, value: str) -> datetime:
    try:
        moment = datetime.strptime(value, "%Y-%m-%dT%H:%M")
    except ValueError:
        raise RowRejected(f"{key} {value!r} is not 'YYYY-MM-DDTHH:MM'") from None
    return moment
