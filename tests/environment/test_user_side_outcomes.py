"""Populate and the user's side of the world: the user is told its own rows by their keys alone, the expected
outcome may expect the user's own fixes, and a grade counts calls per side."""

from __future__ import annotations

from intellagent.artifacts import ExpectedCall, ExpectedOutcome, ToolCall
from intellagent.checks import Trace
from intellagent.environment import Environment
from intellagent.outcomes.answer import proposal_schema, world_tools
from intellagent.outcomes.grading import grade
from intellagent.outcomes.rehearsal import rehearsed
from intellagent.populate.final import user_rows
from tests.environment.conftest import CARD, INSTALL

FIX = {"install_id": INSTALL, "on": True}


def rows(wallet: Environment) -> list:
    return [wallet.table("cards")(card_number=CARD, holder="Ines Okafor", date_of_birth="1990-01-31", blocked=True),
            wallet.table("apps")(install_id=INSTALL, card_number=CARD, settings={"online_payments": False})]


def test_the_user_knows_its_own_rows_by_their_keys_and_the_event_keeps_them_whole(wallet: Environment) -> None:
    known, own_side = user_rows(rows(wallet))
    assert known == {"cards": [{"card_number": CARD, "holder": "Ines Okafor", "date_of_birth": "1990-01-31",
                                "blocked": True}],
                     "apps": [{"install_id": INSTALL}]}
    assert own_side == {"apps": [{"install_id": INSTALL, "card_number": CARD, "settings": {"online_payments": False}}]}


def test_a_domain_without_a_user_side_tells_the_user_every_row_whole(library: Environment) -> None:
    book = library.table("books")(isbn="111", title="Dune", copies=2)
    assert user_rows([book]) == ({"books": [{"isbn": "111", "title": "Dune", "copies": 2}]}, {})


def test_an_expected_outcome_may_name_the_users_own_tools(wallet: Environment) -> None:
    assert [tool.name for tool in world_tools(wallet)] == ["get_card", "unblock_card", "open_card_settings",
                                                           "switch_online_payments"]
    schema = proposal_schema(wallet, ("P1",)).model_json_schema()
    assert "switch_online_payments" in str(schema["$defs"])


def test_a_grade_counts_the_calls_of_each_side_of_the_world(wallet: Environment) -> None:
    expected = ExpectedOutcome(calls=[ExpectedCall(tool="unblock_card", arguments={"card_number": CARD}, writes=True),
                                      ExpectedCall(tool="switch_online_payments", arguments=FIX, writes=True)])
    made = [ToolCall(id="1", name="get_card", arguments={"card_number": CARD}, result="{}"),
            ToolCall(id="2", name="unblock_card", arguments={"card_number": CARD}, result="unblocked"),
            ToolCall(id="3", name="open_card_settings", arguments={"install_id": INSTALL}, result="off")]
    result = grade(wallet, expected, {}, calls=made, replies=[], world={})
    assert result.sides == {"company": [1, 2, 1], "user": [1, 1, 0]}
    assert result.missed == [f"switch_online_payments(install_id={INSTALL}, on=true)"]


def test_a_domain_without_user_tools_grades_without_sides(library: Environment) -> None:
    expected = ExpectedOutcome(calls=[ExpectedCall(tool="find_book", arguments={"isbn": "111"}, writes=False)])
    made = [ToolCall(id="1", name="find_book", arguments={"isbn": "111"}, result="{}")]
    assert grade(library, expected, {}, calls=made, replies=[], world={}).sides == {}


def test_a_rehearsed_outcome_has_the_user_make_its_own_calls_as_asked(wallet: Environment) -> None:
    messages, positions = rehearsed(wallet, [("unblock_card", {"card_number": CARD}, "unblocked"),
                                             ("switch_online_payments", FIX, "online payments: on")])
    trace = Trace(messages=messages, environment=wallet)
    assert [(call.turn, call.name) for call in trace.calls] == [(4, "unblock_card")]
    assert [(call.turn, call.name) for call in trace.user_calls] == [(6, "switch_online_payments")]
    assert positions == {4: 0, 6: 1}
