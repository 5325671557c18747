"""The simulated user's first message names the record its request is about: a first draft that names none of the ids
of the expected writes' records that the user knows gets the reference added by the program (told twice, the embedded
model left it out of both redraws); a later message, an event that
expects no write, a persona that keeps its details back and a published task's user are not held to it. On the shop
(an order 'A1') and on the parcel desk (twelve-digit tracking numbers)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from scripted_dialogs import dialogs, event, play_shop, reply, say, shop_settings, simulate, stop, verdict

from intellagent.artifacts import Dialog, Entitlement, Event, ExpectedCall, ExpectedOutcome, TauTask
from intellagent.config import load_config
from intellagent.environment import load_environment
from intellagent.llm import ScriptedLLM
from intellagent.modes import user_role
from intellagent.outcomes.facts import request_ids
from intellagent.persona_files import builtin_personas
from intellagent.populate.tables import Tables
from intellagent.runner import execute
from intellagent.value_shapes import named_in

PARCELS = Path(__file__).resolve().parents[1] / "environment" / "parcels"
TRACKING = "420183659201"
UNNAMED = "does not name the record your request is about"

LOOK_UP = ExpectedCall(tool="get_order", arguments={"order_id": "A1"}, writes=False)
CANCEL = ExpectedOutcome(calls=[LOOK_UP, ExpectedCall(tool="cancel_order", arguments={"order_id": "A1"}, writes=True)])


def hold(tracking: str = TRACKING, **arguments: str) -> ExpectedOutcome:
    """The parcel desk's outcome: the parcel `tracking` held."""
    return ExpectedOutcome(calls=[ExpectedCall(tool="hold_parcel", arguments={"tracking_number": tracking, **arguments},
                                               writes=True)])


def parcel_event(**fields) -> Event:
    """Ada wants her parcel held; she knows its row."""
    values = {"id": "P001", "policies": ["P1"], "challenge": 2, "expected": hold(),
              "scenario": "You are Ada Moss and want your parcel held at its depot until you are back.",
              "expected_behaviour": "The agent looks the parcel up, asks for confirmation, then holds it.",
              "user_rows": {"parcels": [{"tracking_number": TRACKING, "customer_id": "cus_48213",
                                         "label": "LBL/2024/10977", "status": "in transit"}]},
              "database": "events/P001.sqlite", **fields}
    return Event(**values)


def play_parcels(tmp_path: Path, script: ScriptedLLM, item: Event) -> Dialog:
    """Play the simulate stage on one parcel desk event, its world the desk's background."""
    settings = shop_settings(environment={key: str(PARCELS / name) for key, name in
                                          {"policy": "parcels.md", "schema": "schema.py", "tools": "tools.py",
                                           "background": "background.py"}.items()})
    config = load_config(settings, base_dir=tmp_path)
    folder = tmp_path / "run"
    asyncio.run(execute(config, output=folder, stages=(), progress=False))
    assert item.database is not None
    load_environment(config.environment).create_database(folder / item.database, seed=0)
    (folder / "events.jsonl").write_text(item.model_dump_json() + "\n")
    simulate(config, folder, script)
    (dialog,) = dialogs(folder)
    return dialog


def users_messages(dialog: Dialog) -> list[str]:
    return [message.content for message in dialog.transcript if message.role == "user"]


def sent_back(script: ScriptedLLM) -> list[str]:
    """The redraft notes the user was shown for naming no record."""
    return [call.last for call in script.calls(role="user") if UNNAMED in call.last]


def cancelled(script: ScriptedLLM, *user_turns: dict[str, str]) -> None:
    script.on(role="user", schema="UserTurn", replies=[*user_turns, stop("success", "cancelled")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Order A1 is cancelled."))
    script.on(role="critique", schema="Critique", reply=verdict(True))


def test_a_first_message_that_names_no_record_gets_its_reference_added_with_no_redraw(tmp_path, run_folder, script):
    cancelled(script, say("I want to cancel my order."))

    (dialog,) = play_shop(tmp_path, run_folder, script, events=[event(expected=CANCEL)])

    assert users_messages(dialog) == ["I want to cancel my order. My reference is A1."]
    assert len(script.calls(role="user")) == 2 and sent_back(script) == []


def test_a_first_message_that_names_the_record_in_any_case_is_sent_at_once(tmp_path, run_folder, script):
    cancelled(script, say("Please cancel order a1."))

    (dialog,) = play_shop(tmp_path, run_folder, script, events=[event(expected=CANCEL)])

    assert users_messages(dialog) == ["Please cancel order a1."]
    assert len(script.calls(role="user")) == 2 and sent_back(script) == []


def test_a_later_message_is_not_asked_for_the_record(tmp_path, run_folder, script):
    cancelled(script, say("Please cancel order A1."), say("Yes, go ahead."))
    script.on(role="chatbot", schema="ChatbotStep", replies=[reply("Shall I cancel it?"), reply("Cancelled.")])

    (dialog,) = play_shop(tmp_path, run_folder, script, events=[event(expected=CANCEL)])

    assert users_messages(dialog) == ["Please cancel order A1.", "Yes, go ahead."] and sent_back(script) == []


@pytest.mark.parametrize("expected", [None, ExpectedOutcome(calls=[LOOK_UP])], ids=["no outcome", "no write"])
def test_an_event_that_expects_no_write_asks_for_no_record(tmp_path, run_folder, script, expected):
    cancelled(script, say("I want to cancel my order."))

    (dialog,) = play_shop(tmp_path, run_folder, script, events=[event(expected=expected)])

    assert users_messages(dialog) == ["I want to cancel my order."] and sent_back(script) == []


def test_a_persona_that_keeps_its_details_back_is_not_asked_for_the_record(tmp_path, run_folder, script):
    cancelled(script, say("I want to cancel something I bought."))
    vague = builtin_personas()["vague"]

    (dialog,) = play_shop(tmp_path, run_folder, script, events=[event(expected=CANCEL, persona=vague)])

    assert users_messages(dialog) == ["I want to cancel something I bought."] and sent_back(script) == []


def test_a_published_tasks_user_is_not_asked_for_the_record(script):
    task = event(expected=CANCEL, task=TauTask(instruction="You want order A1 cancelled.", actions=[]))

    assert user_role(task, script, thoughts=False, request_ids=["A1"]).request_ids == ()
    assert user_role(event(expected=CANCEL), script, thoughts=False, request_ids=["A1"]).request_ids == ("A1",)


def test_on_digit_only_ids_a_first_message_without_the_tracking_number_gets_it_added(tmp_path, script):
    script.on(role="user", schema="UserTurn", replies=[say("Please hold my parcel at the depot."),
                                                       stop("success", "held")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("It is held."))
    script.on(role="critique", schema="Critique", reply=verdict(True))

    dialog = play_parcels(tmp_path, script, parcel_event())

    assert users_messages(dialog) == [f"Please hold my parcel at the depot. My reference is {TRACKING}."]


@pytest.fixture(scope="module")
def parcel_tables() -> Tables:
    settings = shop_settings(environment={"policy": str(PARCELS / "parcels.md"), "schema": str(PARCELS / "schema.py"),
                                          "tools": str(PARCELS / "tools.py")})
    return Tables(load_environment(load_config(settings).environment).tables)


def test_the_ids_are_the_expected_writes_identifying_arguments_the_user_knows(parcel_tables):
    assert request_ids(parcel_event(expected=hold(label="LBL/2024/10977")), parcel_tables) == [TRACKING]


def test_an_id_the_user_does_not_know_is_not_asked_for(parcel_tables):
    assert request_ids(parcel_event(expected=hold("420183659999")), parcel_tables) == []


def test_an_id_the_scenarios_facts_state_is_known(parcel_tables):
    told = parcel_event(expected=hold("420183659999"), scenario="You want your parcel held.\n\nFacts:\n"
                        "- 420183659999: Ada's parcel")

    assert request_ids(told, parcel_tables) == ["420183659999"]


def test_without_a_verified_outcome_the_parcel_the_entitled_change_acts_on_is_named(parcel_tables):
    unverified = parcel_event(expected=None, entitled=Entitlement(tool="hold_parcel", request="Hold my parcel."))

    assert request_ids(unverified, parcel_tables, acted_on=["tracking_number"]) == [TRACKING]
    assert request_ids(parcel_event(expected=None), parcel_tables, acted_on=["tracking_number"]) == []  # no change


@pytest.mark.parametrize(("text", "value", "named"), [
    (f"Hold parcel {TRACKING}, please.", TRACKING, True),
    (f"It is {TRACKING}0.", TRACKING, False),
    (f"It is 9{TRACKING}.", TRACKING, False),
    ("Cancel a1 please", "A1", True),
    ("Cancel A12 please", "A1", False),
    ("The flights of a basic economy booking", "basic_economy", True),
    ("a rule (no_change_on_basic_economy) broken", "basic_economy", True),
    ("Booked 2024-05-15T10:00:00", "2024-05-15", False),
])
def test_an_id_is_named_only_as_a_whole_token_in_any_case(text, value, named):
    assert named_in(text, value) is named
