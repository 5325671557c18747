"""Disclosure: the chatbot states the details of a row only once a call entitles it.

A row of the rule's table is **spoken of** from the first message in which the value of its `key` comes up:
said by the user, given to a tool or returned by one. A chatbot message that then states the value of one
of the rule's `fields` of that row (as stored: a status, an amount, a date) **discloses** it. A disclosure
is allowed once one of the rule's earlier calls was made, successfully, with its values tied to the row
(`same`: a bare name is the row's column): "the order's status only after the customer was found by e-mail,
and found to be the order's customer".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from intellagent.artifacts import Disclosure, Finding
from intellagent.checks.terms import Subject, matched
from intellagent.checks.trace import Trace

MIN_SHOWN = 2
"""Characters a stated value has at least: a one-letter code says too little to be a row's detail."""


def disclosures(rule: Disclosure, trace: Trace) -> Iterator[tuple[int, dict[str, Any], str]]:
    """Each chatbot message that states a detail of a row spoken of by then: its index, the row, the field."""
    heard = ""  # everything said, given or returned so far, which a row's key may come up in
    told: set[int] = set()
    for turn, message in enumerate(trace.messages):
        heard += " " + " ".join([message.content if message.role == "user" else "",
                                 *(f"{call.arguments} {call.result or ''}" for call in message.tool_calls)])
        if message.role != "chatbot" or not message.content:
            continue
        for row in trace.before.get(rule.table, []):
            if id(row) in told or not _said(row.get(rule.key), heard):
                continue
            field = next((name for name in rule.fields if _said(row.get(name), message.content)), None)
            if field is not None:
                told.add(id(row))
                yield turn, row, field


def disclosure_breaches(rule: Disclosure, trace: Trace) -> Iterator[Finding]:
    """A finding for each row whose details the chatbot stated before a call entitled it."""
    for turn, row, field in disclosures(rule, trace):
        earlier = [call for call in trace.calls if call.turn <= turn]
        subject = Subject(values=row, earlier=earlier, world=trace.before)
        if any(matched(allowed, subject) for allowed in rule.after):
            continue
        wanted = " or ".join(allowed.text() for allowed in rule.after)
        yield Finding(message=f"stated the {field} of {rule.table} row {row.get(rule.key)!r} before {wanted}",
                      turn=turn, row=f"{rule.table} row ({rule.key}={row.get(rule.key)!r})")


def _said(value: Any, text: str) -> bool:
    """Whether `text` states `value` word for word (a whole number without its '.0')."""
    if value is None or isinstance(value, bool | dict | list):
        return False
    shown = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    found = re.search(rf"(?<![\w#]){re.escape(shown)}(?!\w)", text, re.IGNORECASE)
    return len(shown) >= MIN_SHOWN and found is not None
