"""The simulate stage: one dialog per valid event and trial, run side by side, each on its own copy of
the event's database, appended to dialogs.jsonl as it finishes.

    START ──dispatch (Send per event and trial still to do)──→ dialog ──→ END

A resumed run reads dialogs.jsonl first and plays only the dialogs not recorded yet.
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from graphs.dialog import DialogDeps, run_dialog
from intellagent.artifacts import Dialog, Event
from intellagent.chatbots import Chatbot, ChatbotSession, DialogWorld, select_chatbot
from intellagent.checks import run_checks
from intellagent.context import RunContext, log
from intellagent.errors import UsageError
from intellagent.llm import Usage
from intellagent.simulate.accounting import counted
from intellagent.simulate.databases import fresh_copy
from intellagent.simulate.trials import trial_id, trial_user
from intellagent.stage import StageItems

if TYPE_CHECKING:
    from intellagent.chatbots.mcp_world import WorldServer

EVENTS = "events.jsonl"
DIALOGS = "dialogs.jsonl"


class DialogTask(TypedDict):
    """One event and trial, sent to the dialog node."""

    event: Event
    trial: int


class SimulateState(TypedDict):
    """The dialogs to play, and the ids of the dialogs recorded."""

    tasks: list[DialogTask]
    recorded: Annotated[list[str], operator.add]


@dataclass
class SimulateDeps:
    """What every dialog of the stage shares (the graph's runtime context)."""

    ctx: RunContext
    chatbot: Chatbot
    items: StageItems[Dialog]
    world_server: WorldServer | None = None


def dispatch(state: SimulateState) -> list[Send]:
    """One dialog per event and trial (run concurrently up to `workers`)."""
    return [Send("dialog", task) for task in state["tasks"]]


async def dialog(state: DialogTask, *, runtime: Runtime[SimulateDeps]) -> dict[str, list[str]]:
    """Play one trial of an event and record its dialog; a failure is recorded as a dialog with status `error`."""
    deps = runtime.context
    event, trial = state["event"], state["trial"]

    def failed(reason: str) -> Dialog:
        return Dialog(id=trial_id(event.id, trial), event=event.id, trial=trial, status="error", reason=reason,
                      policies=event.policies, challenge=event.challenge)

    recorded = await deps.items.run(
        lambda: simulate_event(deps.ctx, deps.chatbot, event, trial=trial, world_server=deps.world_server),
        failed=failed,
    )
    return {"recorded": [recorded.id]}


async def simulate_event(
    ctx: RunContext, chatbot: Chatbot, event: Event, *, trial: int = 1, world_server: WorldServer | None = None
) -> Dialog:
    """Copy the event's database for the dialog, play the dialog on it, note the database's digest, and run
    the deterministic checks on what happened.

    Args:
        trial: which trial of the event this dialog is (1 unless `simulate.trials` asks for more).
        world_server: the run's MCP server, which serves the dialog's world to an endpoint chatbot.
    """
    dialog_id = trial_id(event.id, trial)
    database = None
    if event.database is not None:
        database = f"dialogs/{dialog_id}.sqlite"
        fresh_copy(ctx.folder.path(event.database), ctx.folder.path(database))
    usage = Usage(parent=ctx.usage)  # the dialog's share, counted in the run's totals too
    environment = ctx.environment
    path = ctx.folder.path(database) if database else None
    world = DialogWorld(environment, path) if path else None
    with ExitStack() as hosted:
        mcp_url = hosted.enter_context(world_server.hosting(dialog_id, world)) if world_server and world else None
        session = ChatbotSession(id=dialog_id, database=path, usage=usage, world=world, mcp_url=mcp_url)
        deps = DialogDeps(
            event=event,
            policy=environment.policy,
            conversation=chatbot.open(session),
            user=counted(trial_user(ctx.llms["user"], seed=ctx.config.seed, trial=trial,
                                    trials=ctx.config.simulate.trials), usage),
            critique=counted(ctx.llms["critique"], usage),
            greeting=ctx.config.chatbot.greeting,
            max_turns=ctx.config.simulate.max_turns,
            max_critiques=ctx.config.simulate.max_critiques,
            world=world,
        )
        played = await run_dialog(deps)
    digest = None
    if session.database is not None:
        with environment.session(session.database) as db:
            digest = environment.digest(db)
    before = ctx.folder.path(event.database) if event.database else None
    checks, findings = run_checks(environment, played.transcript, before=before, database=session.database)
    return played.model_copy(update={"id": dialog_id, "event": event.id, "trial": trial,
                                     "usage": usage.report().roles, "database": database, "digest": digest,
                                     "checks": checks, "findings": findings})


@cache
def build_graph() -> CompiledStateGraph[SimulateState, SimulateDeps, SimulateState, SimulateState]:
    """The stage graph, compiled once."""
    graph = StateGraph(SimulateState, context_schema=SimulateDeps)
    graph.add_node("dialog", dialog, input_schema=DialogTask)
    graph.add_conditional_edges(START, dispatch, ["dialog"])
    graph.add_edge("dialog", END)
    return graph.compile()


async def run(ctx: RunContext) -> None:
    """Play every valid event's dialogs (one per trial) that are not recorded yet."""
    if not ctx.folder.exists(EVENTS):
        raise UsageError(f"{ctx.folder.path(EVENTS)} not found; run the populate stage first")
    events = [event for event in ctx.folder.jsonl(EVENTS, Event).load() if event.status == "ok"]
    artifact = ctx.folder.jsonl(DIALOGS, Dialog)
    done = {recorded.id for recorded in artifact.load()}
    trials = range(1, ctx.config.simulate.trials + 1)
    todo = [DialogTask(event=event, trial=trial) for event in events for trial in trials
            if trial_id(event.id, trial) not in done]
    if todo:
        chatbot = select_chatbot(ctx)  # a bad target fails here, before any LLM call
        items = StageItems(ctx, stage="simulate", artifact=artifact, total=len(todo))
        async with served_world(ctx, chatbot) as world_server:
            deps = SimulateDeps(ctx=ctx, chatbot=chatbot, items=items, world_server=world_server)
            await build_graph().ainvoke(
                SimulateState(tasks=todo, recorded=[]), {"max_concurrency": ctx.config.workers}, context=deps
            )
    artifact.finalize()


@asynccontextmanager
async def served_world(ctx: RunContext, chatbot: Chatbot) -> AsyncIterator[WorldServer | None]:
    """The run's MCP server while the stage runs, if the chatbot is an endpoint that may reach the world by it."""
    if not getattr(chatbot, "reaches_world_over_mcp", False):
        yield None
        return
    try:
        from intellagent.chatbots.mcp_world import WorldServer
    except ImportError:
        log.warning("the dialogs' worlds are not served to the chatbot: install the mcp extra "
                    "(pip install 'intellagent[mcp]') for an endpoint chatbot to use the domain's tools")
        yield None
        return
    async with WorldServer(ctx.environment).serving() as server:
        yield server
