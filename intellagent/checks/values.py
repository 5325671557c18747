"""Values as an assertion compares them: a chatbot's argument, a row's column, a value read from a policy.

The three seldom agree on form: an id of digits comes as text or as a number, a cabin as 'basic_economy'
or 'Basic economy', a date as '2024-05-15T15:00:00' or '2024-05-15, 15:00:00 EST'. Each is brought to
one plain form before it is compared, so an assertion decides on what was meant, not on how it was typed.
"""

from __future__ import annotations

import json
import math
import operator
import re
from datetime import datetime
from typing import Any

_SEPARATORS = re.compile(r"[\s_\-]+")
_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T ,]+(\d{2}:\d{2}(?::\d{2})?))?")


def plain(value: Any) -> object:
    """The form two values are compared in: a finite number as a float (a bool as 0 or 1, text of digits as
    its number), text in lower case with its separators as single spaces, anything else as canonical JSON."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        found = number(value)
        return found if found is not None else " ".join(_SEPARATORS.split(value.strip().lower())).strip()
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def number(value: Any) -> float | None:
    """The value as a finite number, if it is one (text of a number counts; a bool does not)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            found = float(value.strip())
        except ValueError:
            return None
        return found if math.isfinite(found) else None
    return None


def moment(value: Any) -> datetime | None:
    """The date (and time) a text states, if it starts with one in ISO order: '2024-05-15', '2024-05-15T15:00',
    '2024-05-15, 15:00:00 EST' (a zone name is left out: the policy's now and the world's dates share one)."""
    if not isinstance(value, str):
        return None
    found = _MOMENT.match(value.strip())
    if found is None:
        return None
    try:
        return datetime.fromisoformat(found.group(1) + (f"T{found.group(2)}" if found.group(2) else ""))
    except ValueError:
        return None


def compare(op: str, actual: Any, expected: Any) -> bool | None:
    """Whether `actual op expected` holds (eq, ne, lt, le, gt, ge, in, not_in); None when it cannot be told (an
    order between values that are not numbers)."""
    if op in ("in", "not_in"):
        options = expected if isinstance(expected, list) else [expected]
        inside = plain(actual) in {plain(option) for option in options}
        return inside if op == "in" else not inside
    if op in ("eq", "ne"):
        same = actual is not None and plain(actual) == plain(expected)
        return same if op == "eq" else not same
    left, right = number(actual), number(expected)
    if left is None or right is None:
        return None
    return getattr(operator, op)(left, right)  # lt, le, gt, ge: the operator module's own names


def within_days(value: Any, reference: Any, days: float) -> bool | None:
    """Whether the moment `value` states is at most `days` days from the moment `reference` states (None when
    either states none)."""
    first, second = moment(value), moment(reference)
    if first is None or second is None:
        return None
    return abs((second - first).total_seconds()) <= days * 86400
