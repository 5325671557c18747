"""A finished dialog as checks read it: messages, tool calls, and the database before and after."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import Message

if TYPE_CHECKING:
    from intellagent.environment import Environment


@dataclass(frozen=True)
class Call:
    """One tool call of the chatbot, where it was made, and what it returned."""

    turn: int
    name: str
    arguments: dict[str, Any]
    result: str | None

    def shown(self) -> str:
        """The call as one line, as findings cite it."""
        return f"{self.name}({json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)})"


@dataclass(frozen=True)
class Trace:
    """Everything a check may look at.

    Attributes:
        messages: the transcript; a call's `turn` indexes it.
        environment: the domain (its tools, validators and policy).
        before: the event's database as a dump (table → rows), what the chatbot found.
        database: the dialog's database file, what the chatbot left, if the dialog had one.
        changed: whether that file differs from the event's at all (False: nothing was written).
    """

    messages: list[Message]
    environment: Environment
    before: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    database: Path | None = None
    changed: bool = True

    @cached_property
    def calls(self) -> list[Call]:
        """Every tool call, in order."""
        return [Call(turn, call.name, call.arguments, call.result) for turn, message in enumerate(self.messages)
                for call in message.tool_calls]

    @cached_property
    def after(self) -> dict[str, list[dict[str, Any]]]:
        """The dialog's database when it ended, as a dump (the event's if the dialog had none)."""
        if self.database is None:
            return self.before
        with self.environment.session(self.database) as session:
            return self.environment.dump(session)

    def rows(self, table: str, **match: Any) -> list[dict[str, Any]]:
        """The rows of `table` before the dialog whose columns equal `match`."""
        return [row for row in self.before.get(table, []) if all(row.get(k) == v for k, v in match.items())]

    def last_before(self, turn: int, role: str) -> int | None:
        """The index of the last message of `role` ('user' or 'chatbot') before `turn`, if any."""
        return next((index for index in range(turn - 1, -1, -1) if self.messages[index].role == role), None)
