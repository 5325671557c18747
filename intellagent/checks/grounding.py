"""Whether the facts a speaker states were given to it: the ids, codes of the world, dollar amounts and dates
in a message, each looked for in the texts the speaker could have taken it from.

The chatbot's grounding check (`builtin.grounded_facts`) asks it of the chatbot's messages, with the tool
results, the customer's words and the policy as sources; the audit of the simulated user
(`simulate.user_faults`) asks it of the user's messages, with its scenario, the rows it knows and the
chatbot's earlier messages as sources. One reading serves both, so that a fact counts as made up by the same
rule whoever states it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from intellagent.checks.identifiers import WORD_ID

if TYPE_CHECKING:
    from intellagent.checks.trace import Trace

_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ALNUM = re.compile(r"[^A-Za-z0-9]+")
CODE = re.compile(r"\b[A-Z][A-Z0-9]{2,}\b")
"""A code: a capitalised word of three or more capitals or digits ("JFK", "SFO2"). Stated, it counts only when
the world holds it as a value: the speaker then told a fact of the world no source gave it ("your flight goes to
JFK" with no tool call), which is a guess even when it is right."""
MAX_FACTOR = 9
"""An amount counts as grounded when it is a known amount times at most this (a price per person, say)."""


@dataclass(frozen=True)
class WorldFacts:
    """What tells a fact of the event's world in a speaker's words, besides ids of letters and digits and amounts
    and dates, which need no world to be told.

    Attributes:
        ids: finds words shaped like the world's identifiers (see `identifiers`); None: none but those.
        codes: the codes (see `CODE`) among the speaker's words that the world holds; another capitalised word
            is no fact.
    """

    ids: re.Pattern[str] | None = None
    codes: frozenset[str] = frozenset()

    @classmethod
    def said_in(cls, trace: Trace, said: Sequence[str]) -> WorldFacts:
        """What tells the world's facts in the messages `said`, learnt from the trace's world (not at all when
        nothing was said)."""
        if not said:
            return cls()
        codes = trace.world_holds({word for content in said for word in CODE.findall(content)})
        return cls(ids=trace.id_finder(), codes=frozenset(codes))


NO_WORLD = WorldFacts()
"""No world's facts: only ids of letters and digits, amounts and dates are told."""


class Grounds:
    """The texts a speaker may take its facts from.

    Args:
        sources: the texts, in any order.
    """

    def __init__(self, sources: Iterable[str]) -> None:
        self.text = "\n".join(sources)
        self.letters_and_digits = _ALNUM.sub("", self.text)  # an id restated in another layout ('#W123', a phone)

    @cached_property
    def amounts(self) -> set[float]:
        """The amounts a speaker may state from the sources: worked out at the first amount asked about, since
        most messages state none."""
        return _derivable({_cents(n) for n in _NUMBER.findall(self.text.replace(",", ""))})

    def ungrounded(self, message: str, world: WorldFacts = NO_WORLD) -> list[str]:
        """The facts `message` states that no source holds, each once, in the order found; `world` tells the
        facts of the world among its words."""
        unknown = [token for token in _DATE.findall(message) if token not in self.text]
        unknown += [token for token in _ids(message, world)
                    if token not in self.text and _ALNUM.sub("", token) not in self.letters_and_digits]
        unknown += [word for word in CODE.findall(message) if word in world.codes and word not in self.text]
        stated = _AMOUNT.findall(message)
        unknown += [f"${amount}" for amount in stated if _cents(amount) not in self.amounts] if stated else []
        return list(dict.fromkeys(unknown))


def stated_facts(text: str, world: WorldFacts = NO_WORLD) -> list[str]:
    """The dates, ids and dollar amounts `text` states, each once, read as `Grounds.ungrounded` reads a message."""
    return list(dict.fromkeys([*_DATE.findall(text), *_ids(text, world), *(f"${a}" for a in _AMOUNT.findall(text))]))


def _ids(text: str, world: WorldFacts) -> list[str]:
    """The words of `text` shaped like ids: of letters and digits, or like the world's own."""
    return WORD_ID.findall(text) + (world.ids.findall(text) if world.ids else [])


def _cents(amount: str) -> float:
    return round(float(amount.replace(",", "")), 2)


def _derivable(known: set[float]) -> set[float]:
    """The amounts a speaker may state from `known` ones: a multiple of one, or the sum or difference of two."""
    multiples = {round(k * n, 2) for k in known for n in range(1, MAX_FACTOR + 1)}
    pairs = {round(value, 2) for a in known for b in known for value in (a + b, abs(a - b))}
    return multiples | pairs
