"""A small clinic: doctors, patients, referrals from a general practitioner, and appointments.

Written the way a clinic's own database would be: times to the minute ('YYYY-MM-DDTHH:MM'), ids with a
prefix and digits, statuses as words, and a referral whose `specialty` names the specialty it refers
to, not the specialty of the doctor who wrote it.
"""

from sqlmodel import Field, SQLModel

SPECIALTIES = ("general_practice", "cardiology", "dermatology", "neurology")
PLANS = ("basic", "plus", "premium")
REFERRAL_STATUSES = ("open", "used", "expired")
APPOINTMENT_STATUSES = ("booked", "cancelled", "attended")


class Doctor(SQLModel, table=True):
    """A doctor of the clinic."""

    __tablename__ = "clinic_doctors"

    doctor_id: str = Field(primary_key=True)
    name: str
    specialty: str


class Patient(SQLModel, table=True):
    """A registered patient."""

    __tablename__ = "clinic_patients"

    patient_id: str = Field(primary_key=True)
    first_name: str
    last_name: str
    email: str
    dob: str
    plan: str


class Referral(SQLModel, table=True):
    """A general practitioner's referral of a patient to a specialty."""

    __tablename__ = "clinic_referrals"

    referral_id: str = Field(primary_key=True)
    patient_id: str = Field(foreign_key="clinic_patients.patient_id")
    doctor_id: str = Field(foreign_key="clinic_doctors.doctor_id", description="the referring practitioner")
    specialty: str = Field(description="the specialty the patient is referred to")
    issued_at: str
    status: str


class Appointment(SQLModel, table=True):
    """A patient's appointment with a doctor."""

    __tablename__ = "clinic_appointments"

    appointment_id: str = Field(primary_key=True)
    patient_id: str = Field(foreign_key="clinic_patients.patient_id")
    doctor_id: str = Field(foreign_key="clinic_doctors.doctor_id")
    referral_id: str | None = Field(default=None, foreign_key="clinic_referrals.referral_id")
    starts_at: str
    duration_minutes: int
    status: str
