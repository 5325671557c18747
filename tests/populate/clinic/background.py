"""A seeded clinic: eight doctors, thirty patients, their referrals and appointments."""

import random
from datetime import datetime, timedelta

from sqlmodel import Session

from .schema import APPOINTMENT_STATUSES, PLANS, REFERRAL_STATUSES, SPECIALTIES, Appointment, Doctor, Patient, Referral

FIRST = ("Ana", "Ben", "Chloe", "Dev", "Eva", "Finn", "Gita", "Hugo", "Ines", "Jon")
LAST = ("Silva", "Okafor", "Novak", "Khan", "Berg", "Rossi", "Tanaka", "Moreau")


def generate(session: Session, seed: int) -> None:
    """Staff the clinic and give it a history."""
    rng = random.Random(seed)
    doctors = [Doctor(doctor_id=f"DR-{101 + n}", name=f"Dr {rng.choice(LAST)}", specialty=SPECIALTIES[n % 4])
               for n in range(8)]
    session.add_all(doctors)
    practitioners = [d for d in doctors if d.specialty == "general_practice"]
    start = datetime(2024, 5, 6, 8, 0)
    for n in range(30):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        patient = Patient(patient_id=f"PT{10001 + n * 37}", first_name=first, last_name=last,
                          email=f"{first.lower()}.{last.lower()}@mail.test", dob=f"{rng.randint(1940, 2015)}-0"
                          f"{rng.randint(1, 9)}-{rng.randint(10, 28)}", plan=rng.choice(PLANS))
        session.add(patient)
        referral = None
        if n % 2 == 0:
            issued = start + timedelta(days=rng.randint(0, 20), hours=rng.randint(0, 9), minutes=rng.choice((0, 30)))
            referral = Referral(referral_id=f"RF-2024-{1000 + n}", patient_id=patient.patient_id,
                                doctor_id=rng.choice(practitioners).doctor_id, specialty=rng.choice(SPECIALTIES[1:]),
                                issued_at=issued.strftime("%Y-%m-%dT%H:%M"), status=rng.choice(REFERRAL_STATUSES))
            session.add(referral)
        quarter = rng.choice((0, 15, 30, 45))
        moment = start + timedelta(days=rng.randint(0, 40), hours=rng.randint(0, 9), minutes=quarter)
        session.add(Appointment(
            appointment_id=f"AP-{200000 + n * 13}", patient_id=patient.patient_id,
            doctor_id=rng.choice(doctors).doctor_id,
            referral_id=referral.referral_id if referral and rng.random() < 0.5 else None,
            starts_at=moment.strftime("%Y-%m-%dT%H:%M"), duration_minutes=rng.choice((15, 30, 45, 60)),
            status=rng.choice(APPOINTMENT_STATUSES),
        ))
