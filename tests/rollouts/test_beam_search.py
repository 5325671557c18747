"""The beam search on the shop: the candidates of each turn differ, and the beam keeps the rewarded path."""

from __future__ import annotations

from pathlib import Path

from tests.rollouts.shop_rollouts import records, roll_out, rollout_config, shop_folder, shop_script, tree


def test_the_beam_keeps_the_path_that_makes_the_expected_calls(tmp_path: Path) -> None:
    config = rollout_config(tmp_path)
    folder = shop_folder(tmp_path, config)

    roll_out(config, folder, shop_script(config))

    searched = tree(folder)
    rewarded = searched.rewarded()
    assert [turn.id for turn in rewarded] == ["0.1.1"]
    assert [turn.reward for turn in searched.path("0.1.1")] == [0.0, 0.5, 1.0]
    assert records(folder)[0].status == "ok"
