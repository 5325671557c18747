"""Symbolic variables: the names a plan gives to values it needs (U1, R1, D2...), and their values.

A plan writes its rows with symbols where the same value must appear in several places (a user's id
in the user row and in the reservation that names it). The symbol table maps each symbol to the one
value it gets, so that every occurrence agrees, and substitutes those values into text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

SYMBOL_PATTERN = r"^[A-Z]{1,3}[0-9]{1,2}$"
"""A symbol: one to three capital letters and a number (U1, R2, PM1)."""

_SYMBOL = re.compile(SYMBOL_PATTERN)


@dataclass(frozen=True)
class Symbol:
    """A cell of a planned row that holds a symbol rather than a value."""

    name: str


def looks_like_symbol(value: Any) -> bool:
    """Whether a value is written the way symbols are (a cell such as 'R2' is one even if undeclared)."""
    return isinstance(value, str) and bool(_SYMBOL.match(value))


class SymbolTable:
    """The value of every resolved symbol."""

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        self.values: dict[str, Any] = dict(values or {})

    def __contains__(self, name: object) -> bool:
        return name in self.values

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def set(self, name: str, value: Any) -> None:
        """Give a symbol its value (the first value given wins: every occurrence must agree)."""
        self.values.setdefault(name, value)

    def as_text(self) -> dict[str, str]:
        """Symbol → value as text, sorted by symbol, for the event record."""
        return {name: str(self.values[name]) for name in sorted(self.values)}

    def substitute(self, text: str) -> str:
        """`text` with every resolved symbol replaced by its value.

        A symbol is replaced only as a whole word, with any brackets the model put around it
        (`<U1>`, `{U1}`, `[U1]`), longest names first so that U10 is not read as U1 and a 0.
        """
        names = sorted(self.values, key=len, reverse=True)
        if not names:
            return text
        pattern = re.compile(r"[<{\[]?\b(" + "|".join(map(re.escape, names)) + r")\b[>}\]]?")
        return pattern.sub(lambda match: str(self.values[match.group(1)]), text)
