"""Symbols substitute as whole words; new values keep the shape of the values they imitate."""

from __future__ import annotations

import random

from intellagent.populate.shapes import Derivation, hints, imitate
from intellagent.populate.symbols import SymbolTable


def test_substitution_replaces_whole_symbols_and_their_brackets_only() -> None:
    symbols = SymbolTable({"U1": "mia_li_3668", "U10": "bo_ek_1000"})

    text = symbols.substitute("U1 and <U10> asked about {U1}'s booking; XU1 and U12 stay.")

    assert text == "mia_li_3668 and bo_ek_1000 asked about mia_li_3668's booking; XU1 and U12 stay."


def test_an_imitated_id_keeps_its_shape_and_takes_the_names_of_the_new_row() -> None:
    derivation = Derivation(template={"first_name": "Mia", "last_name": "Li"},
                            row={"first_name": "Emma", "last_name": "Stone"})

    value = imitate("mia_li_3668", random.Random(1), derivation=derivation)

    assert value.startswith("emma_stone_") and len(value) == len("emma_stone_") + 4 and value[-4:].isdigit()


def test_a_description_gives_choices_examples_and_a_date_format() -> None:
    assert hints("'regular', 'silver' or 'gold'").choices == ("regular", "silver", "gold")
    assert hints("six characters, e.g. '4WQ150'").examples == ("4WQ150",)
    assert hints("booking time, 'YYYY-MM-DDTHH:MM:SS' EST").date_format == "%Y-%m-%dT%H:%M:%S"
