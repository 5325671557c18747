"""Free-text answers: cut where a model starts repeating itself, or at their last whole sentence."""

from __future__ import annotations

from intellagent.text_limits import trimmed

LOOP = "John will be told that he cannot add a bag or change the cabin without paying the difference."


def test_an_answer_cut_at_its_bound_ends_at_its_last_whole_sentence():
    text = "It books flights. It changes them. It cancels th"
    assert trimmed(text, limit=len(text)) == "It books flights. It changes them."


def test_the_last_sentence_at_the_bound_goes_even_with_a_full_stop():
    text = "It books flights. It cancels them when the airline has cancelled the."
    assert trimmed(text, limit=len(text)) == "It books flights."


def test_an_answer_well_within_its_bound_is_kept_whole():
    text = "It books flights. It changes them, e.g. cabins"
    assert trimmed(f"  {text}\n", limit=500) == text


def test_a_long_sentence_said_again_ends_the_answer():
    text = f"The chatbot declines the request. {LOOP} {LOOP} {LOOP} {LOOP[:30]}"
    assert trimmed(text, limit=len(text)) == f"The chatbot declines the request. {LOOP}"


def test_a_repeated_run_of_short_sentences_ends_the_answer():
    cycle = "He asks to add a bag. The chatbot refuses. He asks to pay. The chatbot refuses."
    assert trimmed(f"{cycle} {cycle} He asks", limit=500) == cycle


def test_short_sentences_that_recur_in_new_company_are_kept():
    text = "He asks to book. The chatbot agrees. He asks to cancel. The chatbot agrees."
    assert trimmed(text, limit=500) == text


def test_what_is_kept_keeps_its_line_breaks():
    text = "Bags:\n\n| tier | free |\n| gold | 3 |\n\nMore cost 50 dollars. Then the rest was cu"
    assert trimmed(text, limit=len(text)) == "Bags:\n\n| tier | free |\n| gold | 3 |\n\nMore cost 50 dollars."
