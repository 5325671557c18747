"""τ²-bench's telecom data in and out of the tables, and its environment functions: the telecom's τ-bench module
(`environment.tau`).

τ²-bench keeps the carrier's records in `db.toml` and the phone in `user_db.toml`; `build_tau_database` loads
both into one world (the phone's owner and number unset, as τ²-bench leaves them until a task sets them). A
task builds its initial state by calling functions of either side's environment by name: the tools, and the
functions that set the scene or break the phone (`set_user_info`, `turn_roaming_off`, `break_apn_settings`,
`suspend_line_for_overdue_bill`, ...); it is graded by calling assertions the same way (`assert_service_status`,
`assert_no_overdue_bill`, ...). `run_tau_function` runs any of them on a world, each as τ²-bench's does.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from intellagent.environment import Environment

from . import phone as network
from . import user_tools
from .schema import DEFAULT_APN, TODAY, Bill, Customer, Device, Line, Phone, Plan
from .tools import customer_record

TauDocument = dict[str, dict[str, Any]]
Function = Callable[..., Any]
DEVICE_FIELDS = ("sim_card_status", "sim_card_missing", "airplane_mode", "network_signal_strength",
                 "network_technology_connected", "network_connection_status", "battery_level", "data_enabled",
                 "roaming_enabled", "network_mode_preference", "wifi_enabled", "wifi_connected", "wifi_ssid",
                 "wifi_signal_strength", "wifi_calling_enabled", "wifi_calling_mms_over_wifi", "data_saver_mode",
                 "vpn_enabled_setting", "vpn_connected", "vpn_details")


def build_tau_database(env: Environment, folder: Path, path: Path) -> None:
    """Create the SQLite file `path` holding τ²-bench's telecom data of `folder` (db.toml and user_db.toml)."""
    env.create_database(path, seed=0, background=False)
    with env.session(path) as session:
        load_tau(session, tomllib.loads((folder / "db.toml").read_text(encoding="utf-8")),
                 tomllib.loads((folder / "user_db.toml").read_text(encoding="utf-8")))


def load_tau(session: Session, company: Mapping[str, Any], user: Mapping[str, Any]) -> None:
    """Insert τ²-bench's two documents into empty tables: a customer's `line_ids` become its lines' holder."""
    holder = {line_id: customer["customer_id"] for customer in company["customers"] for line_id in customer["line_ids"]}
    session.add_all(Plan.model_validate(plan) for plan in company["plans"])
    session.add_all(Device.model_validate(_texts(device)) for device in company["devices"])
    for customer in company["customers"]:
        values = {key: value for key, value in customer.items() if key not in ("line_ids", "bill_ids")}
        session.add(Customer.model_validate(_texts({**values, "payment_methods": values.get("payment_methods", [])})))
    session.flush()
    session.add_all(Line.model_validate(_texts({**line, "customer_id": holder[line["line_id"]]}))
                    for line in company["lines"])
    session.add_all(Bill.model_validate(_texts({**bill, "line_items": [_texts(item) for item in
                                                                        bill.get("line_items", [])]}))
                    for bill in company["bills"])
    session.add(_phone(user.get("device", {})))


def _phone(device: Mapping[str, Any]) -> Phone:
    values = {key: device[key] for key in DEVICE_FIELDS if key in device}
    apn = {**DEFAULT_APN, "mms_proxy": None, "mms_port": None, **device.get("active_apn_settings", {})}
    apps = {name: {"app_name": app.get("app_name", name), "permissions": dict(app.get("permissions", {}))}
            for name, app in device.get("app_statuses", {}).items()}
    return Phone(**values, apn_settings=apn, **({"app_statuses": apps} if apps else {}))


def _texts(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record with its dates and moments as text, as the tables keep them."""
    return {key: value.isoformat() if isinstance(value, date) else value for key, value in record.items()}


def export_tau(session: Session) -> TauDocument:
    """Both sides of the world as one document, each record by its id: the carrier's as its tools show them, and
    the phone."""
    return {
        "plans": {plan.plan_id: plan.model_dump() for plan in session.exec(select(Plan)).all()},
        "devices": {device.device_id: device.model_dump() for device in session.exec(select(Device)).all()},
        "customers": {customer.customer_id: customer_record(session, customer)
                      for customer in session.exec(select(Customer)).all()},
        "lines": {line.line_id: line.model_dump() for line in session.exec(select(Line)).all()},
        "bills": {bill.bill_id: bill.model_dump() for bill in session.exec(select(Bill)).all()},
        "phone": {str(phone.id): phone.model_dump() for phone in session.exec(select(Phone)).all()},
    }


def run_tau_function(env: Environment, session: Session, side: str, name: str, arguments: Mapping[str, Any]) -> Any:
    """Run one of τ²-bench's environment functions on the world open in `session`, as τ²-bench runs it: a tool of
    either side by its name (through the environment, as a call), any other function of that side's environment
    (what sets a scene, breaks the phone or asserts), and then what carries the change across the sides.

    Args:
        side: "user" (the phone's environment) or "assistant" (the carrier's).

    Raises:
        ValueError: no such function on that side, or the function refused (its reason).
    """
    tools = {tool.name for tool in (env.user_tools if side == "user" else env.tools)}
    if name in tools:
        result = env.call_tool(session, name, arguments, by=None)
        if result.startswith("Error: "):
            raise ValueError(f"{name}: {result.removeprefix('Error: ')}")
        return result
    functions = USER_FUNCTIONS if side == "user" else COMPANY_FUNCTIONS
    if name not in functions:
        raise ValueError(f"τ²-bench's {side} environment has no function {name} here")
    result = functions[name](session, **arguments)
    session.flush()
    if env.sync is not None:
        env.sync(session)
    session.commit()
    return result


# --- the phone's side: setting the scene, breaking the phone, asserting ---

def _toggled(tool_name: str, field: str, wanted: bool) -> Function:
    """Turn a switch to `wanted` by its toggle, as τ²-bench does: once, and once more if that left it otherwise."""
    toggle = getattr(user_tools, tool_name).function

    def turn(session: Session) -> str:
        toggle(session)
        if getattr(network.the_phone(session), field) != wanted:
            toggle(session)
        return f"{field} is now {wanted}"

    return turn


def set_user_info(session: Session, name: str, phone_number: str) -> None:
    phone = network.the_phone(session)
    phone.owner, phone.phone_number = name, phone_number


def set_user_location(session: Session, abroad: bool) -> None:
    network.the_phone(session).is_abroad = abroad


def simulate_network_search(session: Session) -> None:
    network.search_network(session, network.the_phone(session))


def turn_data_on(session: Session) -> None:
    network.the_phone(session).data_enabled = True  # τ²-bench sets it, with no network search


def unseat_sim_card(session: Session) -> None:
    phone = network.the_phone(session)
    phone.sim_card_missing = True
    network.search_network(session, phone)


def lock_sim_card(session: Session, mode: str) -> None:
    phone = network.the_phone(session)
    phone.sim_card_status = {"pin": "locked_pin", "puk": "locked_puk"}[mode]
    network.search_network(session, phone)


def break_apn_settings(session: Session) -> None:
    phone = network.the_phone(session)
    phone.apn_settings = {**phone.apn_settings, "apn_name": "broken"}
    network.search_network(session, phone)


def break_apn_mms_setting(session: Session) -> None:
    phone = network.the_phone(session)
    phone.apn_settings = {**phone.apn_settings, "mmsc_url": None}


def break_vpn(session: Session) -> None:
    phone = network.the_phone(session)
    if not phone.vpn_connected:
        phone.vpn_connected = True
    phone.vpn_details = {**network.DEFAULT_VPN, "server_performance": "poor"}


def set_wifi_calling(session: Session, enabled: bool, mms_over_wifi: bool | None = None) -> None:
    phone = network.the_phone(session)
    phone.wifi_calling_enabled = enabled
    if mms_over_wifi is not None:
        phone.wifi_calling_mms_over_wifi = mms_over_wifi


def remove_app_permission(session: Session, app_name: str, permission: str) -> None:
    phone = network.the_phone(session)
    app = phone.app_statuses.get(app_name)
    if app is None:
        raise ValueError(f"App '{app_name}' not found")
    phone.app_statuses = {**phone.app_statuses,
                          app_name: {**app, "permissions": {**app["permissions"], permission.lower(): False}}}


def _phone_is(test: Callable[[Session, Phone], Any]) -> Function:
    def assertion(session: Session, expected_status: Any) -> bool:
        return bool(test(session, network.the_phone(session)) == expected_status)

    return assertion


def assert_service_status(session: Session, expected_status: str) -> bool:
    return network.the_phone(session).network_connection_status == expected_status


def assert_internet_speed(session: Session, expected_speed: float, expected_desc: str | None = None) -> bool:
    measured, tier = network.speed(session, network.the_phone(session))
    fast_enough = (measured or 0.0) >= expected_speed
    return fast_enough if expected_desc is None else fast_enough and tier.lower() == expected_desc.lower()


def assert_internet_not_excellent(session: Session) -> bool:
    return network.speed(session, network.the_phone(session))[1].lower() != "excellent"


USER_FUNCTIONS: dict[str, Function] = {
    "set_user_info": set_user_info,
    "set_user_location": set_user_location,
    "simulate_network_search": simulate_network_search,
    "turn_airplane_mode_on": _toggled("toggle_airplane_mode", "airplane_mode", True),
    "turn_airplane_mode_off": _toggled("toggle_airplane_mode", "airplane_mode", False),
    "turn_data_on": turn_data_on,
    "turn_data_off": _toggled("toggle_data", "data_enabled", False),
    "turn_roaming_on": _toggled("toggle_roaming", "roaming_enabled", True),
    "turn_roaming_off": _toggled("toggle_roaming", "roaming_enabled", False),
    "turn_data_saver_mode_on": _toggled("toggle_data_saver_mode", "data_saver_mode", True),
    "turn_data_saver_mode_off": _toggled("toggle_data_saver_mode", "data_saver_mode", False),
    "unseat_sim_card": unseat_sim_card,
    "lock_sim_card": lock_sim_card,
    "break_apn_settings": break_apn_settings,
    "break_apn_mms_setting": break_apn_mms_setting,
    "break_vpn": break_vpn,
    "set_wifi_calling": set_wifi_calling,
    "remove_app_permission": remove_app_permission,
    "assert_airplane_mode_status": _phone_is(lambda session, phone: phone.airplane_mode),
    "assert_service_status": assert_service_status,
    "assert_mobile_data_status": _phone_is(network.mobile_data_working),
    "assert_mobile_roaming_status": _phone_is(lambda session, phone: phone.roaming_enabled),
    "assert_mobile_data_saver_mode_status": _phone_is(lambda session, phone: phone.data_saver_mode),
    "assert_internet_speed": assert_internet_speed,
    "assert_internet_not_excellent": assert_internet_not_excellent,
    "assert_can_send_mms": _phone_is(network.can_send_mms),
    "assert_mobile_data_usage_exceeded": _phone_is(network.data_exhausted),
}


# --- the carrier's side ---

def _held_line(session: Session, customer_id: str, line_id: str) -> Line:
    line = session.get(Line, line_id)
    if session.get(Customer, customer_id) is None or line is None or line.customer_id != customer_id:
        raise ValueError(f"Line {line_id} not found for customer {customer_id}")
    return line


def set_data_usage(session: Session, customer_id: str, line_id: str, data_used_gb: float) -> str:
    _held_line(session, customer_id, line_id).data_used_gb = data_used_gb
    return f"Data usage set to {data_used_gb} GB for line {line_id}"


def suspend_line_for_overdue_bill(session: Session, customer_id: str, line_id: str, new_bill_id: str,
                                  contract_ended: bool) -> str:
    """Last month's plan charge of the line, billed and overdue; the line suspended today for it (and its contract
    ended last month, if asked)."""
    line = session.get(Line, line_id)
    if line is None or line.status != "Active":
        raise ValueError("Line must be active to suspend for unpaid bill")
    plan = session.get(Plan, line.plan_id)
    assert plan is not None
    if session.exec(select(Bill).where(Bill.customer_id == customer_id, Bill.status == "Overdue")).first():
        raise ValueError("Customer already has an overdue bill")
    last_month_end = date.fromisoformat(TODAY).replace(day=1) - timedelta(days=1)
    start = last_month_end.replace(day=1)
    session.add(Bill(bill_id=new_bill_id, customer_id=customer_id, period_start=start.isoformat(),
                     period_end=last_month_end.isoformat(), issue_date=start.isoformat(),
                     total_due=plan.price_per_month, due_date=(start + timedelta(days=14)).isoformat(),
                     line_items=[{"description": f"Charge for line {line_id}", "amount": plan.price_per_month,
                                  "date": TODAY, "item_type": "Charge"}], status="Overdue"))
    line.status, line.suspension_start_date = "Suspended", TODAY
    if contract_ended:
        line.contract_end_date = last_month_end.isoformat()
    return f"Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {contract_ended}"


def assert_data_refueling_amount(session: Session, customer_id: str, line_id: str, expected_amount: float) -> bool:
    return abs(_held_line(session, customer_id, line_id).data_refueling_gb - expected_amount) < 1e-6


def assert_line_status(session: Session, customer_id: str, line_id: str, expected_status: str) -> bool:
    return _held_line(session, customer_id, line_id).status == expected_status


def assert_overdue_bill_exists(session: Session, customer_id: str, overdue_bill_id: str) -> bool:
    bill = session.get(Bill, overdue_bill_id)
    if bill is None or bill.customer_id != customer_id or bill.status != "Overdue":
        raise ValueError(f"Overdue bill {overdue_bill_id} not found")
    return True


def assert_no_overdue_bill(session: Session, overdue_bill_id: str) -> bool:
    bill = session.get(Bill, overdue_bill_id)
    return bill is None or bill.status == "Paid"


COMPANY_FUNCTIONS: dict[str, Function] = {
    "set_data_usage": set_data_usage,
    "suspend_line_for_overdue_bill": suspend_line_for_overdue_bill,
    "assert_data_refueling_amount": assert_data_refueling_amount,
    "assert_line_status": assert_line_status,
    "assert_overdue_bill_exists": assert_overdue_bill_exists,
    "assert_no_overdue_bill": assert_no_overdue_bill,
}
