#!/usr/bin/env python3
"""What `--rollouts` costs and yields on the airline example: calls, cost and training examples per event.

The airline's τ-bench tasks (../shared/data/tau_airline) are described and populated by the careless double
(answers valid against each schema, arbitrary in content): each task's gold actions become its event's
verified expected outcome. The simulate and rollouts stages are then played by the scripted double: of the
chatbot's candidates at each turn, the first is careful (it states the task's gold calls, and makes them once
the user says yes) and the others stall (they ask the user to say more), so that the beam fills as it would
with a chatbot that often fails to act; the dialog of simulate, not sampled, stalls too. The judge, asked of
each candidate positive, finds no rule broken. So the figures
are the double's, not a model's: they show what the search spends for a given beam and branch, and how the
examples follow from the tree, not how often a real chatbot finds the rewarded path.

The double's token counts are rough (a quarter of the characters), priced here at --price (USD per million
input and output tokens, gpt-4o-mini's list price by default) to show what the budget buys.

    python benchmarks/rollouts.py                     # tasks 0-4, beam 8, branch 2
    python benchmarks/rollouts.py --tasks 0-9 --beam 4 --branch 3 --max-turns 4
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intellagent.artifacts import Event
from intellagent.config import Config, apply_overrides, load_config
from intellagent.llm import ModelSpec, Request, ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.llm.dialog_models import dialog_seed
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from intellagent.simulate.turns import STOP_TOKEN

TAU_AIRLINE = Path(__file__).resolve().parents[2] / "shared" / "data" / "tau_airline"
ASK = "Shall I proceed?"
DONE = "All done."
STALL = "Could you tell me more about what you need?"
YES = "Yes, please go ahead."


def configured(args: argparse.Namespace) -> Config:
    """The airline example on τ-bench's tasks, every role scripted, rolled out as asked."""
    config = apply_overrides(load_config("airline"), llm="scripted", chatbot_llm="scripted", workers=args.workers,
                             tau_data=args.data, tau_tasks=args.tasks, rollouts=True)
    priced = ModelSpec(provider="scripted", prices=(args.price[0], args.price[1]))
    rollouts = config.rollouts.model_copy(update={"beam": args.beam, "branch": args.branch,
                                                  "max_turns": args.max_turns, "budget_usd": 1e6})
    # No rules but the domain's checks: the careless double would compile arbitrary ones, and the reviewed rules
    # file's cancellation procedure counts any confirmation as its own step, so it finds a breach on every booking.
    describe = config.describe.model_copy(update={"assertions": "no", "procedures": "no"})
    return config.model_copy(update={
        "rollouts": rollouts, "chatbot": config.chatbot.model_copy(update={"llm": priced}),
        "llm": config.llm.model_copy(update={"default": priced}),
        "budget": config.budget.model_copy(update={"max_error_rate": 1.0}),
        "environment": config.environment.model_copy(update={"rules": None}), "describe": describe,
    })


def careful_seeds(config: Config, events: list[Event]) -> dict[int, Event]:
    """The seed of every candidate numbered 1 at its turn, with its event: the careful ones."""
    seeds = {}
    for event in events:
        for depth in range(1, config.rollouts.max_turns + 1 if config.rollouts.max_turns else 11):
            for numbers in itertools.product(range(1, config.rollouts.branch + 1), repeat=depth):
                if numbers[-1] == 1:
                    turn = ".".join(["0", *map(str, numbers)])
                    seeds[dialog_seed(config.seed, f"{event.id}~r{turn}")] = event
    return seeds


def chatbot(careful: dict[int, Event]) -> Any:
    """A chatbot step: a careful candidate states its event's gold calls, then makes them one by one once the
    user said yes, then says it is done; any other stalls."""

    def step(request: Request) -> dict[str, Any]:
        event = careful.get(request.body.get("seed", -1))
        if event is None or event.expected is None:
            return {"thought": "I wait.", "action": "reply", "message": STALL}
        calls = event.expected.calls
        said = [message.get("content") or "" for message in request.messages if message["role"] == "user"]
        if YES not in said:
            stated = "; ".join(call.text() for call in calls)
            return {"thought": "I ask first.", "action": "reply",
                    "message": f"I will make these changes: {stated}. {ASK}"}
        made = sum(text.startswith("Tool ") for text in said)
        if made < len(calls):
            return {"thought": "I make the next call.", "action": calls[made].tool, "arguments": calls[made].arguments}
        return {"thought": "I am done.", "action": "reply", "message": " ".join([DONE, *event.expected.outputs])}

    return step


def user(request: Request) -> dict[str, str]:
    """τ-bench's user: asks for help, says yes to what the chatbot states, says more when asked (in words of its
    own each time), and stops once it is done."""
    if DONE in request.last:
        return {"message": STOP_TOKEN}
    if ASK in request.last:
        return {"message": YES}
    asked = request.last.count(STALL)
    return {"message": f"It is about my reservations (I asked {asked} times)." if asked else
            "I would like some help with my reservations."}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=TAU_AIRLINE, help="τ-bench's airline task set")
    parser.add_argument("--tasks", default="0-4", help="the tasks to roll out, by τ-bench number")
    parser.add_argument("--beam", type=int, default=8)
    parser.add_argument("--branch", type=int, default=2)
    parser.add_argument("--max-turns", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--price", type=float, nargs=2, default=(0.15, 0.60), metavar=("IN", "OUT"),
                        help="USD per million input and output tokens of the double's rough counts")
    args = parser.parse_args()
    config = configured(args)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        asyncio.run(execute(config, output=folder, stages=("describe", "populate"),
                            script=ScriptedLLM().on(reply=careless_answers(seed=1)), progress=False))
        events = [event for event in RunFolder(folder).events.load() if event.status == "ok"]
        script = ScriptedLLM()
        script.on(role="chatbot", reply=chatbot(careful_seeds(config, events)))
        script.on(role="user", reply=user)
        script.on(role="analysis", schema="DialogAnalysis", reply={"tested": [], "violations": []})
        script.on(schema="Agreement", reply={"agrees": True})  # the critique reads the user's yes as one
        script.on(reply=careless_answers(seed=2))  # the critique and the audit
        started = time.perf_counter()
        asyncio.run(execute(config, output=folder, stages=("simulate",), script=script, progress=False))
        simulated = len(script.requests)
        asyncio.run(execute(config, output=folder, stages=("rollouts",), script=script, progress=False))
        seconds = time.perf_counter() - started
        rollouts = RunFolder(folder).rollouts.load()
        sft, pairs, kto = (len((folder / "training" / f"{name}.jsonl").read_text().splitlines())
                           for name in ("sft", "preferences", "kto"))
    print(f"airline, τ-bench tasks {args.tasks}: beam {args.beam}, branch {args.branch}, at most {args.max_turns} "
          f"user turns; the scripted double's figures (simulate made {simulated} calls)")
    print(f"{'event':<6} {'status':<8} {'calls':>6} {'cost $':>8} {'paths':>6} {'pos':>4} {'pairs':>6} "
          f"{'best':>5} {'plain':>6}")
    for rollout in rollouts:
        best = "-" if rollout.best_reward is None else f"{rollout.best_reward:.2f}"
        plain = "-" if rollout.plain_reward is None else f"{rollout.plain_reward:.2f}"
        print(f"{rollout.id:<6} {rollout.status:<8} {rollout.calls:>6} {rollout.cost_usd:>8.4f} {rollout.paths:>6} "
              f"{rollout.rewarded:>4} {rollout.pairs:>6} {best:>5} {plain:>6}")
    calls, cost = sum(r.calls for r in rollouts), sum(r.cost_usd for r in rollouts)
    examples = sft + pairs
    print(f"total: {calls} calls, ${cost:.4f}, {sft} SFT examples, {pairs} preference pairs, {kto} KTO records "
          "(as written, each once); "
          f"{calls / max(len(rollouts), 1):.1f} calls and {examples / max(len(rollouts), 1):.1f} examples per event, "
          f"${cost / max(examples, 1):.4f} per example; {seconds:.1f} s for simulate and rollouts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
