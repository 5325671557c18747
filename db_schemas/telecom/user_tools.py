"""The customer's tools: what a person can look at and change on their own phone.

These are the user's side of the world, not the chatbot's: the chatbot never gets them, and can
only ask the customer to use them and read what the customer reports back. Each tool works on the
phone of the number it is given (the customer's own) and writes nothing but that phone's row; it
reads the line the phone is on, and the line's plan, because the network serves a phone by them.
What the phone shows follows from its state alone (network.py), so a fix is observable: once the
fault is gone, the status bar and the speed test say so.
"""

from typing import Literal

from sqlmodel import Session

from intellagent.environment import InjectedSession, tool

from .network import Reception, can_register, reception
from .schema import DEFAULT_APN, Line, Phone, Plan

NetworkMode = Literal["5g_auto", "4g_auto", "3g_auto", "2g_only"]

MODE_NAMES = {"5g_auto": "5G/4G/3G/2G (automatic)", "4g_auto": "4G/3G/2G (automatic)", "3g_auto": "3G/2G (automatic)",
              "2g_only": "2G only"}


@tool(writes=False)
def check_status_bar(session: InjectedSession, phone_number: str) -> str:
    """Look at the icons at the top of the phone's screen: signal, network type, airplane mode, SIM, mobile data.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    return _status_bar(session, _phone(session, phone_number))


@tool(writes=False)
def check_network_settings(session: InjectedSession, phone_number: str) -> str:
    """Open the phone's mobile network settings: mobile data, data roaming, preferred network mode and APN.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    phone = _phone(session, phone_number)
    return (f"Mobile data: {_on(phone.mobile_data)}. Data roaming: {_on(phone.data_roaming)}. "
            f"Preferred network mode: {MODE_NAMES.get(phone.network_mode, phone.network_mode)}. "
            f"APN: {phone.apn.get('name')} (MMSC {phone.apn.get('mmsc')}).")


@tool(writes=False)
def run_speed_test(session: InjectedSession, phone_number: str) -> str:
    """Run a speed test of the phone's mobile data connection.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    phone = _phone(session, phone_number)
    found = _reception(session, phone)
    if found.speed_mbps is None:
        return "Speed test: no connection."
    return f"Speed test: {found.speed_mbps} Mbps download ({found.speed_tier})."


@tool(writes=True)
def toggle_airplane_mode(session: InjectedSession, phone_number: str) -> str:
    """Turn airplane mode on if it is off, or off if it is on; the phone looks for the network again.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    phone = _phone(session, phone_number)
    phone.airplane_mode = not phone.airplane_mode
    _register(session, phone)
    return f"Airplane mode is now {_on(phone.airplane_mode)}. {_status_bar(session, phone)}"


@tool(writes=True)
def toggle_mobile_data(session: InjectedSession, phone_number: str) -> str:
    """Turn the phone's mobile data on if it is off, or off if it is on.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    phone = _phone(session, phone_number)
    phone.mobile_data = not phone.mobile_data
    return f"Mobile data is now {_on(phone.mobile_data)}. {_status_bar(session, phone)}"


@tool(writes=True)
def toggle_data_roaming(session: InjectedSession, phone_number: str) -> str:
    """Turn the phone's data roaming switch on if it is off, or off if it is on.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    phone = _phone(session, phone_number)
    phone.data_roaming = not phone.data_roaming
    return f"Data roaming is now {_on(phone.data_roaming)}."


@tool(writes=True)
def reseat_sim_card(session: InjectedSession, phone_number: str) -> str:
    """Take the SIM card out of its slot and put it back firmly; the phone looks for the network again.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    phone = _phone(session, phone_number)
    if phone.sim == "missing":
        phone.sim = "active"  # a locked SIM stays locked: only its PUK code opens it
    _register(session, phone)
    return f"The SIM card is back in its slot. {_status_bar(session, phone)}"


@tool(writes=True)
def set_network_mode(session: InjectedSession, phone_number: str, mode: NetworkMode) -> str:
    """Choose which network technologies the phone may use; the phone looks for the network again.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
        mode: '5g_auto' (5G, 4G, 3G or 2G, the fastest available), '4g_auto', '3g_auto' or '2g_only'.
    """
    phone = _phone(session, phone_number)
    phone.network_mode = mode
    _register(session, phone)
    return f"Preferred network mode is now {MODE_NAMES[mode]}. {_status_bar(session, phone)}"


@tool(writes=True)
def reset_apn_settings(session: InjectedSession, phone_number: str) -> str:
    """Reset the phone's APN settings to the carrier's defaults.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    phone = _phone(session, phone_number)
    phone.apn = dict(DEFAULT_APN)
    return f"APN settings reset: APN {DEFAULT_APN['name']}."


@tool(writes=True)
def reboot_phone(session: InjectedSession, phone_number: str) -> str:
    """Restart the phone; it registers on the network again as it starts.

    Args:
        phone_number: Your phone's number, ten digits, such as '5035550187'.
    """
    phone = _phone(session, phone_number)
    _register(session, phone)
    return f"The phone has restarted. {_status_bar(session, phone)}"


def _phone(session: Session, phone_number: str) -> Phone:
    phone = session.get(Phone, phone_number)
    if phone is None:
        raise ValueError(f"no phone with number {phone_number}; give your own phone's ten-digit number")
    return phone


def _line(session: Session, phone: Phone) -> Line | None:
    return session.get(Line, phone.phone_number)


def _reception(session: Session, phone: Phone) -> Reception:
    line = _line(session, phone)
    return reception(phone, line, session.get(Plan, line.plan_id) if line is not None else None)


def _register(session: Session, phone: Phone) -> None:
    """The phone looks for the network, and registers if it can."""
    phone.registered = can_register(phone, _line(session, phone))


def _status_bar(session: Session, phone: Phone) -> str:
    found = _reception(session, phone)
    if found.service == "airplane mode":
        return "Status bar: airplane mode icon, no signal."
    if found.service == "no SIM":
        return "Status bar: No SIM card, no signal."
    if found.service == "SIM locked":
        return "Status bar: SIM card locked (PUK required), no signal."
    if found.service is not None:
        return "Status bar: No service."
    roaming = ", R (roaming)" if phone.abroad else ""
    return (f"Status bar: {found.technology}, signal {found.bars} of 4 bars{roaming}, "
            f"mobile data {_on(phone.mobile_data)}.")


def _on(switch: bool) -> str:
    return "on" if switch else "off"
