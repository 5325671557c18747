"""What the search costs: beam and branch bound its calls, the budget stops it, and a rerun resumes it without
asking again what was answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.artifacts import RolloutTree
from intellagent.config import Config
from intellagent.errors import RunAborted
from intellagent.llm import ModelSpec, ScriptedLLM
from intellagent.rollouts.positives import positives
from tests.rollouts.shop_rollouts import records, roll_out, rollout_config, shop_folder, shop_script, tree
from tests.simulate.scripted_dialogs import reply, say, verdict

PRICED = ModelSpec(provider="scripted", prices=(1000.0, 1000.0))
"""A scripted model at $1,000 per million tokens, so that a few calls cost something."""


def talkative(config: Config) -> ScriptedLLM:
    """A chatbot that always asks for more, in words of its sample's own, and a user that always gives it (naming
    its order first): every path runs to max_turns, and no two ask the user the same (the cache would answer the
    second)."""
    script = ScriptedLLM()
    script.on(role="chatbot", reply=lambda request: reply(f"Could you say more? (#{request.body['seed']})"))
    script.on(role="user", reply=lambda request: say("Tell me more." if "Customer (you):" in request.last
                                                     else "Tell me more about order A1."))
    script.on(role="critique", reply=verdict(True))
    return script


@pytest.mark.parametrize(("beam", "branch", "chatbot_calls", "user_calls"), [
    (2, 2, 2 + 4 + 4, 1 + 2 + 4),   # one path, then two kept of four candidates at each turn
    (1, 3, 3 + 3 + 3, 1 + 3 + 3),   # one path kept of three at each turn
    (8, 2, 2 + 4 + 8, 1 + 2 + 4),   # the beam is never full: every candidate goes on
])
def test_beam_and_branch_bound_the_calls(tmp_path: Path, beam: int, branch: int, chatbot_calls: int,
                                         user_calls: int) -> None:
    config = rollout_config(tmp_path, beam=beam, branch=branch, max_turns=3)
    folder = shop_folder(tmp_path, config)
    script = talkative(config)

    roll_out(config, folder, script, stages=("rollouts",))

    assert len(script.calls(role="chatbot")) == chatbot_calls
    assert len(script.calls(role="user")) == user_calls
    assert all(turn.ended == "incomplete" for turn in tree(folder).ended())


def played(searched: RolloutTree) -> list[tuple[str, float, list[tuple[str, str]]]]:
    """Each turn of a tree: its id, reward and messages (not when they were said)."""
    return [(turn.id, turn.reward, [(m.role, m.content) for m in turn.messages]) for turn in searched.turns]


def priced(tmp_path: Path, **rollouts: object) -> Config:
    settings = {"beam": 2, "branch": 2, "max_turns": 3, **rollouts}
    config = rollout_config(tmp_path, **settings)
    return config.model_copy(update={"llm": config.llm.model_copy(update={"default": PRICED}),
                                     "chatbot": config.chatbot.model_copy(update={"llm": PRICED})})


def test_the_rollouts_budget_stops_the_search_and_keeps_what_it_played(tmp_path: Path) -> None:
    config = priced(tmp_path, budget_usd=1.0)
    folder = shop_folder(tmp_path, config)

    result = roll_out(config, folder, shop_script(config), stages=("rollouts",))

    record = records(folder)[0]
    assert result.info.status == "done"
    assert record.status == "stopped" and "rollouts.budget_usd" in record.reason
    assert 0 < len(tree(folder).turns) < 5
    assert (folder / "training" / "sft.jsonl").read_text() == ""


def test_a_rerun_with_a_larger_budget_resumes_the_search_without_asking_again(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    whole.mkdir()
    config = priced(whole, budget_usd=100.0)
    uninterrupted = shop_script(config)
    roll_out(config, shop_folder(whole, config), uninterrupted, stages=("rollouts",))
    stopped = priced(tmp_path, budget_usd=1.0)
    folder = shop_folder(tmp_path, stopped)
    first, second = shop_script(stopped), shop_script(stopped)

    roll_out(stopped, folder, first, stages=("rollouts",))
    roll_out(stopped.model_copy(update={"rollouts": config.rollouts}), folder, second, stages=("rollouts",))

    assert records(folder)[-1].status == "ok"
    assert len(first.requests) + len(second.requests) == len(uninterrupted.requests)
    assert played(tree(folder)) == played(tree(whole / "run"))


def test_a_finished_search_makes_no_call_when_the_run_is_resumed(tmp_path: Path) -> None:
    config = rollout_config(tmp_path)
    folder = shop_folder(tmp_path, config)
    roll_out(config, folder, shop_script(config), stages=("rollouts",))
    again = shop_script(config)

    roll_out(config, folder, again, stages=("rollouts",))

    assert again.requests == []
    assert [record.status for record in records(folder)] == ["ok"]


def test_max_cost_stops_the_rollouts_cleanly_and_a_rerun_resumes_them(tmp_path: Path) -> None:
    config = priced(tmp_path, budget_usd=100.0)
    limited = config.model_copy(update={"budget": config.budget.model_copy(update={"max_cost_usd": 1.0})})
    folder = shop_folder(tmp_path, limited)

    with pytest.raises(RunAborted, match="--max-cost"):
        roll_out(limited, folder, shop_script(config), stages=("rollouts",))
    assert records(folder)[0].status == "stopped"
    assert (folder / "training" / "sft.jsonl").exists()

    roll_out(config, folder, shop_script(config), stages=("rollouts",))
    assert records(folder)[-1].status == "ok" and positives(tree(folder))
