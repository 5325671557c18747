"""What the simulated user must be able to tell the chatbot for the expected outcome to be reachable.

A chatbot can make the expected calls only if it learns their arguments; the ones that are the customer's
own (their id, their booking's number, the names and dates on their records) are the customer's to give.
So the user is shown the values of the expected calls' arguments that the event's own rows hold, each under
the argument's name: worked out from the event alone, with no call, the same every time. Of what the user knows,
the ids of the records its request is about are what a chatbot needs first, to look anything up: the user names
one of them when it first says what it wants (`request_ids`; `simulate.drafts` sends back a first message
without one).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import Event
from intellagent.environment.worlds import record_key
from intellagent.value_shapes import named_in

if TYPE_CHECKING:
    from intellagent.populate.tables import Tables

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
        for name, value in leaves(call.arguments):
            fact = f"{name}: {_shown(value)}"
            if _is_fact(value) and _shown(value) in own and fact not in facts:
                facts.append(fact)
    return facts[:MAX_FACTS]


def request_ids(event: Event, tables: Tables, *, acted_on: Sequence[str] = ()) -> list[str]:
    """The ids of the records the event's request is about that its user knows: the values of the expected writes'
    arguments that name a key or a reference of a table the event's rows fill, where the user's rows or its scenario
    (whose facts list the records it holds) state them; none when the event expects no write.

    The record the writes change most comes first (the booking whose cabin and bags change, not the card that pays
    for it), then the others in the order the writes give them. An event without an outcome (none could be
    verified) whose user is entitled to a change has the records that change acts on instead: `acted_on`, the
    change's required arguments, each naming a table's own key of which the user's rows hold one record.
    """
    if event.expected is None:
        return _acted_on_ids(event, tables, acted_on)
    identifying = {column for table in event.user_rows if table in tables.names for column in tables[table].identifying}
    own = {_shown(value) for rows in event.user_rows.values() for row in rows for value in row.values()
           if _is_fact(value)}
    ids: list[str] = []
    for call in (call for call in event.expected.calls if call.writes):
        for name, value in call.arguments.items():
            shown = _shown(value)
            if (name in identifying and _is_fact(value) and shown not in ids
                    and (shown in own or named_in(event.scenario, shown))):
                ids.append(shown)
    changed = [record_key(record) for record in event.expected.touched]
    return sorted(ids, key=lambda found: -sum(found in key for key in changed))


def _acted_on_ids(event: Event, tables: Tables, acted_on: Sequence[str]) -> list[str]:
    ids = []
    for argument in acted_on if event.entitled is not None else ():
        table = tables.keyed_by(argument)
        held = event.user_rows.get(table.name, []) if table is not None else []
        if len(held) == 1 and _is_fact(held[0].get(argument)):
            ids.append(_shown(held[0][argument]))
    return ids


def leaves(arguments: Any, name: str = "") -> Iterator[tuple[str, Any]]:
    """Every plain value in a call's arguments, under the name of the argument or key that holds it."""
    if isinstance(arguments, dict):
        for key, value in arguments.items():
            yield from leaves(value, str(key))
    elif isinstance(arguments, list):
        for item in arguments:
            yield from leaves(item, name)
    else:
        yield name, arguments


def _is_fact(value: Any) -> bool:
    """A value a customer may state: a word or a number, not a flag or an empty value."""
    return isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip() != ""


def _shown(value: Any) -> str:
    return str(value).strip()
