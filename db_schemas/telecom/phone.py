"""What the customer's phone gets from the network where it is, as τ²-bench's telecom phone behaves.

A phone stores what it last found when it looked for the network (status, technology, signal): it looks
again only when something makes it (airplane mode off, a SIM reseated, a reboot, a network mode chosen, the
data or roaming switch turned, APN settings set or reset), so a line resumed at the carrier gives service
only once the phone looks again. Whether mobile data works, how fast it is and whether a picture message can
be sent are read from the phone's state and from its line as the network has it at that moment (active or
not, roaming allowed or not, data left or not). Nothing here is random.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from .schema import Bill, Customer, Line, Phone, Plan

SPEED_RANGES_MBPS = {"2G": (0.1, 0.4), "3G": (1.0, 5.0), "4G": (10.0, 100.0), "5G": (50.0, 500.0)}
"""The slowest and fastest download of each technology; a speed test gives their middle, scaled by the signal."""
SIGNAL_FACTOR = {"poor": 0.2, "fair": 0.5, "good": 0.8, "excellent": 1.0}
SPEED_TIERS = ((100.0, "Excellent"), (25.0, "Good"), (5.0, "Fair"), (1.0, "Poor"), (0.0, "Very Poor"))
"""The lowest speed of each tier, in Mbps, fastest first."""
POOR_VPN_FACTOR = 0.1
DATA_SAVER_FACTOR = 0.2
MODE_TECHNOLOGY = {"4g_only": "4G", "3g_only": "3G", "2g_only": "2G"}
DEFAULT_VPN = {"server_address": "192.168.1.1", "protocol": "OpenVPN", "server_performance": "excellent"}
"""The VPN profile a phone connects to."""


def the_phone(session: Session) -> Phone:
    """The customer's phone: the one row of the customer's side."""
    phones = list(session.exec(select(Phone)).all())
    if not phones:
        raise ValueError("there is no phone in the customer's hand in this world")
    return phones[0]


def line_of(session: Session, phone: Phone) -> Line | None:
    """The line the phone's number is on, if the carrier has one."""
    if phone.phone_number is None:
        return None
    return session.exec(select(Line).where(Line.phone_number == phone.phone_number)).first()


def line_active(session: Session, phone: Phone) -> bool:
    """Whether the network serves the phone's line (a phone whose number is not known yet is served)."""
    if phone.phone_number is None:
        return True
    line = line_of(session, phone)
    return line is not None and line.status == "Active"


def roaming_allowed(session: Session, phone: Phone) -> bool:
    """Whether the phone's line may use data abroad."""
    line = line_of(session, phone)
    return line is not None and line.roaming_enabled


def data_exhausted(session: Session, phone: Phone) -> bool:
    """Whether the phone's line has used all its data this month (the plan's allowance and what was added)."""
    line = line_of(session, phone)
    plan = session.get(Plan, line.plan_id) if line is not None else None
    return plan is not None and line is not None and line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb


def sim_status(phone: Phone) -> str:
    """'active', 'missing', 'locked_pin' or 'locked_puk'."""
    return "missing" if phone.sim_card_missing else phone.sim_card_status


def search_network(session: Session, phone: Phone) -> None:
    """The phone looks for the network: what it connects to follows from its SIM, its network mode, the signal
    where it is, airplane mode, its APN and its line."""
    if sim_status(phone) == "active":
        technology = MODE_TECHNOLOGY.get(phone.network_mode_preference, "4G")
        if phone.network_mode_preference == "4g_5g_preferred" and phone.signal_strength.get("5G", "none") != "none":
            technology = "5G"
        _connect(phone, "connected", technology, phone.signal_strength.get(technology, "none"))
    else:
        _no_service(phone)
    if phone.airplane_mode or phone.apn_settings.get("apn_name") == "broken" or not line_active(session, phone):
        _no_service(phone)


def _connect(phone: Phone, status: str, technology: str, signal: str) -> None:
    phone.network_connection_status = status
    phone.network_technology_connected = technology
    phone.network_signal_strength = signal


def _no_service(phone: Phone) -> None:
    _connect(phone, "no_service", "none", "none")


def mobile_data_working(session: Session, phone: Phone) -> bool:
    """Whether the phone's mobile data works: radio on, signal, service, roaming allowed on both the phone and the
    line when abroad, the data switch on, and data left on the line."""
    if phone.airplane_mode or phone.network_signal_strength == "none":
        return False
    if phone.network_connection_status == "no_service":
        return False
    if phone.is_abroad and not (phone.roaming_enabled and roaming_allowed(session, phone)):
        return False
    return phone.data_enabled and not data_exhausted(session, phone)


def speed(session: Session, phone: Phone) -> tuple[float | None, str]:
    """The download speed a speed test measures, in Mbps, and its tier; (None, 'No Connection') without data."""
    if not mobile_data_working(session, phone):
        return None, "No Connection"
    factor = 1.0
    if phone.vpn_connected and (phone.vpn_details or {}).get("server_performance") == "poor":
        factor = POOR_VPN_FACTOR
    if phone.data_saver_mode:
        factor *= DATA_SAVER_FACTOR
    low, high = SPEED_RANGES_MBPS.get(phone.network_technology_connected, (0.0, 0.0))
    measured = round((low + high) / 2 * SIGNAL_FACTOR.get(phone.network_signal_strength, 0.0) * factor, 2)
    return measured, next(name for lowest, name in SPEED_TIERS if measured >= lowest)


def can_send_mms(session: Session, phone: Phone) -> bool:
    """Whether the messaging app can send a picture message: mobile data works on 3G or better, Wi-Fi calling does
    not carry MMS (the carrier does not support it), the APN names an MMS centre, and the messaging app may use SMS
    and storage."""
    if not mobile_data_working(session, phone) or phone.network_technology_connected == "2G":
        return False
    if phone.wifi_calling_enabled and phone.wifi_calling_mms_over_wifi:
        return False
    if not phone.apn_settings.get("mmsc_url"):
        return False
    messaging = phone.app_statuses.get("messaging")
    permissions = (messaging or {}).get("permissions", {})
    return bool(permissions.get("sms")) and bool(permissions.get("storage"))


def status_bar(phone: Phone) -> str:
    """The icons at the top of the screen, left to right."""
    icons = []
    if phone.airplane_mode:
        icons.append("✈️ Airplane Mode")
    else:
        bars = {"poor": "📶¹ Poor", "fair": "📶² Fair", "good": "📶³ Good", "excellent": "📶⁴ Excellent"}
        icons.append(bars.get(phone.network_signal_strength, "📵 No Signal"))
        if phone.network_technology_connected != "none":
            icons.append(phone.network_technology_connected)
        if phone.data_enabled and phone.network_technology_connected != "none":
            icons.append("📱 Data Enabled")
            if phone.data_saver_mode:
                icons.append("🔽 Data Saver")
        else:
            icons.append("📵 Data Disabled")
    if phone.wifi_enabled and phone.wifi_connected:
        icons.append(f"📡 Connected to {phone.wifi_ssid}" if phone.wifi_ssid else "📡 Enabled")
    if phone.vpn_connected:
        icons.append("🔒 VPN Connected")
    icons.append(f"🔋 {phone.battery_level}%")
    return " | ".join(icons)


def customer_of(session: Session, phone_number: str) -> Customer | None:
    """The customer whose contact number is `phone_number` or who holds a line with it, the first by id."""
    for customer in session.exec(select(Customer).order_by(col(Customer.customer_id))).all():
        if customer.phone_number == phone_number:
            return customer
        numbers = session.exec(select(Line.phone_number).where(Line.customer_id == customer.customer_id)).all()
        if phone_number in numbers:
            return customer
    return None


def payment_request(session: Session, phone: Phone) -> dict[str, Any] | None:
    """The payment the carrier asks of the phone's owner: its first bill awaiting payment, with the amount due."""
    if phone.phone_number is None:
        return None
    customer = customer_of(session, phone.phone_number)
    if customer is None:
        return None
    bill = session.exec(select(Bill).where(Bill.customer_id == customer.customer_id, Bill.status == "Awaiting Payment")
                        .order_by(col(Bill.bill_id))).first()
    return None if bill is None else {"bill_id": bill.bill_id, "amount_due": bill.total_due}
