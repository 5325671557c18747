"""The shop's rollouts: Ana's order A1 to cancel, whose expected outcome looks it up and cancels it, and a
scripted chatbot whose sampled candidates differ by their seed (the store's tests use the same parts).

A candidate numbered 1 at its turn (`0.1`, `0.2.1`, ...) is careful: it looks the order up and asks before it
cancels, then cancels once the user said yes. A candidate numbered 2 declines without a call. The user asks
for the cancellation, says yes when asked, and stops with a verdict once the chatbot cancelled or declined.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from intellagent.artifacts import (
    Event,
    ExpectedCall,
    ExpectedOutcome,
    Flow,
    Policy,
    PolicyCatalog,
    Rollout,
    RolloutTree,
)
from intellagent.config import Config
from intellagent.environment import Environment, load_environment, worlds
from intellagent.llm import Request, ScriptedLLM
from intellagent.llm.dialog_models import dialog_seed
from intellagent.run_folder import RunFolder
from intellagent.runner import RunResult, execute
from tests.simulate.scripted_dialogs import ORDERS, call, event, pursued, reply, say, shop_config, stop, verdict

ASK = "I found your order. Shall I cancel it?"
DONE = "Your order is cancelled."
DECLINE = "Sorry, I cannot help with orders."
STALL = "Could you say more?"
EXPECTED = ExpectedOutcome(
    calls=[ExpectedCall(tool="get_order", arguments={"order_id": "A1"}, writes=False),
           ExpectedCall(tool="cancel_order", arguments={"order_id": "A1"}, writes=True, policies=["P1"])],
    world="events/S001.expected.delta.json",
)


def rollout_config(tmp_path: Path, **rollouts: Any) -> Config:
    """The shop, rolled out with beam 2 and branch 2 over at most 3 user turns, one candidate at a time;
    `rollouts` settings override."""
    return shop_config(tmp_path, workers=1,
                       rollouts={"enabled": True, "beam": 2, "branch": 2, "max_turns": 3, **rollouts})


def shop_folder(tmp_path: Path, config: Config, events: list[Event] | None = None) -> Path:
    """A run folder holding Ana's event (or `events`), with its world and the world its expected calls leave."""
    return folder_with(tmp_path, config, events or [event(expected=EXPECTED)], build=shop_world)


def shop_world(environment: Environment, database: Path) -> None:
    """The shop's two orders."""
    environment.create_database(database, seed=0, background=False)
    with environment.session(database) as session:
        for order_id, (customer, status) in ORDERS.items():
            session.add(environment.table("orders")(order_id=order_id, customer=customer, status=status))


def folder_with(tmp_path: Path, config: Config, events: list[Event], *,
                build: Callable[[Environment, Path], None]) -> Path:
    """A run folder holding `events`, each world made by `build`, beside the world its expected calls leave."""
    folder = tmp_path / "run"
    asyncio.run(execute(config, output=folder, stages=(), progress=False))
    environment = load_environment(config.environment)
    for item in events:
        database = folder / (item.database or "")
        database.parent.mkdir(parents=True, exist_ok=True)
        build(environment, database)
        if item.expected is not None and item.expected.world:
            done = database.with_name(f"{item.id}.expected.sqlite")
            shutil.copyfile(database, done)
            with environment.session(done) as session:
                for expected in item.expected.calls:
                    environment.call_tool(session, expected.tool, expected.arguments)
            worlds.save_delta(folder / item.expected.world, base=database, found=worlds.changes(done, database))
            done.unlink()
    (folder / "events.jsonl").write_text("".join(item.model_dump_json() + "\n" for item in events))
    RunFolder(folder).policies.save(catalog_of(events))
    return folder


def catalog_of(events: list[Event]) -> PolicyCatalog:
    """The policies the judge reads: each policy the events sampled, a rule of one flow."""
    ids = sorted({policy for item in events for policy in item.policies})
    return PolicyCatalog(task_description="A desk that changes what its customers ask.",
                         flows=[Flow(id="F1", name="Change what the customer asks")],
                         policies=[Policy(id=pid, text=f"Rule {pid}: ask before changing anything.", flows=["F1"],
                                          category="user_consent", challenge=2) for pid in ids])


def candidate_seeds(config: Config, *, number: int, event_id: str = "S001", depth: int = 4) -> set[int]:
    """The seeds of every candidate numbered `number` at its turn, down to `depth` turns."""
    seeds = set()
    for length in range(1, depth + 1):
        for numbers in itertools.product(range(1, config.rollouts.branch + 1), repeat=length):
            if numbers[-1] == number:
                turn = ".".join(["0", *map(str, numbers)])
                seeds.add(dialog_seed(config.seed, f"{event_id}~r{turn}"))
    return seeds


def careful_chatbot(careful_seeds: set[int], *, look_up: dict[str, Any], write: dict[str, Any],
                    other: str = DECLINE) -> Any:
    """The chatbot's step: for a candidate of `careful_seeds`, the `look_up` call, a question, and the `write` call
    once the user said yes; any other candidate replies `other` (it declines)."""

    def step(request: Request) -> dict[str, Any]:
        if request.body.get("seed") not in careful_seeds:
            return reply(other)
        if f"Tool {write['action']} returned" in request.last:
            return reply(DONE)
        if f"Tool {look_up['action']} returned" in request.last:
            return reply(ASK)
        return write if "yes" in request.last.lower() else look_up

    return step


AGENT_LINE = re.compile(r"^Agent: (.*)$", re.MULTILINE)


def customer(request_text: str) -> Any:
    """The user: asks with `request_text`, says yes when asked, stops once the chatbot cancelled or declined."""

    def turn(request: Request) -> dict[str, str]:
        said = AGENT_LINE.findall(request.last)
        last = said[-1] if said else ""
        if last == DONE:
            return stop("success", "the order was cancelled")
        if last == DECLINE:
            return stop("failure", "the agent declined")
        if last == ASK:
            return say("Yes, please cancel it.")
        return say(f"A1, as I said ({len(said)}).") if last == STALL else say(request_text)

    return turn


def shop_script(config: Config, *, other: str = DECLINE, asking: str = "Please cancel my order A1.",
                judge: Any = None) -> ScriptedLLM:
    """The chatbot careful on its first candidate at each turn (`other`: what the others say), Ana (`asking`:
    her first message), a critique that agrees, and a judge (`judge`: its answer; by default no rule broken)."""
    chatbot = careful_chatbot(candidate_seeds(config, number=1), look_up=call("get_order", order_id="A1"),
                              write=call("cancel_order", order_id="A1"), other=other)
    return script_of(chatbot, customer(asking), judge)


def script_of(chatbot: Any, user: Any, judge: Any = None) -> ScriptedLLM:
    """A script of the chatbot's steps, the user's turns, a critique that agrees, and a judge (`judge`: its answer;
    by default, every path keeps its rules)."""
    script = ScriptedLLM()
    script.on(role="chatbot", reply=chatbot)
    script.on(role="user", reply=user)
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="critique", schema="GoalPursuit", reply=pursued())
    script.on(role="analysis", schema="DialogAnalysis", reply=judge or kept())
    return script


def kept() -> dict[str, Any]:
    """The judge's answer on a path that broke no rule."""
    return {"tested": [], "violations": []}


def roll_out(config: Config, folder: Path, script: ScriptedLLM, *, stages: tuple[str, ...] = ("simulate", "rollouts"),
             **options: Any) -> RunResult:
    """Run `stages` (simulate and rollouts) into `folder`."""
    return asyncio.run(execute(config, output=folder, stages=stages, script=script, progress=False, **options))


def records(folder: Path) -> list[Rollout]:
    """rollouts.jsonl."""
    return RunFolder(folder).rollouts.load()


def tree(folder: Path, event_id: str = "S001") -> RolloutTree:
    """An event's search tree."""
    loaded = RunFolder(folder).rollout_trees.item(event_id).load()
    assert loaded is not None
    return loaded


def lines(folder: Path, name: str) -> list[dict[str, Any]]:
    """The records of training/<name>.jsonl, each line parsed."""
    return [json.loads(line) for line in (folder / "training" / f"{name}.jsonl").read_text().splitlines()]
