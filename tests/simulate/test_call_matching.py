"""Calls matched as a person would: through the tool's argument schema (types coerced, defaults filled, text and
numbers in plain form, lists as multisets), each expected call credited per argument, and progress counted over
the expected calls made in a valid order. Floors: the empty and the reckless traces graded by hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from intellagent.artifacts import ExpectedCall, ExpectedOutcome, ForbiddenCall, ToolCall
from intellagent.environment import InjectedSession, Tool, tool, worlds
from intellagent.outcomes.floor import floor
from intellagent.outcomes.grading import grade
from intellagent.outcomes.matching import argument_credit, call_key, forbids


@tool(writes=True)
def refund(session: InjectedSession, order_id: str, line_id: int, lines: list[int], method: str = "original") -> str:
    """Refund order lines.

    Args:
        order_id: the order, ten digits.
        line_id: the line that triggered the refund.
        lines: every line refunded.
        method: where the money goes.
    """
    return "refunded"


@tool(writes=False)
def find_order(session: InjectedSession, order_id: str) -> str:
    """Find an order.

    Args:
        order_id: the order, ten digits.
    """
    return "found"


@dataclass
class Domain:
    """The two tools, as an environment lends them to the matcher and the grade."""

    tools: list[Tool] = field(default_factory=lambda: [find_order, refund])
    user_tools: list[Tool] = field(default_factory=list)

    @property
    def every_tool(self) -> list[Tool]:
        return [*self.tools, *self.user_tools]

    def tool(self, name: str) -> Tool:
        for candidate in self.every_tool:
            if candidate.name == name:
                return candidate
        raise KeyError(name)


DOMAIN: Any = Domain()
FIND = ExpectedCall(tool="find_order", arguments={"order_id": "0012345678"}, writes=False)
REFUND = ExpectedCall(tool="refund", arguments={"order_id": "0012345678", "line_id": 1, "lines": [1, 2]},
                      writes=True, policies=["P01"])
NO_STORE_CREDIT = ForbiddenCall(tool="refund", arguments={"method": "store credit"}, policies=["P02"])
OUTCOME = ExpectedOutcome(calls=[FIND, REFUND], forbidden=[NO_STORE_CREDIT])


def ran(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id="", name=name, arguments=arguments, result="ok")


def test_a_number_written_as_text_an_explicit_default_and_a_reordered_list_are_the_same_call() -> None:
    given = {"order_id": "0012345678", "line_id": "1", "lines": [2, 1], "method": "original"}

    assert call_key(DOMAIN, "refund", given) == call_key(DOMAIN, "refund", REFUND.arguments)
    assert call_key(DOMAIN, "refund", {**given, "line_id": 2}) != call_key(DOMAIN, "refund", REFUND.arguments)


def test_ids_of_digits_keep_their_leading_zeros_as_text_compares_them() -> None:
    assert call_key(DOMAIN, "find_order", {"order_id": "0012345678"}) != call_key(
        DOMAIN, "find_order", {"order_id": "12345678"})


def test_a_forbidden_write_matches_on_the_arguments_it_names_in_plain_form() -> None:
    assert forbids(DOMAIN, NO_STORE_CREDIT, "refund", {"order_id": "1", "line_id": 1, "lines": [1],
                                                       "method": "Store_Credit"})
    assert not forbids(DOMAIN, NO_STORE_CREDIT, "refund", {"order_id": "1", "line_id": 1, "lines": [1]})
    assert forbids(DOMAIN, NO_STORE_CREDIT.model_copy(update={"arguments": None}), "refund", {})


def test_a_call_that_misses_one_argument_gets_the_credit_of_the_others() -> None:
    made = {"order_id": "0012345678", "line_id": 1, "lines": [1]}

    assert argument_credit(DOMAIN, "refund", REFUND.arguments, made) == 3 / 4  # the default `method` counts too


def test_the_expected_calls_made_as_a_person_would_write_them_get_full_recall_and_the_reward() -> None:
    calls = [ran("find_order", order_id=" 0012345678 "),
             ran("refund", order_id="0012345678", line_id="1", lines=[2, 1], method="original")]

    result = grade(DOMAIN, OUTCOME, {}, calls=calls, replies=[], world={})

    assert result.recall == 1.0 and result.precision == 1.0 and result.argument_credit == 1.0
    assert result.matched == {0: 0, 1: 1} and result.progress == 1.0 and result.passed


def test_a_forbidden_write_made_fails_the_reward_even_where_the_world_ends_as_expected() -> None:
    calls = [ran("find_order", order_id="0012345678"),
             ran("refund", order_id="0012345678", line_id=1, lines=[1, 2], method="store credit")]

    result = grade(DOMAIN, OUTCOME, {}, calls=calls, replies=[], world={})

    assert result.breaking == {1: [0]} and result.forbidden_made and result.reward == 0.0


def test_progress_counts_the_expected_calls_made_in_a_valid_order_only() -> None:
    refund_first = [ran("refund", **REFUND.arguments), ran("find_order", order_id="0012345678")]

    result = grade(DOMAIN, OUTCOME, {}, calls=refund_first, replies=[], world={})

    assert result.recall == 1.0 and result.progress == 0.5  # the look-up came after the write it is for


def test_look_ups_between_two_writes_may_come_in_any_order() -> None:
    find_other = ExpectedCall(tool="find_order", arguments={"order_id": "0099999999"}, writes=False)
    outcome = ExpectedOutcome(calls=[FIND, find_other, REFUND])
    calls = [ran("find_order", order_id="0099999999"), ran("find_order", order_id="0012345678"),
             ran("refund", **REFUND.arguments)]

    assert grade(DOMAIN, outcome, {}, calls=calls, replies=[], world={}).progress == 1.0


def test_the_floors_of_hand_built_outcomes_are_those_counted_by_hand() -> None:
    delivery = OUTCOME.model_copy(update={"world": "events/S001.expected.delta.json"})
    refusal = ExpectedOutcome(forbidden=[NO_STORE_CREDIT])
    told = ExpectedOutcome(calls=[FIND], outputs=["ten dollars"])
    lookups = ExpectedOutcome(calls=[FIND])

    refunded = {"orders": worlds.TableChanges(columns=["order_id", "status"], key=["order_id"],
                                              rows=[["0012345678", "refunded"]], removed=[])}

    floors = {name: floor(DOMAIN, outcome, world) for name, (outcome, world) in {
        "delivery": (delivery, refunded), "refusal": (refusal, {}), "told": (told, {}), "lookups": (lookups, {})
    }.items()}

    assert {name: (f.nothing, f.reckless) for name, f in floors.items()} == {
        "delivery": (False, False), "refusal": (True, False), "told": (False, True), "lookups": (True, True)}
