"""Columns that hold people's details (names, addresses, phones, birth dates), made by Faker when the data agrees.

A column's name suggests a Faker provider (`first_name`, `city`, `zip`), but a name alone can mislead: a
product's `name` is no person's, an order's `state` may be 'pending'. So the background's values have the
last word: a column whose values are a few repeated choices keeps to them, and a column named like a
person's name is one only when its values are people's names.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from faker.providers.person.en_US import Provider as Names

PERSON_FIELDS = {
    "first_name": "first_name", "firstname": "first_name", "given_name": "first_name",
    "last_name": "last_name", "lastname": "last_name", "surname": "last_name", "family_name": "last_name",
    "name": "name", "full_name": "name", "fullname": "name",
    "phone": "phone_number", "phone_number": "phone_number", "telephone": "phone_number", "mobile": "phone_number",
    "address": "street_address", "address1": "street_address", "address_line1": "street_address",
    "street": "street_address", "street_address": "street_address",
    "address2": "secondary_address", "address_line2": "secondary_address",
    "city": "city", "state": "state_abbr", "zip": "zipcode", "zipcode": "zipcode", "zip_code": "zipcode",
    "postcode": "postcode", "postal_code": "postcode", "company": "company",
}
"""Column names whose values are a person's details, and the Faker provider that makes them."""

BIRTH_DATES = {"dob", "birth_date", "birthdate", "date_of_birth", "birthday"}
"""Column names whose values are birth dates."""

_NAME_PROVIDERS = {"first_name", "last_name", "name"}
_SAMPLE = 50
"""Values of a column read to tell whether they are people's names."""


def faker_provider(name: str, values: Sequence[Any], *, choices: bool) -> str | None:
    """The Faker provider that makes a column's values, if its name suggests one and its data agrees.

    Args:
        name: the column's name (or a JSON key's).
        values: its values in the background world (none: nothing disagrees).
        choices: whether those values are a few repeated choices, which then win over Faker.
    """
    provider = PERSON_FIELDS.get(name.lower())
    if provider is None or not values:
        return provider
    if choices:
        return None
    if provider in _NAME_PROVIDERS:
        sample = [value for value in values[:_SAMPLE] if isinstance(value, str)]
        named = sum(any(word in _person_names() for word in value.split()) for value in sample)
        return provider if sample and named * 2 >= len(sample) else None
    return provider


@cache
def _person_names() -> frozenset[str]:
    """The first and last names Faker draws from (en_US): a value with one of them names a person."""
    return frozenset(Names.first_names) | frozenset(Names.last_names)
