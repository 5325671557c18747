"""What the simulated user must be able to tell the chatbot for the expected outcome to be reachable.

A chatbot can make the expected calls only if it learns their arguments; the ones that are the customer's
own (their id, their booking's number, the names and dates on their records) are the customer's to give.
So the user is shown the values of the expected calls' arguments that the event's own rows hold, each under
the argument's name: worked out from the event alone, with no call, the same every time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from intellagent.artifacts import Event

MAX_FACTS = 10
"""Facts a user is shown at most."""


def customer_facts(event: Event) -> list[str]:
    """The arguments of the event's expected calls that are the customer's own, as `name: value` lines, in the
    order the calls need them (none when the event has no outcome)."""
    if event.expected is None:
        return []
    own = {_shown(value) for rows in event.user_rows.values() for row in rows for value in row.values()
           if _is_fact(value)}
    facts: list[str] = []
    for call in event.expected.calls:
        for name, value in _leaves(call.arguments):
            fact = f"{name}: {_shown(value)}"
            if _is_fact(value) and _shown(value) in own and fact not in facts:
                facts.append(fact)
    return facts[:MAX_FACTS]


def _leaves(arguments: Any, name: str = "") -> Iterator[tuple[str, Any]]:
    """Every plain value in a call's arguments, under the name of the argument or key that holds it."""
    if isinstance(arguments, dict):
        for key, value in arguments.items():
            yield from _leaves(value, str(key))
    elif isinstance(arguments, list):
        for item in arguments:
            yield from _leaves(item, name)
    else:
        yield name, arguments


def _is_fact(value: Any) -> bool:
    """A value a customer may state: a word or a number, not a flag or an empty value."""
    return isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip() != ""


def _shown(value: Any) -> str:
    return str(value).strip()
