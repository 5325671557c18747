"""The telecom environment as a whole: its policies (τ²-bench's rules, in our own words, for dual and solo play), how
it loads, and which side of the world each table and each tool belongs to."""

import re
from pathlib import Path

import pytest

from intellagent.config import load_config
from intellagent.environment import Environment, load_environment
from tests.telecom.conftest import JOHN, PREMIUM_LINE, TAU2, World

REPO = Path(__file__).resolve().parents[2]
POLICY = (REPO / "policies/telecom.md").read_text()
SOLO = (REPO / "policies/telecom_solo.md").read_text()
CARRIER = ["get_customer_by_phone", "get_customer_by_id", "get_customer_by_name", "get_details_by_id", "suspend_line",
           "resume_line", "get_bills_for_customer", "send_payment_request", "get_data_usage", "enable_roaming",
           "disable_roaming", "transfer_to_human_agents", "refuel_data"]
PHONE = ["check_status_bar", "check_network_status", "check_network_mode_preference", "run_speed_test",
         "check_sim_status", "check_data_restriction_status", "check_apn_settings", "check_wifi_status",
         "check_wifi_calling_status", "check_vpn_status", "check_installed_apps", "check_app_status",
         "check_app_permissions", "can_send_mms", "check_payment_request", "set_network_mode_preference",
         "toggle_airplane_mode", "reseat_sim_card", "toggle_data", "toggle_roaming", "toggle_data_saver_mode",
         "set_apn_settings", "reset_apn_settings", "toggle_wifi", "toggle_wifi_calling", "connect_vpn",
         "disconnect_vpn", "grant_app_permission", "reboot_device", "make_payment"]


def words(text: str) -> str:
    return " ".join(re.sub(r"[*`#]", "", text).split()).lower()


def test_tables_come_parents_first_and_only_the_phone_is_the_customers(telecom: Environment) -> None:
    assert [table.__tablename__ for table in telecom.tables] == ["plans", "devices", "customers", "phones", "lines",
                                                                  "bills"]
    assert telecom.user_tables == [telecom.table("phones")]


def test_the_chatbot_gets_tau_benchs_thirteen_carrier_tools(telecom: Environment) -> None:
    assert [tool.name for tool in telecom.tools] == CARRIER
    assert {tool.name for tool in telecom.tools if tool.writes} == {
        "suspend_line", "resume_line", "send_payment_request", "enable_roaming", "disable_roaming", "refuel_data"}
    assert [tool.name for tool in telecom.tools if tool.confirm] == ["refuel_data"]  # its price is agreed first
    assert [tool.name for tool in telecom.tools if tool.ends_dialog] == ["transfer_to_human_agents"]


def test_the_customer_gets_tau_benchs_thirty_phone_tools(telecom: Environment) -> None:
    assert [tool.name for tool in telecom.user_tools] == PHONE
    assert {tool.side for tool in telecom.user_tools} == {"user"}
    assert all(not tool.parameters.get("required") or tool.name in {
        "check_app_status", "check_app_permissions", "set_network_mode_preference", "set_apn_settings",
        "grant_app_permission"} for tool in telecom.user_tools)  # the phone in hand: no number to give


def test_a_solo_dialog_gets_the_solo_policy_and_both_sides_tools(telecom: Environment) -> None:
    assert telecom.policy == POLICY and telecom.solo_policy == SOLO
    assert telecom.solo.policy == SOLO and [tool.name for tool in telecom.solo.tools] == CARRIER + PHONE
    assert telecom.solo.user_tools == [] and telecom.sync is not None


def test_no_carrier_tool_changes_the_phone(world: World) -> None:
    before = world.phone()
    world.agent("refuel_data", customer_id=JOHN, line_id=PREMIUM_LINE, gb_amount=1.0)
    world.agent("resume_line", customer_id=JOHN, line_id="L1003")
    world.agent("send_payment_request", customer_id=JOHN, bill_id="B1002")
    assert world.phone() == before


@pytest.mark.parametrize("document", [POLICY, SOLO], ids=["dual", "solo"])
def test_the_policy_copies_no_sentence_of_tau_benchs(document: str) -> None:
    ours = words(document)
    theirs = [words(sentence) for name in ("main_policy.md", "main_policy_solo.md", "tech_support_workflow.md",
                                           "tech_support_workflow_solo.md", "tech_support_manual.md")
              for sentence in re.split(r"(?<=[.!?:])\s+|\n", (TAU2 / name).read_text())]
    copied = [sentence for sentence in theirs if len(sentence.split()) >= 8 and sentence in ours]
    assert copied == []


@pytest.mark.parametrize("rule", [
    "2025", "full name together with their date of birth", "at most 2 gb can be added",
    "you may never lift it when the line's contract end date is in the past",
    "the customer must restart their phone", "one bill awaiting payment at a time",
    "the tool that sends a payment request does not check this", "free of charge",
    "locked by a pin or puk code, hand over to a human agent", "wi-fi calling", "both sms and storage",
    "mmsc url is missing", "you are being transferred to a human agent. please hold on.",
])
def test_the_policy_keeps_tau_benchs_rules(rule: str) -> None:
    assert rule in words(POLICY)


def test_the_solo_policy_lets_the_chatbot_pay_only_with_the_customers_permission() -> None:
    assert "only when they have said they allow you to make payments" in words(SOLO)
    assert "you hold the customer's phone tools yourself" in words(SOLO)


def test_the_domain_loads_the_same_by_file_path(telecom: Environment) -> None:
    domain = REPO / "db_schemas/telecom"
    environment = load_config("telecom.yml").environment
    by_path = load_environment(environment.model_copy(update={
        "schema_module": str(domain / "schema.py"), "tools": str(domain / "tools.py"),
        "validators": str(domain / "validators.py"), "checks": str(domain / "checks.py"),
    }))
    assert by_path.tables == telecom.tables  # the same classes: the modules were not imported a second time
    assert [tool.name for tool in by_path.tools] == [tool.name for tool in telecom.tools]
