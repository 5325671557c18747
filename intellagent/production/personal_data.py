"""Finding common personal data in a text: e-mail addresses, phone numbers, card numbers, IBANs, street addresses.

Each finder gives the spans it found with a key that stands for the value, the same however it is written (a
phone number as E.164, a card number or an IBAN without its spaces), so that one value keeps one mask. What a
maintained library can decide, it decides, offline:

- phone numbers: Google's libphonenumber (`phonenumbers`) finds them and checks that they are valid numbers of
  their country (written with their international prefix, or of `region` without it). A bare run of digits is
  taken for an id, which a domain's data is full of, and left;
- card numbers: 13 to 19 digits (alone, or in the groups cards print), beginning as issuers' numbers begin (2 to
  6), whose Luhn check digit (`stdnum.luhn`) is valid;
- IBANs: a country code, check digits and the account, valid by their country's length and format and their
  mod-97 check (`stdnum.iban`);
- street addresses: those `pyap` (a maintained regular-expression parser) finds, US, Canadian and British ones
  with their town and postcode;
- e-mail addresses: a pattern, as no library finds them in running text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import phonenumbers
import pyap
from stdnum import iban, luhn

from intellagent.config import PersonalData


@dataclass(frozen=True)
class Found:
    """A span of personal data in a text: its kind (`PersonalData`, or what a team marked), and the key of its value."""

    start: int
    end: int
    kind: str
    key: str


_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
_CARD = re.compile(r"(?<![\d-])(?:\d{13,19}"  # unbroken, or in the groups cards print: 4-4-4-4(-n), 4-6-5, 4-6-4
                   r"|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,4})?|\d{4}[ -]\d{6}[ -]\d{4,5})(?![\d-])")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}(?![A-Za-z0-9])")
_STREET = re.compile(r"\b\d+[A-Za-z]?,?\s+[A-Za-z]")  # a house number before a street's name, which every address has
_UK_POSTCODE = re.compile(r"\b[A-Za-z]{1,2}\d[A-Za-z\d]?\s*\d[A-Za-z]{2}\b")  # pyap's British addresses end with one


def emails(text: str) -> Iterator[Found]:
    """The e-mail addresses in `text`."""
    for match in _EMAIL.finditer(text):
        yield Found(match.start(), match.end(), "email", match.group(0).lower())


def cards(text: str) -> Iterator[Found]:
    """The card numbers in `text`: the digits of an issuer's number with a valid check digit."""
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn.is_valid(digits):
            yield Found(match.start(), match.end(), "card", digits)


def ibans(text: str) -> Iterator[Found]:
    """The IBANs in `text` (a candidate that runs into the next word is shortened to the valid IBAN it starts
    with)."""
    for match in _IBAN.finditer(text):
        written = match.group(0)
        groups = [m.end() for m in re.finditer(r"[A-Z0-9]+", written)]
        for end in reversed(groups):
            compact = iban.compact(written[:end])
            if len(compact) >= 15 and iban.is_valid(compact):
                yield Found(match.start(), match.start() + end, "iban", compact)
                break


def phones(text: str, region: str) -> Iterator[Found]:
    """The valid phone numbers in `text`, written as phone numbers (with a + or a separator)."""
    if sum(character.isdigit() for character in text) < 7:  # no number can be there: spare the matcher
        return
    for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
        if match.raw_string.isdigit():
            continue
        key = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
        yield Found(match.start, match.end, "phone", key)


def addresses(text: str) -> Iterator[Found]:
    """The street addresses in `text` that `pyap` finds (US, Canadian and British ones: the countries it knows)."""
    if not _STREET.search(text):  # spare the parser, slow on long texts, what cannot hold an address
        return
    countries = ("US", "CA", "GB") if _UK_POSTCODE.search(text) else ("US", "CA")
    for country in countries:
        for address in pyap.parse(text, country=country):
            start, end = address.match_start, address.match_end
            written = text[start:end]
            start += len(written) - len(written.lstrip(" ,"))  # a match may take in the space before it
            end -= len(written) - len(written.rstrip(" ,"))
            yield Found(start, end, "address", " ".join(text[start:end].lower().split()))


def finders(kinds: list[PersonalData], region: str) -> list[Callable[[str], Iterator[Found]]]:
    """The finders of `kinds`, in the order they mask: the most precise first, so that an address never takes in an
    IBAN's digits nor a phone number a card's."""
    every: dict[PersonalData, Callable[[str], Iterator[Found]]] = {
        "email": emails, "iban": ibans, "card": cards, "phone": lambda text: phones(text, region),
        "address": addresses,
    }
    return [every[kind] for kind in ("email", "iban", "card", "phone", "address") if kind in kinds]
