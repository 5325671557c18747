"""The expected calls rehearsed as a conversation, for the domain's checks to read as they read a dialog.

A check reads a dialog's trace: its messages and tool calls, the world as the chatbot found it and as it
left it. An expected outcome is checked the same way, on the conversation a rule-keeping chatbot would
have: it makes the calls in order, and states each write (the tool and each of its arguments) and gets
the user's explicit yes before it, so that the framework's conversational rules hold by construction and
a check's finding can only be about the calls themselves. The worlds are read where the outcome is run, in
populate's copy of the background: the event's world as the background's rows with the event's own in their
place (`EventRows`), the world the calls leave from the session they ran in (`SessionRows`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, SQLModel

from intellagent.artifacts import Message, ToolCall
from intellagent.checks.trace import LazyRows
from intellagent.environment import database

if TYPE_CHECKING:
    from intellagent.environment import Environment

GREETING = "Hello, how can I help you today?"
REQUEST = "I need your help, please."
STATED = "Here is exactly what I am about to do: {call}. Shall I go ahead?"
AGREED = "Yes, please go ahead."
ASKED = "Please do this on your side."
DONE = "Done."

Rows = Mapping[str, list[dict[str, Any]]]


def rehearsed(environment: Environment, calls: list[tuple[str, dict[str, Any], str]]) -> tuple[list[Message],
                                                                                                dict[int, int]]:
    """The conversation of a chatbot making `calls` (tool, arguments, result) in order, and, for each message
    that carries a call, the call's position among `calls`. A call of one of the user's own tools is the user's,
    made as the chatbot asked, as in a dialog."""
    messages = [Message(role="chatbot", content=GREETING), Message(role="user", content=REQUEST)]
    positions: dict[int, int] = {}
    for position, (tool, arguments, result) in enumerate(calls):
        call = ToolCall(id=f"expected_{position + 1}", name=tool, arguments=arguments, result=result)
        if environment.tool(tool).side == "user":
            messages.append(Message(role="chatbot", content=ASKED))
            positions[len(messages)] = position
            messages.append(Message(role="user", content=DONE, tool_calls=[call]))
            continue
        if environment.tool(tool).writes:
            named = ", ".join(f"{name} {value}" for name, value in arguments.items())
            stated = STATED.format(call=f"{tool} with {named}")
            messages += [Message(role="chatbot", content=stated), Message(role="user", content=AGREED)]
        positions[len(messages)] = position
        messages.append(Message(role="chatbot", content="", tool_calls=[call]))
    return messages, positions


class EventRows(Mapping[str, list[dict[str, Any]]]):
    """An event's world as a dump (table → rows): the background's rows, with the event's own rows in place of
    those they change and without those it removes; each table worked out when first asked for."""

    def __init__(self, background: Rows, own: dict[str, list[dict[str, Any]]],
                 replaced: dict[str, set[tuple[Any, ...]]], keys: dict[str, list[str]]) -> None:
        """Args:
            background: the background world's rows, by table.
            own: the rows the event adds or changes, by table, as a dump gives them.
            replaced: per table, the keys of the background rows the event changes or removes.
            keys: per table, its primary-key columns.
        """
        self._background = background
        self._own = own
        self._replaced = replaced
        self._keys = keys
        self._made: dict[str, list[dict[str, Any]]] = {}

    def __getitem__(self, name: str) -> list[dict[str, Any]]:
        rows = self._background[name]
        if name not in self._own and name not in self._replaced:
            return rows
        if name not in self._made:
            key, replaced = self._keys[name], self._replaced.get(name, set())
            kept = [row for row in rows if tuple(row[column] for column in key) not in replaced]
            self._made[name] = kept + self._own.get(name, [])
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._background)

    def __len__(self) -> int:
        return len(self._background)


class SessionRows(LazyRows):
    """The world of an open session, each table read when first asked for."""

    def __init__(self, environment: Environment, session: Session) -> None:
        super().__init__(environment)
        self._session = session

    def _dump(self, table: type[SQLModel]) -> list[dict[str, Any]]:
        return database.dump(self._session, [table])[table.__tablename__]
