"""Which siblings make preference pairs: one worse by the margin or condemned by a verdict, never a tie, never the
same answer twice; and what a pair holds: the conversation up to where the two part, then one message each."""

from __future__ import annotations

from collections import Counter

from intellagent.artifacts import UserFault
from intellagent.rollouts.pairs import ALSO_GOOD, DUPLICATE, SAME, TIE, preference_pairs
from intellagent.rollouts.training_data import training_data
from tests.rollouts.trees import CANCEL, CONTEXT, LOOK_UP, said, tree_of, turn

ASK = "I found A1. Shall I cancel it?"
DONE = "A1 is cancelled."


def positive_path(*siblings: object) -> list[object]:
    """The careful path (0.1 looks A1 up and asks, 0.1.1 cancels it and ends passed) and `siblings`."""
    return [turn("0.1", said(ASK, LOOK_UP, answer="Yes."), 0.5),
            turn("0.1.1", said(DONE, CANCEL, answer=None), 1.0, ended=True, matched=2), *siblings]


def pairs_of(*siblings: object, unpaired: Counter[str] | None = None) -> list[tuple[str, str, str]]:
    tree = tree_of(*positive_path(*siblings))  # type: ignore[arg-type]
    return [(p.metadata.path, p.metadata.rejected, p.metadata.evidence)
            for p in preference_pairs(tree, CONTEXT, unpaired)]


def test_a_sibling_whose_partial_reward_ties_the_chosen_ones_makes_no_pair() -> None:
    unpaired: Counter[str] = Counter()

    pairs = pairs_of(turn("0.2", said("Which order is it?", LOOK_UP), 0.5), unpaired=unpaired)

    assert pairs == []
    assert unpaired == Counter({TIE: 1})


def test_a_sibling_closer_than_the_margin_is_a_tie() -> None:
    assert pairs_of(turn("0.2", said("Which order is it?"), 0.35)) == []


def test_a_sibling_lower_by_the_margin_makes_a_pair() -> None:
    assert pairs_of(turn("0.2", said("Which order is it?"), 0.3)) == [("0.1", "0.2", "margin")]


def test_a_sibling_whose_path_ended_failed_makes_a_pair_whatever_its_partial_reward() -> None:
    declined = turn("0.1.2", said("I cannot cancel it.", answer="Too bad."), 0.5, ended=False)

    assert pairs_of(declined) == [("0.1.1", "0.1.2", "outcome")]


def test_a_sibling_a_program_found_a_breach_in_makes_a_pair_whatever_its_partial_reward() -> None:
    hasty = turn("0.2", said("Cancelled.", LOOK_UP), 0.5, findings=("cancel_order was called without a yes",))

    assert pairs_of(hasty) == [("0.1", "0.2", "program")]


def test_a_failed_path_whose_user_was_at_fault_is_no_verdict_on_the_chatbot() -> None:
    fault = UserFault(kind="narrated", turn=2, evidence="(sighs)")
    failed = turn("0.1.2", said("Anything else?", answer="(sighs)"), 0.9, ended=False, faults=(fault,))

    assert pairs_of(failed) == []


def test_a_sibling_that_says_and_calls_what_the_chosen_turn_does_is_the_same_answer() -> None:
    unpaired: Counter[str] = Counter()

    pairs = pairs_of(turn("0.2", said(ASK, LOOK_UP, answer="Hm?"), 0.0), unpaired=unpaired)

    assert pairs == [] and unpaired == Counter({SAME: 1})


def test_two_siblings_that_say_the_same_make_one_pair() -> None:
    unpaired: Counter[str] = Counter()

    pairs = pairs_of(turn("0.2", said("Which order?"), 0.0), turn("0.3", said("Which order?", answer="A1."), 0.0),
                     unpaired=unpaired)

    assert pairs == [("0.1", "0.2", "margin")] and unpaired == Counter({DUPLICATE: 1})


def test_a_sibling_a_positive_path_runs_through_is_no_negative() -> None:
    unpaired: Counter[str] = Counter()
    other = [turn("0.2", said("Which order?", answer="A1."), 0.0),
             turn("0.2.1", said(DONE, LOOK_UP, CANCEL, answer=None), 1.0, ended=True, matched=2)]

    pairs = pairs_of(*other, unpaired=unpaired)

    assert ("0.1", "0.2", "margin") not in pairs and unpaired[ALSO_GOOD] == 2  # 0.2 for 0.1, 0.1 for 0.2


def test_a_pair_of_turns_that_share_a_call_holds_it_and_its_result_in_the_prompt() -> None:
    rushed = turn("0.2", said("Cancelled.", LOOK_UP, CANCEL), 0.5, findings=("cancelled without a yes",))
    (pair,) = preference_pairs(tree_of(*positive_path(rushed)), CONTEXT)

    assert [m.role for m in pair.prompt] == ["system", "user", "assistant", "tool"]
    assert pair.prompt[2].tool_calls and pair.prompt[2].tool_calls[0].function.name == "get_order"
    assert [m.content for m in pair.chosen] == [ASK]
    assert [call.function.name for m in pair.rejected for call in m.tool_calls or []] == ["cancel_order"]


def test_a_message_labelled_both_desirable_and_not_after_one_conversation_is_no_kto_record() -> None:
    # After the same look-up, "Which order?" ends failed in 0.2 and leads to a positive path in 0.3.
    which = "Which order?"
    tree = tree_of(*positive_path(turn("0.2", said(which, LOOK_UP), 0.5, ended=False),
                                  turn("0.3", said(which, LOOK_UP, answer="A1."), 0.5),
                                  turn("0.3.1", said(DONE, CANCEL, answer=None), 1.0, ended=True, matched=2),
                                  turn("0.4", said("Nope.", LOOK_UP), 0.5, ended=False)))

    data = training_data([tree], CONTEXT)

    assert [(e.metadata.path, e.label) for e in data.kto] == [("0.1", True), ("0.4", False)]
    assert data.ledger.both_ways == 1 and data.ledger.merged["kto.jsonl"] == 2  # ASK, and "Nope.", twice each
