"""The details a user has given in a conversation (ids, codes, dates, e-mail addresses) that no tool call has
used yet, and a reply that asks for one of them again.

A small model holding the id the user typed asks for it once more, instead of looking it up; shown the
details in view, it uses them. This is how the question is put to the model, not a rule of any policy: which
tool to call, and whether to call one at all, stays the model's choice. A detail is a token of letters,
digits and the marks ids are made of that mixes letters and digits, holds an `@`, or is a number of at least
four digits: "A1", "4WQ491", "mia_li_3668", "2024-05-15", "ana@example.com", "0012345678"; words and small
numbers ("3 bags", "$50") are not details.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from intellagent.artifacts import ToolCall

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@\-/]*[A-Za-z0-9]")
MIN_DIGITS = 4
"""Digits a detail of digits alone has at least: "2", "10" and "$50" are amounts, not details to look up."""

_ASKS_FOR = re.compile(
    r"\b(?:provide|share|give|tell|confirm|send|enter|type|let me know|what(?:'s| is| was)|could you|can you|"
    r"may I (?:have|get)|I(?:'ll| will)? need)\b[^?.!]{0,80}?\b(?:ids?|numbers?|codes?|e-?mails?|references?|"
    r"details)\b",
    re.IGNORECASE,
)


def given_details(user_messages: Iterable[str]) -> list[str]:
    """The details the user's messages hold, in the order given, each once."""
    found: dict[str, None] = {}
    for message in user_messages:
        for token in _TOKEN.findall(message):
            if _is_detail(token):
                found.setdefault(token, None)
    return list(found)


def _is_detail(token: str) -> bool:
    digits = sum(character.isdigit() for character in token)
    letters = any(character.isalpha() for character in token)
    return "@" in token or (digits > 0 and letters) or digits >= MIN_DIGITS


def unused_details(details: Sequence[str], calls: Iterable[ToolCall]) -> list[str]:
    """The details no call's arguments hold yet (compared without case)."""
    used = " ".join(json.dumps(call.arguments, ensure_ascii=False) for call in calls).lower()
    return [detail for detail in details if detail.lower() not in used]


def asks_again(reply: str, unused: Sequence[str]) -> bool:
    """Whether a reply asks the user for an id, a number or the like while details the user gave are unused: it
    should have used them."""
    return bool(unused) and bool(_ASKS_FOR.search(reply))
