"""The customer's phone tools against τ²-bench's phone, on hand-picked calls: what the status bar shows, what a
speed test measures, roaming abroad, APN settings, data saver, network mode, VPN, SIM, MMS and the payment
request. Each expected figure is τ²-bench's rule worked by hand: a speed test gives the middle of the connected
technology's range (5G: 50-500 Mbps, 4G: 10-100, 3G: 1-5, 2G: 0.1-0.4) times the signal's factor (poor 0.2,
fair 0.5, good 0.8, excellent 1.0), a tenth of it through a poor VPN, a fifth with data saver on."""

from __future__ import annotations

from intellagent.db_schemas.telecom.schema import Bill, Line

from tests.telecom.conftest import JOHN, PREMIUM_LINE, World


def test_the_status_bar_shows_signal_network_data_and_battery(world: World) -> None:
    assert world.user("check_status_bar") == "Status Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%"


def test_the_speed_test_of_the_default_phone_is_five_g_at_good_signal(world: World) -> None:
    assert world.user("run_speed_test").startswith("Speed Test Result: 220.00 Mbps (Excellent).")


def test_a_network_search_finds_five_g_at_excellent_signal(world: World) -> None:
    world.tau("user", "simulate_network_search")
    assert world.user("run_speed_test").startswith("Speed Test Result: 275.00 Mbps (Excellent).")
    assert world.user("check_status_bar").startswith("Status Bar: 📶⁴ Excellent | 5G")


def test_airplane_mode_cuts_service_until_turned_off(world: World) -> None:
    assert world.user("toggle_airplane_mode") == "Airplane Mode is now ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%"
    assert world.user("run_speed_test") == "Speed test failed: No Connection."
    assert "Cellular Connection: no_service" in world.user("check_network_status")
    assert world.user("toggle_wifi").startswith("Wi-Fi cannot be changed while Airplane Mode is ON.")
    world.user("toggle_airplane_mode")
    assert world.phone().network_connection_status == "connected"


def test_abroad_data_needs_roaming_on_the_phone_and_on_the_line(world: World) -> None:
    world.tau("user", "set_user_location", abroad=True)
    assert world.user("run_speed_test") == "Speed test failed: No Connection."  # the phone's roaming is off
    assert world.user("toggle_roaming").startswith("Data Roaming is now ON.")
    assert world.user("run_speed_test").startswith("Speed Test Result: 275.00 Mbps (Excellent)")
    world.agent("disable_roaming", customer_id=JOHN, line_id=PREMIUM_LINE)  # the carrier's side, read at once
    assert world.user("run_speed_test") == "Speed test failed: No Connection."
    world.agent("enable_roaming", customer_id=JOHN, line_id=PREMIUM_LINE)
    assert world.tau("user", "assert_mobile_data_status", expected_status=True) is True


def test_reset_apn_settings_take_effect_at_the_reboot(world: World) -> None:
    world.tau("user", "break_apn_settings")
    assert world.phone().network_connection_status == "no_service"
    assert world.user("reset_apn_settings").startswith("APN settings will be reset at the next reboot.")
    assert world.phone().network_connection_status == "no_service"  # not until the reboot
    assert world.user("reboot_device").startswith("APN settings reset.\nNetwork services restarted.")
    assert world.tau("user", "assert_service_status", expected_status="connected") is True
    assert "APN Name: internet" in world.user("check_apn_settings")


def test_data_saver_slows_data_to_a_fifth(world: World) -> None:
    world.tau("user", "simulate_network_search")
    assert world.user("toggle_data_saver_mode").endswith("| 📱 Data Enabled | 🔽 Data Saver | 🔋 80%")
    assert world.user("run_speed_test").startswith("Speed Test Result: 55.00 Mbps (Good).")
    assert world.user("check_data_restriction_status") == "Data Saver mode is ON."


def test_each_network_mode_connects_its_own_technology(world: World) -> None:
    speeds = {}
    for mode in ("2g_only", "3g_only", "4g_only", "4g_5g_preferred"):
        world.user("set_network_mode_preference", mode=mode)
        speeds[mode] = world.user("run_speed_test").split(". ")[0]
    assert speeds == {"2g_only": "Speed Test Result: 0.05 Mbps (Very Poor)",
                      "3g_only": "Speed Test Result: 1.50 Mbps (Poor)",
                      "4g_only": "Speed Test Result: 44.00 Mbps (Good)",
                      "4g_5g_preferred": "Speed Test Result: 275.00 Mbps (Excellent)"}
    assert world.user("set_network_mode_preference", mode="6g").startswith("Could not set network mode '6g'")


def test_a_poor_vpn_slows_data_to_a_tenth_until_disconnected(world: World) -> None:
    world.tau("user", "simulate_network_search")
    world.tau("user", "break_vpn")
    assert world.user("run_speed_test").startswith("Speed Test Result: 27.50 Mbps (Good).")
    assert world.user("disconnect_vpn").startswith("VPN disconnected.")
    assert world.user("disconnect_vpn").startswith("No VPN connection to disconnect.")
    assert world.user("run_speed_test").startswith("Speed Test Result: 275.00 Mbps (Excellent).")


def test_data_refuelled_at_the_carrier_brings_an_exhausted_line_back(world: World) -> None:
    world.tau("assistant", "set_data_usage", customer_id=JOHN, line_id=PREMIUM_LINE, data_used_gb=15.1)
    assert world.user("run_speed_test") == "Speed test failed: No Connection."  # 15 GB plan, nothing added
    world.agent("refuel_data", customer_id=JOHN, line_id=PREMIUM_LINE, gb_amount=2.0)
    assert world.user("run_speed_test").startswith("Speed Test Result: 220.00 Mbps (Excellent)")


def test_a_sim_out_of_its_slot_is_reseated_but_a_locked_one_stays_locked(world: World) -> None:
    world.tau("user", "unseat_sim_card")
    assert world.user("check_sim_status") == "No SIM card is detected in the phone."
    assert world.user("check_status_bar").startswith("Status Bar: 📵 No Signal | 📵 Data Disabled")
    world.user("reseat_sim_card")
    assert world.phone().network_connection_status == "connected"
    world.tau("user", "lock_sim_card", mode="pin")
    world.user("reseat_sim_card")
    assert world.user("check_sim_status") == "The SIM card is locked: it asks for its PIN code."
    assert world.phone().network_connection_status == "no_service"


def test_mms_fails_over_wifi_calling_and_without_the_messaging_apps_permissions(world: World) -> None:
    assert world.user("can_send_mms") == "The messaging app can send MMS messages."
    world.tau("user", "set_wifi_calling", enabled=True, mms_over_wifi=True)
    assert world.user("can_send_mms") == "The messaging app cannot send MMS messages."
    world.user("toggle_wifi_calling")
    world.tau("user", "remove_app_permission", app_name="messaging", permission="storage")
    assert world.user("check_app_permissions", app_name="messaging") == "App 'messaging' may use: sms, phone."
    assert world.tau("user", "assert_can_send_mms", expected_status=False) is True
    assert world.user("grant_app_permission", app_name="messaging", permission="camera").startswith("Error.")
    world.user("grant_app_permission", app_name="messaging", permission="storage")
    assert world.user("can_send_mms") == "The messaging app can send MMS messages."


def test_mms_needs_three_g_or_better_and_an_mms_centre(world: World) -> None:
    world.user("set_network_mode_preference", mode="3g_only")
    assert world.tau("user", "assert_can_send_mms", expected_status=True) is True
    world.user("set_network_mode_preference", mode="2g_only")
    assert world.tau("user", "assert_can_send_mms", expected_status=False) is True
    world.user("set_network_mode_preference", mode="4g_5g_preferred")
    world.tau("user", "break_apn_mms_setting")
    assert "MMSC URL (picture messages): Not Set" in world.user("check_apn_settings")
    assert world.tau("user", "assert_can_send_mms", expected_status=False) is True


def test_the_customer_pays_a_requested_bill_on_the_phone_and_the_carrier_records_it(world: World) -> None:
    world.tau("assistant", "suspend_line_for_overdue_bill", customer_id=JOHN, line_id=PREMIUM_LINE,
              new_bill_id="B1234321", contract_ended=False)
    assert world.user("check_payment_request") == "No payment request has been made."
    assert world.user("make_payment") == "You have no payment request."
    world.agent("send_payment_request", customer_id=JOHN, bill_id="B1234321")
    assert world.user("check_payment_request") == "You have a payment request for bill B1234321 of 65.0 USD."
    assert world.user("make_payment") == "Payment of 65.0 USD made for bill B1234321."
    assert world.row(Bill, "B1234321").status == "Paid"
    assert world.phone().payment_made is None
    assert world.user("check_payment_request") == "No payment request has been made."


def test_a_resumed_line_has_service_only_after_the_phone_restarts(world: World) -> None:
    world.tau("assistant", "suspend_line_for_overdue_bill", customer_id=JOHN, line_id=PREMIUM_LINE,
              new_bill_id="B1234321", contract_ended=False)
    world.tau("user", "simulate_network_search")
    assert world.phone().network_connection_status == "no_service"
    world.agent("resume_line", customer_id=JOHN, line_id=PREMIUM_LINE)
    assert world.row(Line, PREMIUM_LINE).status == "Active"
    assert world.phone().network_connection_status == "no_service"
    world.user("reboot_device")
    assert world.phone().network_connection_status == "connected"
