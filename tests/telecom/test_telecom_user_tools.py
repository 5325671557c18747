"""The customer's tools on their own phone: each fault of the support procedure shows on the status bar or in a
speed test, the customer's action (or, where the fault is the account's, the chatbot's) fixes it, and the fixed
phone shows that too. What the phone shows follows from its state alone."""

from typing import Any

import pytest
from intellagent.db_schemas.telecom.schema import Line, Phone

from tests.telecom.conftest import DANA, DATA_USED_UP, SUSPENDED, World, healthy_phone

PHONE = "5035550102"  # Dana's line on the unlimited plan, roaming enabled: only the phone can stop its data
WORKING = "Status bar: 5G, signal 4 of 4 bars, mobile data on."
FAST = "Speed test: 300.0 Mbps download (excellent)."
NO_DATA = "Speed test: no connection."


def given(world: World, number: str = PHONE, **state: Any) -> None:
    """The phone of `number` with these settings, the others as the carrier recommends."""
    with world.telecom.session(world.path) as session:
        session.merge(healthy_phone(number, **state))


def test_a_healthy_phone_at_home_has_5g_and_excellent_data(world: World) -> None:
    given(world)
    assert world.user("check_status_bar", phone_number=PHONE) == WORKING
    assert world.user("run_speed_test", phone_number=PHONE) == FAST


def test_looking_changes_nothing_and_gives_the_same_answer_again(world: World) -> None:
    given(world, mobile_data=False)
    before = world.row(Phone, PHONE)
    looks = [world.user(name, phone_number=PHONE) for name in ("check_status_bar", "check_network_settings",
                                                                "run_speed_test") for _ in range(2)]
    assert looks[0::2] == looks[1::2]
    assert world.row(Phone, PHONE) == before


def test_the_network_settings_show_the_switches_the_mode_and_the_apn(world: World) -> None:
    given(world, data_roaming=True, network_mode="3g_auto", apn={"name": "internet", "mmsc": ""})
    assert world.user("check_network_settings", phone_number=PHONE) == (
        "Mobile data: on. Data roaming: on. Preferred network mode: 3G/2G (automatic). APN: internet (MMSC ).")


@pytest.mark.parametrize(
    ("fault", "status_bar", "fix", "arguments"),
    [
        ({"airplane_mode": True}, "Status bar: airplane mode icon, no signal.", "toggle_airplane_mode", {}),
        ({"sim": "missing", "registered": False}, "Status bar: No SIM card, no signal.", "reseat_sim_card", {}),
        ({"registered": False}, "Status bar: No service.", "reboot_phone", {}),
    ],
)
def test_a_phone_without_service_gets_it_back_from_the_customers_fix(
    world: World, fault: dict[str, Any], status_bar: str, fix: str, arguments: dict[str, str]
) -> None:
    given(world, **fault)
    assert world.user("check_status_bar", phone_number=PHONE) == status_bar
    assert world.user("run_speed_test", phone_number=PHONE) == NO_DATA

    assert world.user(fix, phone_number=PHONE, **arguments).endswith(WORKING)

    assert world.user("run_speed_test", phone_number=PHONE) == FAST


def test_a_locked_sim_stays_locked_whatever_the_customer_does(world: World) -> None:
    given(world, sim="locked", registered=False)
    for action in ("reseat_sim_card", "reboot_phone", "toggle_airplane_mode", "toggle_airplane_mode"):
        world.user(action, phone_number=PHONE)
    assert world.user("check_status_bar", phone_number=PHONE) == \
        "Status bar: SIM card locked (PUK required), no signal."


@pytest.mark.parametrize(
    ("fault", "fix", "arguments"),
    [
        ({"mobile_data": False}, "toggle_mobile_data", {}),
        ({"apn": {"name": "internet", "mmsc": ""}}, "reset_apn_settings", {}),
    ],
)
def test_a_phone_without_data_gets_it_back_from_the_customers_fix(
    world: World, fault: dict[str, Any], fix: str, arguments: dict[str, str]
) -> None:
    given(world, **fault)
    assert world.user("run_speed_test", phone_number=PHONE) == NO_DATA

    world.user(fix, phone_number=PHONE, **arguments)

    assert world.user("run_speed_test", phone_number=PHONE) == FAST


@pytest.mark.parametrize(("mode", "speed"), [("2g_only", "0.2 Mbps download (very poor)"),
                                             ("3g_auto", "4.0 Mbps download (poor)"),
                                             ("4g_auto", "60.0 Mbps download (good)")])
def test_an_older_network_mode_is_slow_until_the_customer_chooses_5g(world: World, mode: str, speed: str) -> None:
    given(world, network_mode=mode)
    assert world.user("run_speed_test", phone_number=PHONE) == f"Speed test: {speed}."
    assert world.user("check_status_bar", phone_number=PHONE).startswith(f"Status bar: {mode[0]}G,")

    assert world.user("set_network_mode", phone_number=PHONE, mode="5g_auto").endswith(WORKING)

    assert world.user("run_speed_test", phone_number=PHONE) == FAST


def test_abroad_data_needs_the_phones_roaming_switch_and_the_lines_roaming(world: World) -> None:
    given(world, abroad=True, data_roaming=False)
    world.change(Line, PHONE, roaming_enabled=False)
    assert world.user("check_status_bar", phone_number=PHONE) == \
        "Status bar: 4G, signal 3 of 4 bars, R (roaming), mobile data on."
    assert world.user("run_speed_test", phone_number=PHONE) == NO_DATA

    assert world.user("toggle_data_roaming", phone_number=PHONE) == "Data roaming is now on."
    assert world.user("run_speed_test", phone_number=PHONE) == NO_DATA  # the line still may not roam

    world.agent("enable_roaming", customer_id=DANA, phone_number=PHONE)
    assert world.user("run_speed_test", phone_number=PHONE) == "Speed test: 45.0 Mbps download (good)."


def test_abroad_the_phones_own_roaming_switch_must_be_on_even_when_the_line_may_roam(world: World) -> None:
    given(world, abroad=True, data_roaming=False)
    assert world.row(Line, PHONE).roaming_enabled is True
    assert world.user("run_speed_test", phone_number=PHONE) == NO_DATA

    world.user("toggle_data_roaming", phone_number=PHONE)

    assert world.user("run_speed_test", phone_number=PHONE) == "Speed test: 45.0 Mbps download (good)."


def test_a_line_that_used_all_its_data_has_none_until_the_chatbot_adds_some(world: World) -> None:
    given(world, DATA_USED_UP)
    assert world.user("check_status_bar", phone_number=DATA_USED_UP) == WORKING
    assert world.user("run_speed_test", phone_number=DATA_USED_UP) == NO_DATA

    world.agent("refuel_data", customer_id=DANA, phone_number=DATA_USED_UP, gb_amount=1)

    assert world.user("run_speed_test", phone_number=DATA_USED_UP) == FAST


def test_a_resumed_line_gives_service_once_the_phone_restarts(world: World) -> None:
    assert world.user("check_status_bar", phone_number=SUSPENDED) == "Status bar: No service."

    world.agent("resume_line", customer_id=DANA, phone_number=SUSPENDED)
    assert world.user("check_status_bar", phone_number=SUSPENDED) == "Status bar: No service."

    assert world.user("reboot_phone", phone_number=SUSPENDED) == f"The phone has restarted. {WORKING}"


def test_a_phone_that_restarts_on_a_suspended_line_stays_without_service(world: World) -> None:
    world.user("reboot_phone", phone_number=SUSPENDED)
    assert world.user("check_status_bar", phone_number=SUSPENDED) == "Status bar: No service."
    assert world.row(Phone, SUSPENDED).registered is False


def test_switching_airplane_mode_on_cuts_service_and_off_restores_it(world: World) -> None:
    given(world)
    assert world.user("toggle_airplane_mode", phone_number=PHONE) == \
        "Airplane mode is now on. Status bar: airplane mode icon, no signal."
    assert world.row(Phone, PHONE).registered is False
    assert world.user("toggle_airplane_mode", phone_number=PHONE) == f"Airplane mode is now off. {WORKING}"


def test_each_action_writes_only_the_customers_own_phone(world: World) -> None:
    given(world, mobile_data=False)
    others = world.row(Phone, DATA_USED_UP), world.row(Line, PHONE)
    world.user("toggle_mobile_data", phone_number=PHONE)
    assert world.row(Phone, PHONE).mobile_data is True
    assert (world.row(Phone, DATA_USED_UP), world.row(Line, PHONE)) == others


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("check_status_bar", {"phone_number": "0000000000"},
         "Error: no phone with number 0000000000; give your own phone's ten-digit number"),
        ("toggle_mobile_data", {}, "phone_number: Field required"),
        ("set_network_mode", {"phone_number": PHONE, "mode": "lte"},
         "mode: Input should be '5g_auto', '4g_auto', '3g_auto' or '2g_only'"),
        ("reboot_phone", {"phone_number": PHONE, "hard": True}, "reboot_phone got unexpected arguments hard"),
    ],
)
def test_an_action_with_wrong_arguments_says_what_is_wrong_and_changes_nothing(
    world: World, name: str, arguments: dict[str, Any], error: str
) -> None:
    given(world, network_mode="2g_only", mobile_data=False)
    before = world.row(Phone, PHONE)
    assert error in world.user(name, **arguments)
    assert world.row(Phone, PHONE) == before
