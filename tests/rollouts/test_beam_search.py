"""The beam search on the shop: the candidates of each turn differ, and the beam keeps the rewarded path."""

from __future__ import annotations

from pathlib import Path

from intellagent.artifacts import Dialog, Finding, OutcomeGrade
from intellagent.rollouts.positives import positives
from intellagent.rollouts.search import partial_reward
from tests.rollouts.shop_rollouts import STALL, records, roll_out, rollout_config, shop_folder, shop_script, tree


def test_the_beam_keeps_the_path_that_makes_the_expected_calls(tmp_path: Path) -> None:
    config = rollout_config(tmp_path)
    folder = shop_folder(tmp_path, config)

    roll_out(config, folder, shop_script(config))

    searched = tree(folder)
    rewarded = positives(searched)
    assert [turn.id for turn in rewarded] == ["0.1.1"]
    assert [turn.reward for turn in searched.path("0.1.1")] == [0.0, 0.5, 1.0]
    assert records(folder)[0].status == "ok"


def test_a_narrow_beam_goes_on_with_the_candidate_of_the_higher_partial_reward(tmp_path: Path) -> None:
    config = rollout_config(tmp_path, beam=1)
    folder = shop_folder(tmp_path, config)

    roll_out(config, folder, shop_script(config, other=STALL), stages=("rollouts",))

    searched = tree(folder)
    level = {turn.id: (turn.reward, turn.kept) for turn in searched.children("0")}
    assert searched.path("0")[0].kept
    assert level == {"0.1": (0.5, True), "0.2": (0.0, False)}
    assert searched.children("0.2") == []


def test_a_path_that_made_a_forbidden_write_or_broke_a_check_has_no_partial_reward() -> None:
    grade = OutcomeGrade(reward=0.0, state_match=False, expected_calls=2, made_calls=1, matched_calls=1, progress=0.5)

    assert partial_reward(Dialog(id="S001", status="incomplete", grade=grade)) == 0.5
    assert partial_reward(Dialog(id="S001", status="incomplete",
                                 grade=grade.model_copy(update={"forbidden_made": ["cancel_order(order_id=\"A1\")"]}))
                          ) == 0.0
    assert partial_reward(Dialog(id="S001", status="incomplete", grade=grade,
                                 findings=[Finding(message="cancel_order was called without an explicit yes")])) == 0.0
    assert partial_reward(Dialog(id="S001", status="incomplete")) == 0.0


def test_a_path_whose_simulated_user_was_at_fault_is_no_positive(tmp_path: Path) -> None:
    config = rollout_config(tmp_path)
    folder = shop_folder(tmp_path, config)
    script = shop_script(config, asking="(sighs) Please cancel my order A1.")

    roll_out(config, folder, script, stages=("rollouts",))

    searched = tree(folder)
    (done,) = [turn for turn in searched.ended() if turn.grade and turn.grade.passed]
    assert done.id == "0.1.1" and not done.findings
    assert [fault.kind for fault in done.user_faults] == ["narrated"]
    assert positives(searched) == []
