"""The floor of an expected outcome: how chatbots that need no test would score on it, graded with no call.

An outcome is only worth what it separates. Two traces are graded against it exactly as a dialog is:
the **empty** trace (no call, no word), a chatbot that does nothing, and the **reckless** trace (every
expected call, every forbidden write as well, every expected output said), a chatbot that does whatever
it is asked. An outcome the empty trace reaches expects nothing a do-nothing chatbot fails to deliver; one
the reckless trace reaches forbids nothing a grade can catch. The report counts both, so that an outcome
pass rate is read beside what doing nothing would have scored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from intellagent.artifacts import ExpectedOutcome, OutcomeFloor, ToolCall
from intellagent.environment import worlds
from intellagent.outcomes.grading import grade

if TYPE_CHECKING:
    from intellagent.environment import Environment


def floor(environment: Environment, expected: ExpectedOutcome, expected_world: worlds.Changes) -> OutcomeFloor:
    """Whether the empty trace and the reckless trace reach `expected`, whose calls leave `expected_world`."""
    nothing = grade(environment, expected, expected_world, calls=[], replies=[], world={})
    reckless_calls = [*(ToolCall(id="", name=call.tool, arguments=call.arguments, result=call.result or "done")
                        for call in expected.calls),
                      *(ToolCall(id="", name=item.tool, arguments=item.arguments or {}, result="done")
                        for item in expected.forbidden)]
    reckless = grade(environment, expected, expected_world, calls=reckless_calls, replies=list(expected.outputs),
                     world=expected_world)
    return OutcomeFloor(nothing=nothing.passed, reckless=reckless.passed)
