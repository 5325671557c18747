"""Free-text answers cut at their bound end at their last whole sentence."""

from __future__ import annotations

from intellagent.text_limits import trimmed


def test_an_answer_cut_at_its_bound_ends_at_its_last_whole_sentence():
    text = "It books flights. It changes them. It cancels th"
    assert trimmed(text, limit=len(text)) == "It books flights. It changes them."


def test_an_answer_well_within_its_bound_is_kept_whole():
    text = "It books flights. It changes them, e.g. cabins"
    assert trimmed(f"  {text}\n", limit=500) == text
