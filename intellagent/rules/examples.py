"""A rule run on its own examples: it must find no breach in a dialog it keeps, and one in a dialog it breaks.

An example (`artifacts.rules.Example`) becomes a dialog's trace as a check reads it: a greeting, then each step
(the user's words, the chatbot's, a call with what it returned, made by the chatbot, or by the user on its own
side), on the rows given as the world the chatbot found, ending in the rows given as the world it left (by
default the same). A rule that fails one of its examples, or has none of either kind, is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from intellagent.artifacts import Message, Rule, ToolCall
from intellagent.artifacts.rules import Example
from intellagent.checks.compiled_checks import breaches
from intellagent.checks.trace import Trace
from intellagent.environment import Environment

GREETING = "Hello, how can I help you today?"


def example_trace(example: Example, environment: Environment) -> Trace:
    """The trace of an example dialog (after a greeting, which states nothing)."""
    messages = [Message(role="chatbot", content=GREETING)]
    for number, turn in enumerate(example.dialog, start=1):
        if turn.call is None:
            role = "user" if turn.user is not None else "chatbot"
            messages.append(Message(role=role, content=turn.user if turn.user is not None else turn.chatbot or ""))
            continue
        result = turn.result if isinstance(turn.result, str) else json.dumps(turn.result)
        call = ToolCall(id=f"example_{number}", name=turn.call, arguments=turn.args, result=result)
        messages.append(Message(role="user" if turn.by == "user" else "chatbot", content="", tool_calls=[call]))
    return Trace(messages=messages, environment=environment, before=example.world,
                 ended=example.ended if example.ended is not None else example.world)


def example_problems(rule: Rule, environment: Environment) -> Iterator[str]:
    """Why a rule fails its examples: one it keeps that it finds broken, one it breaks that it finds kept, or none
    of a kind."""
    if not rule.examples.keeps:
        yield "it has no example it keeps"
    if not rule.examples.breaks:
        yield "it has no example it breaks"
    for number, example in enumerate(rule.examples.keeps, start=1):
        found = next(breaches(rule, example_trace(example, environment)), None)
        if found is not None:
            yield f"it breaks its keeps example {number}{_named(example)}: {found.message}"
    for number, example in enumerate(rule.examples.breaks, start=1):
        if next(breaches(rule, example_trace(example, environment)), None) is None:
            yield f"it finds nothing wrong in its breaks example {number}{_named(example)}"


def _named(example: Example) -> str:
    return f" ({example.note})" if example.note else ""
