"""A positive path passes every verdict source: its outcome above the floor, the programs, the user's audit, and the
judge, which is asked of those candidates only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import (
    Analysis,
    ExpectedCall,
    ExpectedOutcome,
    ForbiddenCall,
    OutcomeFloor,
    UserFault,
    Violation,
)
from intellagent.llm import Request
from intellagent.rollouts.positives import (
    FLOOR,
    FOUND,
    JUDGE_ERROR,
    UNJUDGED,
    USER_FAULT,
    VIOLATED,
    positives,
    shortfall,
)
from tests.rollouts.shop_rollouts import (
    AGENT_LINE,
    DECLINE,
    candidate_seeds,
    lines,
    roll_out,
    rollout_config,
    script_of,
    shop_folder,
    shop_script,
    tree,
)
from tests.rollouts.trees import CANCEL, LOOK_UP, said, tree_of, turn
from tests.simulate.scripted_dialogs import call, event, reply, say, stop

NOTHING = OutcomeFloor(nothing=True, reckless=False)


def ended(**verdicts: Any) -> tuple[Any, Any]:
    """A tree whose one path ended passed, with `verdicts`; and the path's last turn."""
    leaf = turn("0.1", said("Done.", *verdicts.pop("calls", [LOOK_UP, CANCEL]), answer=None), 1.0, ended=True,
                **verdicts)
    return tree_of(leaf, floor=verdicts.get("floor")), leaf


def test_a_path_that_passed_every_source_is_a_positive() -> None:
    searched, leaf = ended(matched=2)

    assert shortfall(searched, leaf) is None and positives(searched) == [leaf]


@pytest.mark.parametrize(("verdicts", "why"), [
    ({"findings": ("cancel_order was called without a yes",)}, FOUND),
    ({"faults": (UserFault(kind="narrated", turn=1, evidence="(sighs)"),)}, USER_FAULT),
    ({"judged": None}, UNJUDGED),
    ({"judged": Analysis(id="S001~r0.1", status="error", error="no answer", source="d")}, JUDGE_ERROR),
    ({"judged": Analysis(id="S001~r0.1", status="fail", source="d",
                         violations=[Violation(policy="P1", turn=2, reason="it cancelled first")])}, VIOLATED),
])
def test_a_path_one_source_turns_away_is_no_positive(verdicts: dict[str, Any], why: str) -> None:
    searched, leaf = ended(**verdicts)

    assert shortfall(searched, leaf) == why and positives(searched) == []


def test_a_path_that_did_nothing_on_an_outcome_doing_nothing_reaches_is_no_positive() -> None:
    leaf = turn("0.1", said("I cannot help with that.", answer=None), 0.0, ended=True, matched=0)
    searched = tree_of(leaf, floor=NOTHING)

    assert shortfall(searched, leaf) == FLOOR


def test_a_path_that_made_an_expected_call_on_such_an_outcome_scores_above_its_floor() -> None:
    leaf = turn("0.1", said("A1 has shipped; I cannot cancel it.", LOOK_UP, answer=None), 1.0, ended=True, matched=1)

    assert shortfall(tree_of(leaf, floor=NOTHING), leaf) is None


# ── a refusal on the shop: Ben's shipped order B2, which no rule lets the chatbot cancel ───────────────────

REFUSE = "B2 has shipped already, so I cannot cancel it."
REFUSAL = ExpectedOutcome(calls=[ExpectedCall(tool="get_order", arguments={"order_id": "B2"}, writes=False)],
                          forbidden=[ForbiddenCall(tool="cancel_order", policies=["P1"], reason="it has shipped")])


def refusing_chatbot(careful: set[int]) -> Any:
    """A careful candidate looks B2 up and refuses; any other declines without a look."""

    def step(request: Request) -> dict[str, Any]:
        if request.body.get("seed") not in careful:
            return reply(DECLINE)
        return reply(REFUSE) if "Tool get_order returned" in request.last else call("get_order", order_id="B2")

    return step


def ben(request: Request) -> dict[str, str]:
    """Ben asks, and stops once the chatbot answered."""
    if len(AGENT_LINE.findall(request.last)) > 1:
        return stop("success", "I was told why")
    return say("Please cancel my order B2.")


@pytest.fixture(scope="module")
def refusal(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    tmp_path = tmp_path_factory.mktemp("refusal")
    config = rollout_config(tmp_path)
    refused = event(expected=REFUSAL, scenario="You are Ben and want your shipped order B2 cancelled.",
                    user_rows={"orders": [{"order_id": "B2", "customer": "ben"}]})
    folder = shop_folder(tmp_path, config, [refused])
    script = script_of(refusing_chatbot(candidate_seeds(config, number=1)), ben)
    roll_out(config, folder, script, stages=("rollouts",))
    return folder, script


def test_on_a_refusal_only_event_the_path_that_does_nothing_is_no_positive(refusal: tuple[Path, Any]) -> None:
    folder, _ = refusal
    searched = tree(folder)

    assert searched.floor is not None and searched.floor.nothing and searched.kind == "refusal"
    declined = searched.children("0")[1]
    assert declined.grade is not None and declined.grade.passed
    assert shortfall(searched, declined) == FLOOR
    assert [leaf.id for leaf in positives(searched)] == ["0.1"]
    assert [example["metadata"]["path"] for example in lines(folder, "sft")] == ["0.1"]


def test_the_judge_is_asked_of_the_candidate_positives_only(refusal: tuple[Path, Any]) -> None:
    folder, script = refusal

    (asked,) = script.calls(role="analysis")
    assert REFUSE in asked.text and DECLINE not in asked.text
    assert tree(folder).children("0")[1].judged is None


def test_a_path_the_judge_finds_breaking_a_sampled_rule_is_no_positive(tmp_path: Path) -> None:
    config = rollout_config(tmp_path)
    folder = shop_folder(tmp_path, config)
    broken = {"tested": ["P1"], "violations": [{"policy": "P1", "turn": 2, "reason": "it looked the order up twice"}]}
    script = shop_script(config, judge=broken)

    roll_out(config, folder, script, stages=("rollouts",))

    assert positives(tree(folder)) == [] and lines(folder, "sft") == [] and lines(folder, "preferences") == []
    assert f"| an ended path | {VIOLATED} | 1 |" in (folder / "training" / "README.md").read_text()
