"""The red-team stage (--red-team): attackers aimed at each rule, through the conversation and through the data.

    START ──route_to_attack──→ attack | close
    attack ──route_after_attack──→ attack (attacks left, the run's budget left) | close
    close → END

Each attack is made in turn (`redteam.team.RedTeam`), its tree kept in attacks/<id>.json and its record
appended to attacks.jsonl as it ends; an attack whose rule's budget is spent is recorded `stopped` without a call.
Once the run's own budget is spent, the attacks left are recorded `stopped` too. A resumed stage makes only the
attacks not recorded as finished (see `redteam.team`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from intellagent.artifacts import Attack
from intellagent.context import RunContext
from intellagent.modes import grader, user_role
from intellagent.redteam.targets import AttackTarget, attack_targets
from intellagent.redteam.team import RedTeam, attack_settings, still_to_attack
from intellagent.stage import StageItems

from .dialog import play_dialog


class RedTeamState(TypedDict):
    """The attacks still to make, and whether the run's budget stopped them."""

    todo: list[AttackTarget]
    stopped: bool


@dataclass(frozen=True)
class RedTeamDeps:
    """What the nodes work with (the graph's runtime context), fixed while it runs.

    Attributes:
        team: what every attack shares, and each attack.
        items: the attacks' records, appended to attacks.jsonl as each ends.
    """

    team: RedTeam
    items: StageItems[Attack]


async def attack(state: RedTeamState, *, runtime: Runtime[RedTeamDeps]) -> dict[str, Any]:
    """Make the next attack and record it; a failure is recorded as an attack with status `error`."""
    deps = runtime.context
    target = state["todo"][0]
    await deps.items.run(lambda: deps.team.attacked(target),
                         failed=lambda reason: deps.team.unattacked(target, status="error", reason=reason))
    return {"todo": state["todo"][1:], "stopped": deps.team.ctx.usage.exhausted()}


async def close(state: RedTeamState, *, runtime: Runtime[RedTeamDeps]) -> dict[str, Any]:
    """Record the attacks the run's budget left unmade."""
    deps = runtime.context
    for target in state["todo"]:
        deps.items.artifact.append(deps.team.unattacked(
            target, status="stopped", reason="the run's budget was spent before the attack began"))
    return {}


def route_to_attack(state: RedTeamState) -> str:
    """Make the first attack, if any is left."""
    return "attack" if state["todo"] else "close"


def route_after_attack(state: RedTeamState) -> str:
    """The next attack, unless none is left or the run's budget is spent."""
    return "attack" if state["todo"] and not state["stopped"] else "close"


@cache
def build_graph() -> CompiledStateGraph[RedTeamState, RedTeamDeps, RedTeamState, RedTeamState]:
    """The stage graph, compiled once."""
    graph = StateGraph(RedTeamState, context_schema=RedTeamDeps)
    graph.add_node("attack", attack)
    graph.add_node("close", close)
    graph.add_conditional_edges(START, route_to_attack, ["attack", "close"])
    graph.add_conditional_edges("attack", route_after_attack, ["attack", "close"])
    graph.add_edge("close", END)
    return graph.compile()


async def run(ctx: RunContext) -> list[Attack]:
    """Make every attack not made yet, and return every attack's record.

    Raises:
        UsageError: `red_team.rules` names a policy the run does not have.
        BudgetExhausted: the run's --max-cost was reached during the attacks (what they made is kept).
    """
    settings = attack_settings(ctx.config.red_team)
    artifact = ctx.folder.attacks
    earlier = artifact.load()
    events = [event for event in ctx.folder.events.require() if event.status == "ok"]
    targets = attack_targets(ctx.folder.policies.require(), events, ctx.config.red_team)
    todo = still_to_attack(targets, artifact.finished(), settings)
    async with RedTeam.open(ctx, earlier, play=play_dialog, user_role=user_role, grader=grader) as team:
        items = StageItems(ctx, stage="redteam", artifact=artifact, total=len(todo), done=len(targets) - len(todo))
        await build_graph().ainvoke(RedTeamState(todo=todo, stopped=False),
                                    {"recursion_limit": len(todo) + 5, "run_name": "redteam"},
                                    context=RedTeamDeps(team=team, items=items))
    made = artifact.finalize()
    ctx.usage.check_budget()  # the run's own budget, reached during an attack: the run stops as any stage would
    return made
