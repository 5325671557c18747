"""Search trees written by hand: a few turns of the shop's cancellation, each with the partial reward, the ending
and the verdicts a test needs, for what the export makes of them."""

from __future__ import annotations

from typing import Any

from intellagent.artifacts import (
    Analysis,
    Message,
    OutcomeFloor,
    OutcomeGrade,
    RolloutTree,
    RolloutTurn,
    ToolCall,
    UserFault,
)
from intellagent.rollouts.training_context import TrainingContext

CONTEXT = TrainingContext(policy="# Desk policy", tools=[{"type": "function", "function": {"name": "get_order"}}],
                          flows={"P1": ["F1"]}, margin=0.2)
CLEAN = Analysis(id="S001~r", status="pass", source="digest")


def said(text: str, *calls: tuple[str, dict[str, Any]], answer: str | None = "Go on.") -> list[Message]:
    """A chatbot turn that makes `calls` (each answered "ok") then says `text`, and the user's `answer`."""
    made = [ToolCall(id=f"call_{i}", name=name, arguments=arguments, result="ok")
            for i, (name, arguments) in enumerate(calls)]
    turn = [Message(role="chatbot", content=text, tool_calls=made)]
    return turn + ([Message(role="user", content=answer)] if answer is not None else [])


def grade(passed: bool, matched: int = 1, expected: int = 2) -> OutcomeGrade:
    """An outcome grade, passed or not, with `matched` of `expected` calls."""
    return OutcomeGrade(reward=1.0 if passed else 0.0, state_match=passed, expected_calls=expected,
                        made_calls=matched, matched_calls=matched, progress=matched / expected)


def turn(turn_id: str, messages: list[Message], reward: float, *, ended: bool | None = None, matched: int = 1,
         findings: tuple[str, ...] = (), faults: tuple[UserFault, ...] = (),
         judged: Analysis | None = CLEAN) -> RolloutTurn:
    """A turn of the tree: `ended` True a path that ended with its outcome passed, False one that ended failed,
    None one that goes on; a passed path is judged `judged`."""
    parent = turn_id.rpartition(".")[0] or None
    return RolloutTurn(
        id=turn_id, parent=parent, turn=turn_id.count("."), messages=messages, reward=reward,
        findings=list(findings), user_faults=list(faults),
        ended=None if ended is None else ("pass" if ended else "fail"),
        grade=None if ended is None else grade(ended, matched),
        judged=judged if ended else None,
    )


def root() -> RolloutTurn:
    """The greeting and the user's first message."""
    return RolloutTurn(id="0", turn=0, reward=0.0, kept=True, messages=[
        Message(role="chatbot", content="Hello, how can I help?"),
        Message(role="user", content="Please cancel my order A1.")])


def tree_of(*turns: RolloutTurn, floor: OutcomeFloor | None = None) -> RolloutTree:
    """A tree of the root and `turns`."""
    return RolloutTree(event="S001", policies=["P1"], beam=2, branch=2, max_turns=3, floor=floor,
                       kind="delivery", turns=[root(), *turns])


LOOK_UP = ("get_order", {"order_id": "A1"})
CANCEL = ("cancel_order", {"order_id": "A1"})
