"""The customer's tools: what a person can look at and change on the phone in their hand (τ²-bench's user tools).

These are the user's side of the world, not the chatbot's: in a dual-control dialog the chatbot never gets
them, and can only ask the customer to use them and read what the customer reports back; in a solo one it
holds them itself. Each acts on the customer's one phone (`phones`) and writes nothing else; what the phone
shows follows from its state and its line (phone.py), so a fix is observable once made. The one change that
reaches the company is a payment made here, which the carrier records at once (sync.py).
"""

from typing import Literal

from pydantic import BaseModel, Field

from intellagent.environment import InjectedSession, tool

from . import phone as network
from .schema import DEFAULT_APN, NETWORK_MODES, Phone


class ApnSettings(BaseModel):
    """APN settings as a phone's settings screen takes them."""

    apn_name: Literal["internet", "broken"] = Field(default="internet", description="the data APN")
    reset_at_reboot: bool = Field(default=False, description="whether they go back to the carrier's at the next "
                                  "reboot")
    mms_apn: str | None = Field(default="mms", description="the APN used for picture messages")
    mmsc_url: str | None = Field(default=DEFAULT_APN["mmsc_url"], description="the MMS centre's address")
    mms_proxy: str | None = Field(default=None, description="the MMS proxy, if the carrier uses one")
    mms_port: int | None = Field(default=None, description="the MMS proxy's port")


# --- looking ---

@tool(writes=False)
def check_status_bar(session: InjectedSession) -> str:
    """Look at the icons at the top of the screen: signal, network type, mobile data (on, off, data saver), Wi-Fi,
    VPN and battery."""
    return f"Status Bar: {network.status_bar(network.the_phone(session))}"


@tool(writes=False)
def check_network_status(session: InjectedSession) -> str:
    """Open the connection settings: airplane mode, SIM, cellular connection, signal, network type, mobile data,
    data roaming and Wi-Fi."""
    phone = network.the_phone(session)
    lines = [f"Airplane Mode: {_on(phone.airplane_mode)}", f"SIM Card Status: {network.sim_status(phone)}",
             f"Cellular Connection: {phone.network_connection_status}",
             f"Cellular Signal: {phone.network_signal_strength}",
             f"Cellular Network Type: {phone.network_technology_connected}",
             f"Mobile Data Enabled: {_yes(phone.data_enabled)}", f"Data Roaming Enabled: {_yes(phone.roaming_enabled)}",
             f"Wi-Fi Radio: {_on(phone.wifi_enabled)}", f"Wi-Fi Connected: {_yes(phone.wifi_connected)}"]
    if phone.wifi_connected:
        lines.append(f"Connected Wi-Fi Network: {phone.wifi_ssid}")
    return "\n".join(lines)


@tool(writes=False)
def check_network_mode_preference(session: InjectedSession) -> str:
    """See which kind of cellular network the phone prefers (5G, 4G, 3G or 2G)."""
    return f"Network Mode Preference: {network.the_phone(session).network_mode_preference}"


@tool(writes=False)
def run_speed_test(session: InjectedSession) -> str:
    """Measure the download speed of the phone's mobile data, and what it is good enough for."""
    measured, tier = network.speed(session, network.the_phone(session))
    if measured is None:
        return f"Speed test failed: {tier}."
    uses = {"Very Poor": "Very slow: even web pages may not load.", "Poor": "Slow: pages load slowly, video stalls.",
            "Fair": "Enough for web pages and standard-definition video.",
            "Good": "Enough for most uses, high-definition video included.", "Excellent": "Very fast."}
    return f"Speed Test Result: {measured:.2f} Mbps ({tier}). {uses[tier]}"


@tool(writes=False)
def check_sim_status(session: InjectedSession) -> str:
    """See whether the SIM card works: active, missing from its slot, or locked by a PIN or PUK code."""
    shown = {"active": "The SIM card is active and working.", "missing": "No SIM card is detected in the phone.",
             "locked_pin": "The SIM card is locked: it asks for its PIN code.",
             "locked_puk": "The SIM card is locked: it asks for its PUK code."}
    status = network.sim_status(network.the_phone(session))
    return shown.get(status, f"The SIM card's status is {status}.")


@tool(writes=False)
def check_data_restriction_status(session: InjectedSession) -> str:
    """See whether a setting limits mobile data: data saver mode."""
    return f"Data Saver mode is {_on(network.the_phone(session).data_saver_mode)}."


@tool(writes=False)
def check_apn_settings(session: InjectedSession) -> str:
    """See the APN settings the phone uses to reach the carrier's data network: the APN name and the MMS centre's
    address (MMSC URL) that picture messages need."""
    apn = network.the_phone(session).apn_settings
    return (f"APN Name: {apn.get('apn_name') or 'Not Set'}\nMMSC URL (picture messages): "
            f"{apn.get('mmsc_url') or 'Not Set'}")


@tool(writes=False)
def check_wifi_status(session: InjectedSession) -> str:
    """See whether Wi-Fi is on, which network it is connected to and how strong its signal is."""
    phone = network.the_phone(session)
    if not phone.wifi_enabled:
        return "Wi-Fi is OFF."
    if phone.wifi_connected:
        return f"Wi-Fi is ON and connected to '{phone.wifi_ssid}', signal {phone.wifi_signal_strength}."
    return "Wi-Fi is ON but connected to no network."


@tool(writes=False)
def check_wifi_calling_status(session: InjectedSession) -> str:
    """See whether Wi-Fi Calling (calls over Wi-Fi instead of the cellular network) is on."""
    return f"Wi-Fi Calling is {_on(network.the_phone(session).wifi_calling_enabled)}."


@tool(writes=False)
def check_vpn_status(session: InjectedSession) -> str:
    """See whether a VPN is set up and connected, and the connection's details."""
    phone = network.the_phone(session)
    if phone.vpn_connected:
        return f"VPN is ON and connected. Details: {phone.vpn_details}" if phone.vpn_details else \
            "VPN is ON and connected."
    return "VPN is ON in the settings but not connected." if phone.vpn_enabled_setting else "VPN is OFF."


@tool(writes=False)
def check_installed_apps(session: InjectedSession) -> str:
    """List the apps installed on the phone."""
    return f"Installed apps: {', '.join(network.the_phone(session).app_statuses)}"


@tool(writes=False)
def check_app_status(session: InjectedSession, app_name: str) -> str:
    """See an app's details, with the permissions it has.

    Args:
        app_name: The app's name, such as 'messaging'.
    """
    granted = _granted(network.the_phone(session), app_name)
    if granted is None:
        return f"No app '{app_name}' on this phone."
    listed = "".join(f"\n   - {permission}" for permission in granted)
    return f"App: {app_name}\n - Permissions granted:{listed}" if granted else \
        f"App: {app_name}\n - Permissions granted: none"


@tool(writes=False)
def check_app_permissions(session: InjectedSession, app_name: str) -> str:
    """See which permissions an app has (SMS, storage, phone, network).

    Args:
        app_name: The app's name, such as 'messaging'.
    """
    granted = _granted(network.the_phone(session), app_name)
    if granted is None:
        return f"No app '{app_name}' on this phone."
    return f"App '{app_name}' may use: {', '.join(granted)}." if granted else f"App '{app_name}' has no permission."


@tool(writes=False)
def can_send_mms(session: InjectedSession) -> str:
    """Try to send a picture message (MMS) with the default messaging app."""
    if network.can_send_mms(session, network.the_phone(session)):
        return "The messaging app can send MMS messages."
    return "The messaging app cannot send MMS messages."


@tool(writes=False)
def check_payment_request(session: InjectedSession) -> str:
    """See whether the carrier has sent you a request to pay a bill."""
    request = network.payment_request(session, network.the_phone(session))
    if request is None:
        return "No payment request has been made."
    return f"You have a payment request for bill {request['bill_id']} of {request['amount_due']} USD."


# --- changing ---

@tool(writes=True)
def set_network_mode_preference(session: InjectedSession, mode: str) -> str:
    """Choose which kind of cellular network the phone prefers; faster ones (5G, 4G) use more battery. The phone
    looks for the network again.

    Args:
        mode: '4g_5g_preferred', '4g_only', '3g_only' or '2g_only'.
    """
    phone = network.the_phone(session)
    if mode not in NETWORK_MODES:
        return f"Could not set network mode '{mode}': choose one of {', '.join(NETWORK_MODES)}.\n{_bar(phone)}"
    phone.network_mode_preference = mode
    network.search_network(session, phone)
    return f"Preferred network mode is now {mode}.\n{_bar(phone)}"


@tool(writes=True)
def toggle_airplane_mode(session: InjectedSession) -> str:
    """Turn airplane mode on if it is off, or off if it is on; on, it cuts every radio (cellular, Wi-Fi, Bluetooth)."""
    phone = network.the_phone(session)
    turning_on = not phone.airplane_mode
    phone.airplane_mode = turning_on
    if turning_on or phone.wifi_enabled:
        phone.wifi_connected, phone.wifi_ssid, phone.wifi_signal_strength = False, None, "none"
    if turning_on:
        phone.vpn_connected, phone.vpn_details = False, None
    else:
        phone.network_connection_status = "searching"
    network.search_network(session, phone)
    return f"Airplane Mode is now {_on(phone.airplane_mode)}.\n{_bar(phone)}"


@tool(writes=True)
def reseat_sim_card(session: InjectedSession) -> str:
    """Take the SIM card out of its slot and put it back; the phone looks for the network again."""
    phone = network.the_phone(session)
    phone.sim_card_missing = False
    network.search_network(session, phone)
    return f"SIM card reseated.\n{_bar(phone)}"


@tool(writes=True)
def toggle_data(session: InjectedSession) -> str:
    """Turn mobile data on if it is off, or off if it is on: whether the phone may use the cellular network for the
    internet."""
    phone = network.the_phone(session)
    phone.data_enabled = not phone.data_enabled
    network.search_network(session, phone)
    return f"Mobile Data is now {_on(phone.data_enabled)}.\n{_bar(phone)}"


@tool(writes=True)
def toggle_roaming(session: InjectedSession) -> str:
    """Turn data roaming on if it is off, or off if it is on: whether the phone may use data on other carriers'
    networks, abroad."""
    phone = network.the_phone(session)
    phone.roaming_enabled = not phone.roaming_enabled
    network.search_network(session, phone)
    return f"Data Roaming is now {_on(phone.roaming_enabled)}.\n{_bar(phone)}"


@tool(writes=True)
def toggle_data_saver_mode(session: InjectedSession) -> str:
    """Turn data saver mode on if it is off, or off if it is on; on, it uses less data and slows it down."""
    phone = network.the_phone(session)
    phone.data_saver_mode = not phone.data_saver_mode
    return f"Data Saver Mode is now {_on(phone.data_saver_mode)}.\n{_bar(phone)}"


@tool(writes=True)
def set_apn_settings(session: InjectedSession, apn_settings: ApnSettings) -> str:
    """Replace the phone's APN settings; the phone looks for the network again.

    Args:
        apn_settings: The settings to use.
    """
    phone = network.the_phone(session)
    phone.apn_settings = apn_settings.model_dump()
    network.search_network(session, phone)
    return f"APN settings set to: {apn_settings.apn_name}\n{_bar(phone)}"


@tool(writes=True)
def reset_apn_settings(session: InjectedSession) -> str:
    """Put the APN settings back to the carrier's; this takes effect at the next reboot."""
    phone = network.the_phone(session)
    phone.apn_settings = {**phone.apn_settings, "reset_at_reboot": True}
    network.search_network(session, phone)
    return f"APN settings will be reset at the next reboot.\n{_bar(phone)}"


@tool(writes=True)
def toggle_wifi(session: InjectedSession) -> str:
    """Turn the Wi-Fi radio on if it is off, or off if it is on (not while airplane mode is on)."""
    phone = network.the_phone(session)
    if phone.airplane_mode:
        return f"Wi-Fi cannot be changed while Airplane Mode is ON.\n{_bar(phone)}"
    phone.wifi_enabled = not phone.wifi_enabled
    if not phone.wifi_enabled:
        phone.wifi_connected, phone.wifi_ssid, phone.wifi_signal_strength = False, None, "none"
    return f"Wi-Fi is now {_on(phone.wifi_enabled)}.\n{_bar(phone)}"


@tool(writes=True)
def toggle_wifi_calling(session: InjectedSession) -> str:
    """Turn Wi-Fi Calling on if it is off, or off if it is on: calls over Wi-Fi where the cellular signal is weak."""
    phone = network.the_phone(session)
    phone.wifi_calling_enabled = not phone.wifi_calling_enabled
    return f"Wi-Fi Calling is now {_on(phone.wifi_calling_enabled)}.\n{_bar(phone)}"


@tool(writes=True)
def connect_vpn(session: InjectedSession) -> str:
    """Connect the phone's VPN."""
    phone = network.the_phone(session)
    if phone.vpn_connected:
        return "VPN already connected."
    phone.vpn_connected, phone.vpn_details = True, dict(network.DEFAULT_VPN)
    return f"VPN connected.\n{_bar(phone)}"


@tool(writes=True)
def disconnect_vpn(session: InjectedSession) -> str:
    """Disconnect the VPN, so that traffic no longer goes through its server (which may have slowed it)."""
    phone = network.the_phone(session)
    if not phone.vpn_connected:
        return f"No VPN connection to disconnect.\n{_bar(phone)}"
    phone.vpn_connected, phone.vpn_details = False, None
    return f"VPN disconnected.\n{_bar(phone)}"


@tool(writes=True)
def grant_app_permission(session: InjectedSession, app_name: str, permission: str) -> str:
    """Let an app use something it needs (SMS, storage, phone, network).

    Args:
        app_name: The app's name, such as 'messaging'.
        permission: The permission, in lower case: 'sms', 'storage', 'phone' or 'network'.
    """
    phone = network.the_phone(session)
    app = phone.app_statuses.get(app_name)
    permission = permission.lower()
    if app is None:
        return f"Error. No app '{app_name}' on this phone.\n{_bar(phone)}"
    if permission not in app["permissions"]:
        return (f"Error. App '{app_name}' has no permission '{permission}'; its permissions are "
                f"{', '.join(app['permissions'])}.\n{_bar(phone)}")
    phone.app_statuses = {**phone.app_statuses,
                          app_name: {**app, "permissions": {**app["permissions"], permission: True}}}
    return f"Success. App '{app_name}' may now use {permission}.\n{_bar(phone)}"


@tool(writes=True)
def reboot_device(session: InjectedSession) -> str:
    """Restart the phone: it applies reset APN settings and looks for the network again."""
    phone = network.the_phone(session)
    steps = []
    if phone.apn_settings.get("reset_at_reboot"):
        steps.append("APN settings reset.")
        phone.apn_settings = dict(DEFAULT_APN)
    steps.append("Network services restarted.")
    phone.network_connection_status = "searching"
    network.search_network(session, phone)
    return "\n".join([*steps, _bar(phone)])


@tool(writes=True)
def make_payment(session: InjectedSession) -> str:
    """Pay the bill the carrier has asked you to pay (see check_payment_request)."""
    phone = network.the_phone(session)
    request = network.payment_request(session, phone)
    if request is None:
        return "You have no payment request."
    phone.payment_made = request["bill_id"]
    return f"Payment of {request['amount_due']} USD made for bill {request['bill_id']}."


def _granted(phone: Phone, app_name: str) -> list[str] | None:
    app = phone.app_statuses.get(app_name)
    if app is None:
        return None
    return [name for name, allowed in app["permissions"].items() if allowed]


def _bar(phone: Phone) -> str:
    return f"Status Bar: {network.status_bar(phone)}"


def _on(switch: bool) -> str:
    return "ON" if switch else "OFF"


def _yes(switch: bool) -> str:
    return "Yes" if switch else "No"

