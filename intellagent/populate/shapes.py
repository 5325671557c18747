"""The shape of a column's values, learnt from existing values and from the column's description.

New values imitate existing ones: 'gift_card_7815826' gives 'gift_card_' and seven other digits;
'mia_li_3668' for Mia Li gives 'emma_stone_4821' for Emma Stone; dates keep their format, their range
of days, their hours of the day and their step ('2024-05-06T08:15' in data on the quarter hour gives
another quarter hour in opening hours).
A description such as "'regular', 'silver' or 'gold'" gives the choices, "e.g. '4WQ150'" an
example, and "'YYYY-MM-DD'" a date format.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from math import gcd
from typing import Any

from intellagent.value_shapes import RUNS, parsed

_QUOTED = re.compile(r"'([^']+)'")
_DAY = 24 * 3600
CATEGORICAL_MAX = 25
"""Values with at most this many distinct ones, each seen twice on average, are a set of choices."""
_FORMAT_TOKENS = (("YYYY", "%Y"), ("HH:MM", "%H:%M"), ("MM", "%m"), ("DD", "%d"), ("SS", "%S"))


@dataclass(frozen=True)
class Hints:
    """What a column's description says about its values."""

    choices: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    date_format: str | None = None


@dataclass(frozen=True)
class DateShape:
    """A date or time format and where new values fall: a span of days, hours of the day and a step.

    Attributes:
        format: the strftime format values are written in.
        low: the earliest moment; its date is the first day a value may fall on.
        high: the latest moment; its date is the last such day.
        day_start: the earliest time of day, in seconds after midnight.
        day_end: the latest time of day, in seconds after midnight.
        step: the seconds between two possible times of day (60: whole minutes).
    """

    format: str
    low: datetime
    high: datetime
    day_start: int = 0
    day_end: int = _DAY - 60
    step: int = 60

    def draw(self, rng: random.Random) -> str:
        """A moment on a day of the span, at a time of day in range and on the step, in the format."""
        days = (self.high.date() - self.low.date()).days
        day = self.low.date() + timedelta(days=rng.randint(0, max(days, 0)))
        slots = max((self.day_end - self.day_start) // self.step, 0)
        seconds = self.day_start + self.step * rng.randint(0, slots)
        return datetime.combine(day, time()).replace(hour=seconds // 3600, minute=seconds // 60 % 60,
                                                     second=seconds % 60).strftime(self.format)


def date_shape(values: Sequence[Any], form: str) -> DateShape | None:
    """The shape of values written in `form`: their days, their hours of the day and the step between them."""
    # Each distinct value parsed once: a background world repeats a few dates thousands of times, and the
    # shape (extremes, step) is the same over the distinct values.
    distinct = {value for value in values if isinstance(value, str)}
    moments = [moment for value in distinct if (moment := parsed(value, form)) is not None]
    if not moments:
        return None
    seconds = [moment.hour * 3600 + moment.minute * 60 + moment.second for moment in moments]
    earliest = min(seconds)
    step = 0
    for second in seconds:
        step = gcd(step, second - earliest)
    if "%H" not in form:
        return DateShape(form, min(moments), max(moments), 0, 0, _DAY)
    finest = 1 if "%S" in form else 60
    return DateShape(form, min(moments), max(moments), min(seconds), max(seconds), max(step, finest))


@dataclass
class Derivation:
    """What a value borrowed from a template row may take from the new row's other columns."""

    template: dict[str, Any] = field(default_factory=dict)
    row: dict[str, Any] = field(default_factory=dict)


def hints(description: str) -> Hints:
    """Choices, examples and a date format read from a column description."""
    before, _, after = description.partition("e.g.")
    quoted_before = _QUOTED.findall(before)
    date_format = next((_strftime(token) for token in quoted_before if "YYYY" in token or "HH:MM" in token), None)
    choices = tuple(token for token in quoted_before if "<" not in token)
    return Hints(
        choices=choices if len(choices) >= 2 and date_format is None else (),
        examples=tuple(_QUOTED.findall(after)),
        date_format=date_format,
    )


def choices_of(values: Sequence[Any]) -> list[Any]:
    """The distinct values, sorted, when they are a few repeated choices; else none.

    Lists and objects are never choices: they are JSON values, whose shape is learnt part by part (see
    `json_shapes`).
    """
    if not values or any(isinstance(value, dict | list) for value in values):
        return []
    distinct = sorted(set(values), key=str)
    return distinct if len(distinct) <= CATEGORICAL_MAX and len(values) >= 2 * len(distinct) else []


def birth_date_shape(form: str = "%Y-%m-%d") -> DateShape:
    """Birth dates of adults, fixed (never counted back from today, so a seed always gives the same date)."""
    return DateShape(form, datetime(1945, 1, 1), datetime(2005, 12, 31), 0, 0, _DAY)


def imitate(value: str, rng: random.Random, *, derivation: Derivation | None = None, letters: bool = False) -> str:
    """A new value shaped like `value`: digits redrawn, separators kept.

    Args:
        value: the value to imitate.
        rng: the seeded source of the new digits (and letters).
        derivation: a template row and the new row: a letter run equal to another column of the
            template (a name inside an id) is replaced by that column of the new row.
        letters: redraw letter runs too (for keys made of letters only, which digits cannot vary).
    """
    parts = []
    for run in RUNS.findall(value):
        if run.isdigit():
            parts.append(_digits(len(run), rng, keep_leading=run[0] != "0"))
        elif run.isalpha():
            derived = _derived(run, derivation) if derivation else None
            parts.append(derived if derived is not None else (_letters(run, rng) if letters else run))
        else:
            parts.append(run)
    return "".join(parts)


def derives_from_row(value: str, derivation: Derivation) -> bool:
    """Whether some letter run of `value` comes from another column of its template row."""
    return any(_derived(run, derivation) is not None for run in RUNS.findall(value) if run.isalpha())


def _derived(run: str, derivation: Derivation) -> str | None:
    for column, source in derivation.template.items():
        if isinstance(source, str) and _plain(source) == run.lower() and len(run) > 1:
            replacement = derivation.row.get(column)
            if isinstance(replacement, str) and _plain(replacement):
                new = _plain(replacement)
                return new.upper() if run.isupper() else new.capitalize() if run.istitle() else new
    return None


def _plain(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _digits(length: int, rng: random.Random, *, keep_leading: bool) -> str:
    digits = [rng.choice(string.digits) for _ in range(length)]
    if keep_leading and length > 1 and digits[0] == "0":
        digits[0] = rng.choice(string.digits[1:])
    return "".join(digits)


def _letters(run: str, rng: random.Random) -> str:
    pool = string.ascii_uppercase if run.isupper() else string.ascii_lowercase
    return "".join(rng.choice(pool) for _ in run)


def _strftime(token: str) -> str:
    for ours, theirs in _FORMAT_TOKENS:
        token = token.replace(ours, theirs)
    return token
