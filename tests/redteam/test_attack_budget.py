"""What an attack costs: its turns and attempts bound it, its rule's budget stops it cleanly, and a rerun resumes
it without asking again what was answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.config import Config
from intellagent.errors import RunAborted
from intellagent.llm import ModelSpec
from tests.redteam.desk_attacks import attack_script, attacks, desk_config, desk_folder, gives_way_on, red_team, tree

PRICED = ModelSpec(provider="scripted", prices=(1000.0, 1000.0))
"""A scripted model at $1,000 per million tokens, so that a few calls cost something."""


def priced(tmp_path: Path, **red_team: object) -> Config:
    config = desk_config(tmp_path, **red_team)
    return config.model_copy(update={"llm": config.llm.model_copy(update={"default": PRICED}),
                                     "chatbot": config.chatbot.model_copy(update={"llm": PRICED})})


def played(folder: Path) -> list[tuple[str, bool, list[tuple[str, str]]]]:
    """Each attempt of the attack: its id, whether it was refused, and its messages (not when they were said)."""
    return [(a.id, a.refused, [(m.role, m.content) for m in a.messages]) for a in tree(folder).attempts]


def test_the_attempts_bound_an_attack_that_never_breaks_the_rule(tmp_path: Path) -> None:
    config = desk_config(tmp_path, max_attempts=4)
    folder = desk_folder(tmp_path, config)
    script = attack_script(gives_way_on(99))

    red_team(config, folder, script)

    (attack,) = attacks(folder)
    assert (attack.status, attack.breached, attack.attempts, attack.rolled_back) == ("ok", False, 4, 4)
    assert len(script.calls(role="chatbot")) == 4 and len(script.calls(role="attacker")) == 5


def test_a_branch_ends_at_max_turns_when_the_chatbot_keeps_going_along(tmp_path: Path) -> None:
    config = desk_config(tmp_path, max_turns=2, max_attempts=9)
    folder = desk_folder(tmp_path, config)

    red_team(config, folder, attack_script(lambda request: {"thought": "", "action": "reply",
                                                            "message": "Let me see what I can do."}))

    (attack,) = attacks(folder)
    assert (attack.status, attack.breached, attack.attempts) == ("ok", False, 2)
    assert tree(folder).attempts[-1].ended == "incomplete"


def test_the_rule_s_budget_stops_the_attack_cleanly_and_keeps_what_it_played(tmp_path: Path) -> None:
    config = priced(tmp_path, budget_usd_per_rule=1.0)
    folder = desk_folder(tmp_path, config)

    result = red_team(config, folder, attack_script(gives_way_on(3)))

    (attack,) = attacks(folder)
    assert result.info.status == "done"
    assert attack.status == "stopped" and "red_team.budget_usd_per_rule" in attack.reason
    assert 0 < len(tree(folder).attempts) < 4 and not attack.breached


def test_a_rerun_with_a_larger_budget_resumes_the_attack_without_asking_again(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    whole.mkdir()
    config = priced(whole, budget_usd_per_rule=100.0)
    uninterrupted = attack_script(gives_way_on(3))
    red_team(config, desk_folder(whole, config), uninterrupted)
    stopped = priced(tmp_path, budget_usd_per_rule=1.0)
    folder = desk_folder(tmp_path, stopped)
    first, second = attack_script(gives_way_on(3)), attack_script(gives_way_on(3))

    red_team(stopped, folder, first)
    red_team(stopped.model_copy(update={"red_team": config.red_team}), folder, second)

    assert attacks(folder)[-1].status == "ok" and attacks(folder)[-1].breached
    assert len(first.requests) + len(second.requests) == len(uninterrupted.requests)
    assert played(folder) == played(whole / "run")


def test_a_finished_attack_makes_no_call_when_the_run_is_resumed(tmp_path: Path) -> None:
    config = desk_config(tmp_path)
    folder = desk_folder(tmp_path, config)
    red_team(config, folder, attack_script(gives_way_on(3)))
    again = attack_script(gives_way_on(3))

    red_team(config, folder, again)

    assert again.requests == []
    assert [attack.status for attack in attacks(folder)] == ["ok"]


def test_max_cost_stops_the_attacks_cleanly_and_a_rerun_resumes_them(tmp_path: Path) -> None:
    config = priced(tmp_path, budget_usd_per_rule=100.0, strategies=["crescendo", "authority"])
    limited = config.model_copy(update={"budget": config.budget.model_copy(update={"max_cost_usd": 1.0})})
    folder = desk_folder(tmp_path, limited)

    with pytest.raises(RunAborted, match="--max-cost"):
        red_team(limited, folder, attack_script(gives_way_on(3)))
    assert [attack.status for attack in attacks(folder)] == ["stopped", "stopped"]

    red_team(config, folder, attack_script(gives_way_on(3)))
    assert {attack.id: attack.status for attack in attacks(folder)} == {
        "P2.crescendo.S001": "ok", "P2.authority.S001": "ok"}
