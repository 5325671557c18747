"""One dialog's setting: its world, its share of the run's accounting, the parts it is played with (the
dialog graph's runtime context, `DialogDeps`), and what is recorded once it ended.

The event's world is made whole for the dialog (`databases`), the chatbot's tools act on that copy, and
once the dialog ended what it changed is stored with the world's digest, the deterministic checks run
on what happened, the event's grader grades it, and its simulated user is audited (`audit`). The user role
and the grader are the stage's to choose (`intellagent.modes`), and are handed in.
"""

from __future__ import annotations

import asyncio
import filecmp
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from intellagent.artifacts import Dialog, Event
from intellagent.chatbots import Chatbot, ChatbotConversation, ChatbotSession, DialogWorld
from intellagent.checks import Check, Trace, run_checks
from intellagent.checks.assertions import catalog_checks
from intellagent.config import switched_on
from intellagent.context import RunContext, log
from intellagent.environment import Environment, worlds
from intellagent.llm import LLM, Usage
from intellagent.llm.dialog_models import counted, dialog_model
from intellagent.simulate.audit import audited, read_faults
from intellagent.simulate.consent import agreements
from intellagent.simulate.control import Control
from intellagent.simulate.databases import DialogFiles
from intellagent.simulate.grading import Grader
from intellagent.simulate.trials import trial_user
from intellagent.simulate.users import UserRole, UserRoleOf

if TYPE_CHECKING:
    from intellagent.chatbots.mcp_world import WorldServer


@dataclass
class DialogDeps:
    """What the nodes of one dialog work with (the dialog graph's runtime context).

    Attributes:
        event: the event played out.
        policy: the policy document, which the critique reads whole.
        conversation: the chatbot under test, opened for this dialog.
        user: the simulated user.
        critique: the critique's model.
        greeting: the chatbot's first message.
        max_turns: user turns after which the dialog ends as `incomplete`.
        max_critiques: times the critique may send the dialog back.
        max_tool_steps: calls the user may make on its own side before each message.
        world: the dialog's database as the chatbot reaches it; the calls made there are recorded.
        name: the dialog's id, which names its trace (the event's, with its trial or mutant).
    """

    event: Event
    policy: str
    conversation: ChatbotConversation
    user: UserRole
    critique: LLM
    greeting: str
    max_turns: int
    max_critiques: int
    max_tool_steps: int = 0
    world: DialogWorld | None = None
    name: str = ""
    started: float = field(default_factory=time.monotonic)

    def clock(self) -> float:
        """Seconds since the dialog started."""
        return round(time.monotonic() - self.started, 2)


PlayDialog = Callable[[DialogDeps], Awaitable[Dialog]]
"""Plays one dialog to its end (the dialog graph)."""


async def played_dialog(
    ctx: RunContext,
    chatbot: Chatbot,
    event: Event,
    *,
    play: PlayDialog,
    user_role: UserRoleOf,
    grader: Grader,
    played_id: str,
    trial: int = 1,
    mutant: str | None = None,
    world_server: WorldServer | None = None,
    compiled: Sequence[Check] = (),
    control: Control | None = None,
) -> Dialog:
    """Make the event's world whole for the dialog, play the dialog on it, store what the dialog changed with
    the world's digest, run the deterministic checks on what happened, grade it, and audit its simulated user.

    Args:
        play: plays the dialog (the dialog graph's `run_dialog`).
        user_role: the simulated user of a dialog on the event.
        grader: grades the dialog by what the event says a correct chatbot does.
        played_id: the dialog's id.
        trial: which trial of the event this dialog is (1 unless `simulate.trials` asks for more).
        mutant: the name of the mutant `chatbot` is, in a calibrated run.
        world_server: the run's MCP server, which serves the dialog's world to an endpoint chatbot.
        compiled: the run's compiled assertions and rules, as checks, run with the domain's.
        control: where the user has tools, how the dialog is played (`simulate.control`): dual, the user acts as
            the chatbot guides it; solo, the chatbot gets the user's tools and the user only talks.
    """
    files = DialogFiles.of(ctx, event, played_id) if event.database is not None else None
    usage = Usage(parent=ctx.usage)  # the dialog's share, counted in the run's totals too
    environment = ctx.environment.solo if control == "solo" else ctx.environment
    path = files.played if files else None
    world = DialogWorld(environment, path, timeout=ctx.config.environment.tool_timeout) if path else None
    try:
        with ExitStack() as hosted:
            mcp_url = hosted.enter_context(world_server.hosting(played_id, world)) if world_server and world else None
            session = ChatbotSession(id=played_id, database=path, usage=usage, world=world, mcp_url=mcp_url)
            deps = dialog_deps(ctx, event, chatbot.open(session), user_role=user_role, played_id=played_id,
                               trial=trial, usage=usage, world=world, environment=environment)
            played = await play(deps)
        # Reading a world back (its changes, the checks, a grade) takes seconds on a large one: off the loop,
        # so that the other dialogs' conversations go on meanwhile.
        agreed = await agreements(deps.critique, environment, played.transcript) if consent_question(ctx) else {}
        settled = await asyncio.to_thread(settle, environment, event, played, files, grader, compiled, agreed)
        if settled.status != "error":  # a dialog that failed to run is never judged, nor is its user
            faults = await asyncio.to_thread(read_faults, environment, event, settled,
                                             world=files.start if files else None)
            settled.audit = await audited(event, settled, faults, deps.critique if goal_question(ctx) else None)
    finally:
        if files:
            files.clear()
    return settled.model_copy(update={"id": played_id, "event": event.id, "trial": trial, "mutant": mutant,
                                      "usage": usage.report().roles, "database": files.name if files else None,
                                      "persona": event.persona, "claim": event.claim, "control": control})


def dialog_deps(ctx: RunContext, event: Event, conversation: ChatbotConversation, *, user_role: UserRoleOf,
                played_id: str, trial: int, usage: Usage, world: DialogWorld | None,
                environment: Environment) -> DialogDeps:
    """The parts a dialog is played with; its models sample with the dialog's own seed and count its usage, and
    its user has the tools of its side of `environment` (none in a solo dialog's)."""
    config = ctx.config
    user = dialog_model(trial_user(ctx.llms["user"], repeated=config.simulate.trials != 1), seed=config.seed,
                        dialog_id=played_id)
    return DialogDeps(
        event=event,
        policy=environment.policy,
        conversation=conversation,
        user=user_role(event, counted(user, usage), thoughts=user_thoughts(ctx), tools=environment.user_tools),
        critique=counted(dialog_model(ctx.llms["critique"], seed=config.seed, dialog_id=played_id), usage),
        greeting=config.chatbot.greeting,
        max_turns=config.simulate.max_turns,
        max_critiques=config.simulate.max_critiques,
        max_tool_steps=config.simulate.max_tool_steps,
        world=world,
        name=played_id,
    )


def settle(environment: Environment, event: Event, played: Dialog, files: DialogFiles | None, grader: Grader,
           compiled: Sequence[Check] = (), agreed: dict[int, bool] | None = None) -> Dialog:
    """A played dialog with its world stored and digested, the deterministic checks' findings (the rules'
    among them), and its grade."""
    claims = [event.claim] if event.claim else []
    if files is None:
        checked = run_checks(environment, played.transcript, before=None, database=None, compiled=compiled,
                             claims=claims, agreed=agreed)
        return played.model_copy(update={"checks": checked.ran, "findings": checked.findings, "ruled": checked.ruled})
    unchanged = filecmp.cmp(files.start, files.played, shallow=False)
    found = {} if unchanged else worlds.changes(files.played, files.start)
    worlds.save_delta(files.stored, base=files.event, found=found)
    if unchanged and event.digest is not None:
        digest = event.digest  # nothing was written: the event's world, whose digest is known
    else:
        digest = worlds.world_digest(files.played, files.event, found)
    checked = run_checks(environment, played.transcript, before=files.start, database=files.played,
                         written=list(found), compiled=compiled, claims=claims, agreed=agreed)
    played = played.model_copy(update={"digest": digest, "checks": checked.ran, "findings": checked.findings,
                                       "ruled": checked.ruled})
    return grader.grade(environment, event, played, start=files.start, end=files.played, changes=found)


def checks_in_force(ctx: RunContext) -> list[Check[Trace]]:
    """The run's compiled assertions and rules, as checks that every dialog is run through with the domain's own."""
    catalog = ctx.folder.policies.load()
    return catalog_checks(catalog) if catalog else []


def user_thoughts(ctx: RunContext) -> bool:
    """Whether the simulated user writes a private thought (`simulate.user_thoughts`; auto: not on the
    embedded model, whose every token is slow)."""
    return switched_on(ctx.config.simulate.user_thoughts, ctx.llms.spec("user").provider)


def consent_question(ctx: RunContext) -> bool:
    """Whether the critique model reads the user's answer before each write (`simulate.consent_question`; auto: not
    on the embedded model, where an explicit lexicon reads it, at no call)."""
    return switched_on(ctx.config.simulate.consent_question, ctx.llms.spec("critique").provider)


def goal_question(ctx: RunContext) -> bool:
    """Whether the audit asks the critique model if the user pursued its goal (`simulate.goal_question`; auto:
    not on the embedded model, whose mistaken "no" set aside a dialog the chatbot was never judged in)."""
    return switched_on(ctx.config.simulate.goal_question, ctx.llms.spec("critique").provider)


@asynccontextmanager
async def served_world(ctx: RunContext, chatbots: list[Chatbot]) -> AsyncIterator[WorldServer | None]:
    """The run's MCP server while the stage runs, if a chatbot is an endpoint that may reach the world by it."""
    if not any(getattr(chatbot, "reaches_world_over_mcp", False) for chatbot in chatbots):
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
