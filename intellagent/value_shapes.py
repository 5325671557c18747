"""What a value's text shows of it: whether it is written as a date, and whether it has an identifier's shape.

Populate reads it to write new values like the world's own (`populate.shapes`); the checks read it to recognise
an identifier the chatbot states, whatever the world's ids look like (`checks.identifiers`). Both stand on this
module, so neither needs the other for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

RUNS = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]+")
"""The runs a value is made of: letters, digits, or anything else (separators)."""
DATE_FORMATS = (
    "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%SZ",
    "%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y", "%d/%m/%Y", "%d.%m.%Y", "%H:%M:%S", "%H:%M",
)
"""The date and time formats recognised in data, most specific first (a value must match one whole)."""
_NUMERIC = re.compile(r"[-+]?[0-9][0-9,]*(?:\.[0-9]+)?")
_DATE_LIKE = re.compile(r"[0-9TZ:/. +-]+")  # the characters of `DATE_FORMATS`' values: only such text may be a date
MIN_ID_DIGITS = 3
"""Digits an identifier with letters or separators holds at least ('HAT001', '#W1234567')."""
MIN_BARE_ID_DIGITS = 6
"""Digits an identifier made of digits only holds at least: shorter numbers are quantities, prices, years."""


def date_format_of(values: Sequence[Any]) -> str | None:
    """The one date/time format every value (of the first twenty) is written in, if any."""
    sample = [value for value in values[:20] if isinstance(value, str)]
    if not sample or len(sample) < min(len(values), 20):
        return None
    return next((candidate for candidate in DATE_FORMATS if all(candidate in formats_of(value) for value in sample)),
                None)


def id_pattern(value: str) -> str | None:
    """The shape of an identifier as a regular expression, or None when `value` has no identifier's shape.

    The parts populate's imitation redraws are generalised: a digit run keeps its length, a letter run its case but
    not its length (ids are built from names of every length); separators stay. So 'gift_card_7815826' gives
    `[a-z]+_[a-z]+_[0-9]{7}` and '#W1234567' gives `#[A-Z]+[0-9]{7}` (escaped). An identifier is one word that holds at
    least `MIN_ID_DIGITS` digits, or `MIN_BARE_ID_DIGITS` when it is made of digits only (a shorter number
    is as likely a quantity, a price or a year), and is no date, time of day or decimal number.
    """
    digits = sum(ch.isdigit() for ch in value)
    if value.isdigit():
        return f"[0-9]{{{len(value)}}}" if len(value) >= MIN_BARE_ID_DIGITS else None
    if digits < MIN_ID_DIGITS or not value.isprintable() or any(ch.isspace() for ch in value):
        return None
    if _NUMERIC.fullmatch(value) or (_DATE_LIKE.fullmatch(value) and (":" in value or formats_of(value))):
        return None  # a number, a date, or a time of day ('01:30:00+1' is the next day's)
    parts = []
    for run in RUNS.findall(value):
        if run.isdigit():
            parts.append(f"[0-9]{{{len(run)}}}")
        elif run.isalpha():
            parts.append("[A-Z]+" if run.isupper() else "[a-z]+" if run.islower() else "[A-Za-z]+")
        else:
            parts.append(re.escape(run))
    return "".join(parts)


@lru_cache(maxsize=4096)  # every event asks again of the same background values; a failed parse is costly
def formats_of(value: str) -> frozenset[str]:
    """The formats of `DATE_FORMATS` that `value` is written in."""
    return frozenset(form for form in DATE_FORMATS if parsed(value, form) is not None)


def parsed(value: str, form: str) -> datetime | None:
    """`value` read as a moment written in `form`, or None when it is not."""
    try:
        return datetime.strptime(value, form)
    except ValueError:
        return None


def named_in(text: str, value: str) -> bool:
    """Whether `text` names `value` as a whole token, in any case, an underscore read as a space: 'a1' names A1 and
    'basic economy' names basic_economy; 'A12' does not name A1, nor '#A1' or 'A1-2'."""
    spoken = value.replace("_", " ")
    return re.search(rf"(?<![\w#-]){re.escape(spoken)}(?![\w-])", text.replace("_", " "), re.IGNORECASE) is not None


NAMED_CELL = 3
"""Characters a cell's value needs, at least, before a text can be said to name it (not "no", "0")."""


def named_cell(text: str, value: Any) -> bool:
    """Whether `text` names a cell's `value`: a text or a number long enough to be told from a word (see
    `named_in`)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float) or len(str(value)) < NAMED_CELL:
        return False
    return named_in(text, str(value))
