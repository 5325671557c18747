"""The front desk's tools."""

from intellagent.environment import InjectedSession, tool

from .schema import Appointment, Patient


@tool(writes=False)
def find_patient(session: InjectedSession, patient_id: str) -> str:
    """Look a patient up.

    Args:
        patient_id: The patient's id, e.g. 'PT10001'.
    """
    patient = session.get(Patient, patient_id)
    return "no such patient" if patient is None else patient.model_dump_json()


@tool(writes=True)
def cancel_appointment(session: InjectedSession, appointment_id: str) -> str:
    """Cancel an appointment.

    Args:
        appointment_id: The appointment's id, e.g. 'AP-200013'.
    """
    appointment = session.get(Appointment, appointment_id)
    if appointment is None:
        return "no such appointment"
    appointment.status = "cancelled"
    session.add(appointment)
    return "cancelled"
