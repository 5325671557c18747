"""The telecom environment as a whole: its policy (every rule, in our own words), how it loads, and which
side of the world each table and each tool belongs to."""

import re
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from intellagent.config import load_config
from intellagent.environment import Environment, load_environment
from tests.telecom.conftest import DANA, DATA_USED_UP, OPEN, USER_TOOLS, World

REPO = Path(__file__).resolve().parents[2]
POLICY = (REPO / "policies/telecom.md").read_text()
PROSE = " ".join(POLICY.split())  # line breaks of the Markdown source do not matter


def test_tables_come_parents_first_and_only_the_phones_are_the_customers(telecom: Environment) -> None:
    assert [table.__tablename__ for table in telecom.tables] == ["customers", "plans", "lines", "bills", "phones"]
    sides = {table.__tablename__: table.__table__.info.get("side") for table in telecom.tables}
    assert sides == {"customers": None, "plans": None, "lines": None, "bills": None, "phones": "user"}


def test_the_environment_carries_the_policy_as_the_system_prompt(telecom: Environment) -> None:
    assert telecom.name == "telecom"
    assert telecom.policy == POLICY


def test_the_chatbot_gets_fifteen_tools_of_which_the_account_changes_need_a_yes(telecom: Environment) -> None:
    assert len(telecom.tools) == 15
    writers = {tool.name for tool in telecom.tools if tool.writes}
    assert writers == {"refuel_data", "enable_roaming", "disable_roaming", "suspend_line", "resume_line", "pay_bill"}
    assert {tool.name for tool in telecom.tools if tool.confirm} == writers
    assert [tool.name for tool in telecom.tools if tool.ends_dialog] == ["transfer_to_human_agents"]


def test_the_customer_gets_ten_tools_on_their_phone_none_of_them_the_chatbots(telecom: Environment) -> None:
    names = {tool.name for tool in USER_TOOLS}
    assert names == {"check_status_bar", "check_network_settings", "run_speed_test", "toggle_airplane_mode",
                     "toggle_mobile_data", "toggle_data_roaming", "reseat_sim_card", "set_network_mode",
                     "reset_apn_settings", "reboot_phone"}
    assert not names & {tool.name for tool in telecom.tools}
    assert all(tool.parameters["required"][0] == "phone_number" for tool in USER_TOOLS)
    assert not any(tool.confirm or tool.ends_dialog for tool in USER_TOOLS)


@pytest.fixture
def tables_touched():
    """The tables every SQL statement run while the fixture is active names, reads and writes alike."""
    touched: set[str] = set()

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        touched.update(re.findall(r"\b(customers|plans|lines|bills|phones)\b", statement))

    event.listen(Engine, "before_cursor_execute", record)
    yield touched
    event.remove(Engine, "before_cursor_execute", record)


AGENT_CALLS = [
    ("find_customer_by_phone", {"phone_number": DATA_USED_UP}),
    ("get_customer_details", {"customer_id": DANA}),
    ("find_customer_by_name", {"full_name": "Dana Whitfield", "date_of_birth": "1985-04-02"}),
    ("get_line_details", {"customer_id": DANA, "phone_number": DATA_USED_UP}),
    ("list_plans", {}),
    ("get_plan_details", {"plan_id": "starter_5"}),
    ("get_bills", {"customer_id": DANA}),
    ("get_bill_details", {"customer_id": DANA, "bill_id": OPEN}),
    ("refuel_data", {"customer_id": DANA, "phone_number": DATA_USED_UP, "gb_amount": 1.0}),
    ("enable_roaming", {"customer_id": DANA, "phone_number": DATA_USED_UP}),
    ("disable_roaming", {"customer_id": DANA, "phone_number": DATA_USED_UP}),
    ("suspend_line", {"customer_id": DANA, "phone_number": DATA_USED_UP, "reason": "customer_request"}),
    ("resume_line", {"customer_id": DANA, "phone_number": DATA_USED_UP}),
    ("pay_bill", {"customer_id": DANA, "bill_id": OPEN, "card_last_four": "4242"}),
    ("transfer_to_human_agents", {"summary": "Wants a new plan."}),
]


def test_every_agent_call_is_listed_once(telecom: Environment) -> None:
    assert sorted(name for name, _ in AGENT_CALLS) == sorted(tool.name for tool in telecom.tools)


def test_no_chatbot_tool_reads_or_writes_a_phone(world: World, tables_touched: set[str]) -> None:
    results = [world.agent(name, **arguments) for name, arguments in AGENT_CALLS]

    assert not [result for result in results if result.startswith("Error")]
    assert "lines" in tables_touched and "bills" in tables_touched and "phones" not in tables_touched


def test_the_customers_tools_write_only_their_phone_and_read_only_its_line_and_plan(
    world: World, tables_touched: set[str]
) -> None:
    for tool in USER_TOOLS:
        arguments = {"phone_number": DATA_USED_UP} | ({"mode": "4g_auto"} if tool.name == "set_network_mode" else {})
        assert not world.user(tool.name, **arguments).startswith("Error"), tool.name

    assert tables_touched == {"phones", "lines", "plans"}


@pytest.mark.parametrize(
    "fact",
    [
        "2025-06-12, 10:00:00 EST",
        "full name together with their date of birth",
        '("yes")',
        "at most 2 GB, in steps of half a gigabyte (0.5, 1, 1.5 or 2 GB)",
        "at most 5 GB of extra data in a billing month",
        "the plan's price per gigabyte times the amount",
        "is due on the 21st",
        "June 2025 or later",
        "only on an active line, and only when none of the customer's bills is overdue",
        "holding fee of 5 dollars a month",
        "overdue for 14 days",
        "only once none of the customer's bills is overdue",
        "contract end date is before today",
        "ask the customer to restart their phone",
        "`kestrel.internet`",
        "below excellent at home, or below good abroad",
        "Fix no service before mobile data, and mobile data before speed.",
        "unlocking a locked SIM card",
    ],
)
def test_the_policy_keeps_every_rule(fact: str) -> None:
    assert fact in PROSE


@pytest.mark.parametrize(
    "original",
    [
        "You should deny user requests that are against this policy.",
        "The maximum amount of data that can be refueled is 2GB.",
        "You are allowed to lift the suspension after the user has paid all their overdue bills.",
        "After you resume the line, the user will have to reboot their device to get service.",
        "If the line is not roaming enabled, enable it at no cost for the user",
        "Make sure you try all the relevant resolution steps before transferring the user to a human agent.",
    ],
)
def test_the_policy_is_not_a_copy_of_tau2_benchs(original: str) -> None:
    assert original not in PROSE


def test_the_config_gives_the_customer_its_tools_as_the_users_side(telecom: Environment) -> None:
    assert [tool.name for tool in telecom.user_tools] == [tool.name for tool in USER_TOOLS]
    assert {tool.side for tool in telecom.user_tools} == {"user"}
    assert {tool.side for tool in telecom.tools} == {"company"}
    assert telecom.user_tables == [telecom.table("phones")]


def test_the_domain_loads_the_same_by_file_path(telecom: Environment) -> None:
    domain = REPO / "db_schemas/telecom"
    environment = load_config("telecom.yml").environment
    by_path = load_environment(environment.model_copy(update={
        "schema_module": str(domain / "schema.py"), "tools": str(domain / "tools.py"),
        "validators": str(domain / "validators.py"), "checks": str(domain / "checks.py"),
    }))
    assert by_path.tables == telecom.tables  # the same classes: the modules were not imported a second time
    assert [tool.name for tool in by_path.tools] == [tool.name for tool in telecom.tools]
