"""The shape of a JSON column's values, learnt from existing values as a column's is, part by part.

An object keeps the keys of one of the objects seen, and each key's value is drawn as a column of that
name would be: by Faker when the key names a person's detail and the data agrees (an address's street,
city and zip), among the values seen when they are a few repeated choices ('color': 'blue'), in the
format and span seen for a date, in the range seen for a number, or else imitated (digits redrawn). A
list has a length seen and items drawn alike, all different when no list seen repeats an item. A value
is drawn again when it equals one seen (a few times at most), so a new row is not a copy of an existing
one in disguise.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from faker import Faker

from intellagent.populate.people import faker_provider
from intellagent.populate.shapes import CATEGORICAL_MAX, DateShape, choices_of, date_shape, imitate
from intellagent.value_shapes import date_format_of

ATTEMPTS = 10
"""Draws made for a value that differs from every value seen."""


class JsonShape(ABC):
    """What values of one place in a JSON document look like; made by `learn`."""

    @abstractmethod
    def draw(self, rng: random.Random, faker: Faker) -> Any:
        """A new value of this shape."""


@dataclass(frozen=True)
class ObjectShape(JsonShape):
    """Objects: the key sets seen (each drawn as often as it was seen), and what each key's values look like."""

    skeletons: tuple[tuple[str, ...], ...]
    fields: dict[str, JsonShape]

    def draw(self, rng: random.Random, faker: Faker) -> dict[str, Any]:
        """An object with the keys of one seen, each value drawn anew."""
        return {key: self.fields[key].draw(rng, faker) for key in rng.choice(self.skeletons)}


@dataclass(frozen=True)
class ListShape(JsonShape):
    """Lists: the lengths seen, what their items look like, and whether items repeat in a list."""

    lengths: tuple[int, ...]
    item: JsonShape
    distinct: bool

    def draw(self, rng: random.Random, faker: Faker) -> list[Any]:
        """A list of a length seen; its items all different when no list seen repeats one."""
        length = rng.choice(self.lengths)
        items: list[Any] = []
        for _ in range(length * ATTEMPTS):
            if len(items) == length:
                break
            item = self.item.draw(rng, faker)
            if not (self.distinct and item in items):
                items.append(item)
        return items


@dataclass(frozen=True)
class ScalarShape(JsonShape):
    """Numbers, text, true/false: drawn as a column of the same name and values would be (see `learn`)."""

    values: tuple[Any, ...]
    choices: tuple[Any, ...] = ()
    provider: str | None = None
    dates: DateShape | None = None

    @classmethod
    def of(cls, name: str, values: Sequence[Any]) -> ScalarShape:
        """The shape of the values seen at a place called `name`."""
        if not values or not all(isinstance(value, str) for value in values):
            return cls(values=tuple(values))
        # Inside a document, a few values that repeat are choices (sizes '7' to '11', 'S' to 'XL'): a key holds
        # fewer values than a column, too few to be seen twice each.
        choices = choices_of(values) or (sorted(set(values)) if _few_repeated(values) else [])
        form = date_format_of(values)
        return cls(values=tuple(values), choices=tuple(choices),
                   provider=faker_provider(name, values, choices=bool(choices)),
                   dates=date_shape(values, form) if form else None)

    def draw(self, rng: random.Random, faker: Faker) -> Any:
        """A value of the kind seen (see the module's docstring)."""
        values = self.values
        if not values:
            return None
        if all(isinstance(value, int | float) and not isinstance(value, bool) for value in values):
            return _number(values, rng)
        if not all(isinstance(value, str) for value in values):
            return rng.choice(values)  # true/false, or a mixture: as seen
        if self.provider is not None:
            return str(getattr(faker, self.provider)())
        if self.choices:
            return rng.choice(self.choices)
        return self.dates.draw(rng) if self.dates else imitate(rng.choice(values), rng)


def learn(values: Sequence[Any], name: str = "") -> JsonShape:
    """The shape of `values`, the non-empty values of one place (a column, a key, a list's items).

    Args:
        values: what is seen there.
        name: the column's or key's name, which may call for a Faker provider.
    """
    if values and all(isinstance(value, dict) for value in values):
        skeletons = tuple(tuple(value) for value in values)
        keys = dict.fromkeys(key for value in values for key in value)
        fields = {key: learn([value[key] for value in values if value.get(key) is not None], key) for key in keys}
        return ObjectShape(skeletons=skeletons, fields=fields)
    if values and all(isinstance(value, list) for value in values):
        items = [item for value in values for item in value if item is not None]
        distinct = all(len(value) == len({_frozen(item) for item in value}) for value in values)
        return ListShape(lengths=tuple(len(value) for value in values), item=learn(items, name), distinct=distinct)
    return ScalarShape.of(name, values)


def draw_new(shape: JsonShape, seen: Sequence[Any], rng: random.Random, faker: Faker) -> Any:
    """A value of `shape` that equals none of `seen`, if a few draws find one (else the last drawn)."""
    value = shape.draw(rng, faker)
    for _ in range(ATTEMPTS - 1):
        if value not in seen:
            break
        value = shape.draw(rng, faker)
    return value


def _few_repeated(values: Sequence[Any]) -> bool:
    distinct = set(values)
    return len(distinct) <= CATEGORICAL_MAX and len(distinct) < len(values)


def _number(values: Sequence[int | float], rng: random.Random) -> int | float:
    low, high = min(values), max(values)
    if all(isinstance(value, int) for value in values):
        return rng.randint(int(low), int(high))
    return round(rng.uniform(low, high), 2)


def _frozen(item: Any) -> Any:
    return repr(item) if isinstance(item, dict | list) else item
