"""The dialog player: the one place where a dialog is set up, played and recorded, whatever it is played for.

Every dialog of a run is played by `DialogPlayer.play` — the chatbot under test's, a calibration mutant's,
dual or solo, a branch of the rollouts' search, an attempt of the red team's — as what its `Casting` says (its id
and `role`, see `artifacts.DialogRole`):

1. its world: the event's made whole for it, or a copy of the world of the dialog it goes on from
   (`databases.DialogFiles`), with the tools each side holds as its control gives them (`control`);
2. its chatbot: a conversation opened on that world (served over MCP to an endpoint chatbot), or the
   conversation of the dialog it goes on from, forked;
3. its parts (`setting.dialog_deps`): the user of the event's mode (`intellagent.modes`), the critique, each
   sampling with the dialog's seed and counted in the dialog's share of the accounting;
4. the dialog graph (`graphs.dialog`, handed in) plays it from the greeting or from where the other
   dialog stands, to its end or for one chatbot turn;
5. once played: what it changed stored with the world's digest, the deterministic checks run, the grade taken
   (the event's grader once it ended; while it goes on, its outcome alone), and, once it ended, its simulated
   user audited;
6. its record stamped with what it was played as (`Casting.stamped`).

It returns a `Played`: the dialog, and where it stands (the graph's state, the chatbot's conversation, and,
for a dialog played one turn at a time, its world), which another dialog can go on from.

A red-team attack plays through it too (`redteam.conversation_attack`): its attacker is the event's user role
(`modes.user_role`), its dialogs have a role of their own (`attack`, `Casting.for_attack`), played one turn at a
time as the rollouts' branches are; a refused message is rolled back by playing the next attempt from the last turn
kept, its last message replaced, so the chatbot's conversation is forked from the kept branch and never sees the
refused one.

How the ways of playing still to come plug in, each without a copy of the above:

- a production replay: a recorded conversation played again against the chatbot is an event whose user role
  says the recorded messages (`modes.user_role`), played here with `role: production`; one judged as it was
  recorded is not played at all, only read as a dialog (`production.transcripts`).
- a rule's example traces: a player made with a `graph` that returns the trace instead of playing the dialog
  graph stores, checks, grades and audits it as a played dialog.
"""

from __future__ import annotations

import asyncio
import filecmp
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from intellagent.artifacts import Dialog, DialogRole, Event
from intellagent.chatbots import Chatbot, ChatbotConversation, ChatbotSession, DialogWorld, ForkingConversation
from intellagent.checks import Check, Trace, run_checks
from intellagent.checks.compiled_checks import catalog_checks
from intellagent.context import RunContext, log
from intellagent.environment import Environment, worlds
from intellagent.llm import Usage
from intellagent.run_folder import RunFolder
from intellagent.simulate.consent_reading import agreements
from intellagent.simulate.control import Control, Way, dialog_environment
from intellagent.simulate.databases import DialogFiles
from intellagent.simulate.fault_question import confirmed
from intellagent.simulate.graders import Grader, GraderOf, OutcomeGrader, UserVerdict
from intellagent.simulate.mutant_chatbots import mutant_dialog_id
from intellagent.simulate.setting import DialogDeps, consent_question, dialog_deps, fault_question, goal_question
from intellagent.simulate.trials import trial_id
from intellagent.simulate.user_audit import audited, program_audit
from intellagent.simulate.users import UserRoleOf

if TYPE_CHECKING:
    from intellagent.chatbots.mcp_world import WorldServer

TurnState = dict[str, Any]
"""The dialog graph's state (`graphs.dialog.DialogState`): data only, where a dialog stands."""


class PlayDialog(Protocol):
    """Plays a dialog (the dialog graph's `play_dialog`)."""

    def __call__(self, deps: DialogDeps, state: TurnState | None, *,
                 one_turn: bool) -> Awaitable[tuple[TurnState, Dialog]]:
        """From `state` (None: from the greeting), to the dialog's end, or, with `one_turn`, to where the chatbot
        would reply again; returns the state there and the dialog it stands for."""
        ...


@dataclass(frozen=True)
class Casting:
    """What a dialog is played as: the identity its record carries (made by `for_trial`, `for_mutant`,
    `for_branch` and `for_attack`, where the ids of the dialogs are made).

    Attributes:
        role: what it is played for (see `artifacts.DialogRole`).
        id: its id, unique among its role's dialogs of the run; it names its chatbot session, its trace and,
            unless `world` says otherwise, its stored world. Nothing reads it for meaning.
        trial: which trial of its event it is (`simulate.trials`).
        mutant: the mutant that plays the chatbot's part (role `mutant`).
        control: dual or solo, where the user has tools (`simulate.control`); None where it has none.
        world: where its world is stored, relative to the run folder (None: dialogs/<id>.delta.json).
    """

    role: DialogRole
    id: str
    trial: int = 1
    mutant: str | None = None
    control: Control | None = None
    world: str | None = None

    @classmethod
    def for_trial(cls, event_id: str, trial: int, way: Way) -> Casting:
        """The chatbot under test's dialog in a trial of an event, played `way` (the run's own, or solo beside)."""
        return cls(role=way.role, id=way.dialog_id(trial_id(event_id, trial)), trial=trial, control=way.control)

    @classmethod
    def for_mutant(cls, event_id: str, mutant: str, way: Way) -> Casting:
        """A calibration mutant's dialog on an event, played the run's own `way`."""
        return cls(role="mutant", id=mutant_dialog_id(event_id, mutant), mutant=mutant, control=way.control)

    @classmethod
    def for_branch(cls, event_id: str, branch: str, way: Way) -> Casting:
        """A branch of the rollouts' search on an event (`branch`: its place in the tree, '0.2.1'), played the run's
        own `way`, its world stored under the rollouts' (rollouts/<event>/<branch>)."""
        return cls(role="rollout", id=f"{event_id}~r{branch}", control=way.control,
                   world=RunFolder.rollout_worlds.stored(f"{event_id}/{branch}"))

    @classmethod
    def for_attack(cls, attack_id: str, attempt: str, way: Way) -> Casting:
        """An attempt of a red-team attack (`attempt`: its number in the attack, '0' the opening), played the run's
        own `way`, its world stored under the attacks' (attacks/<attack>/<attempt>)."""
        return cls(role="attack", id=f"{attack_id}~a{attempt}", control=way.control,
                   world=RunFolder.attack_worlds.stored(f"{attack_id}/{attempt}"))

    @property
    def stored_world(self) -> str:
        """Where its world is stored, relative to the run folder."""
        return self.world or RunFolder.dialog_worlds.stored(self.id)

    def stamped(self, dialog: Dialog, event: Event) -> Dialog:
        """`dialog` recorded as what it was played as, on `event`."""
        return dialog.model_copy(update={"id": self.id, "role": self.role, "event": event.id, "trial": self.trial,
                                         "mutant": self.mutant, "control": self.control, "persona": event.persona,
                                         "claim": event.claim, "planted": event.planted})

    def unplayed(self, event: Event, reason: str) -> Dialog:
        """The record of the dialog when it could not be played: an `error` that says why."""
        failed = Dialog(id=self.id, status="error", reason=reason, policies=event.policies, challenge=event.challenge)
        return self.stamped(failed, event)


@dataclass
class Played:
    """A dialog the player played, and where it stands.

    Attributes:
        dialog: the dialog, stored, checked, graded, audited once it ended, and stamped.
        state: the dialog graph's state where it stopped.
        conversation: the chatbot's side of it, which a dialog going on from it forks.
        files: its world, kept for a dialog played one turn at a time, which another may go on from (None once
            the dialog is over, or without a world).
    """

    dialog: Dialog
    state: TurnState
    conversation: ChatbotConversation
    files: DialogFiles | None = None

    @property
    def ended(self) -> bool:
        """Whether the dialog reached its end (a dialog played one turn at a time may still go on)."""
        return self.state["outcome"] is not None

    def drop_world(self) -> None:
        """Remove its complete database, once no dialog will go on from it (what it changed stays stored)."""
        if self.files is not None:
            self.files.played.unlink(missing_ok=True)


@dataclass(frozen=True)
class DialogPlayer:
    """Plays a stage's dialogs (see the module's docstring).

    Attributes:
        ctx: the run.
        graph: plays the dialog graph (`graphs.dialog.play_dialog`).
        user_role: the simulated user of each event (`modes.user_role`: the event's mode decides).
        grader: what grades each event's dialogs once they ended (`modes.grader`).
        compiled: the run's rules and compiled assertions, as checks, run with the domain's.
        world_server: the run's MCP server, which serves each dialog's world to an endpoint chatbot.
    """

    ctx: RunContext
    graph: PlayDialog
    user_role: UserRoleOf
    grader: GraderOf
    compiled: Sequence[Check[Trace]] = ()
    world_server: WorldServer | None = None

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, chatbots: Sequence[Chatbot], *, play: PlayDialog, user_role: UserRoleOf,
                   grader: GraderOf) -> AsyncIterator[DialogPlayer]:
        """The player of a stage whose dialogs `chatbots` play, while the stage runs: the rules and compiled
        assertions read once, the worlds served over MCP if a chatbot is an endpoint that reaches them that way."""
        async with served_world(ctx, chatbots) as world_server:
            yield cls(ctx=ctx, graph=play, user_role=user_role, grader=grader, compiled=checks_in_force(ctx),
                      world_server=world_server)

    async def play(self, event: Event, casting: Casting, start: Chatbot | Played, *, one_turn: bool = False,
                   max_turns: int | None = None, usage: Usage | None = None) -> Played:
        """Play a dialog on `event` as `casting` says, and record it.

        Args:
            start: where the dialog starts: a chatbot, which opens a conversation for it from the greeting on the
                event's world; or a dialog played one turn at a time before, which it goes on from: that one's
                conversation forked, its world copied, its state the dialog's.
            one_turn: play one chatbot turn and the user's answer (the dialog is over only if it ended there);
                its world is kept for a dialog that goes on from it (`Played.drop_world`), and its simulated
                user, audited once it ended, is not put to the goal question, which would cost a call per branch.
            max_turns: user turns after which it ends (None: `simulate.max_turns`).
            usage: the accounting its share of the calls counts in too (None: the run's).
        """
        ctx, after = self.ctx, start if isinstance(start, Played) else None
        environment = dialog_environment(ctx.environment, casting.control)
        files = await asyncio.to_thread(self._files, event, casting, after)
        share = Usage(parent=usage or ctx.usage)  # the dialog's share, counted in the run's totals too
        world = DialogWorld(environment, files.played, timeout=ctx.config.environment.tool_timeout) if files else None
        try:
            with ExitStack() as hosted:
                mcp_url = (hosted.enter_context(self.world_server.hosting(casting.id, world))
                           if self.world_server and world else None)
                session = ChatbotSession(id=casting.id, database=files.played if files else None, usage=share,
                                         world=world, mcp_url=mcp_url)
                conversation = _opened(start, session)
                deps = dialog_deps(ctx, event, conversation, user_role=self.user_role, played_id=casting.id,
                                   usage=share, world=world, environment=environment, max_turns=max_turns)
                state, played = await self.graph(deps, after.state if after else None, one_turn=one_turn)
            ended = state["outcome"] is not None
            agreed = (await agreements(deps.critique, environment, played.transcript)
                      if ended and consent_question(ctx) else {})
            # Reading a world back (its changes, the checks, a grade) takes seconds on a large one: off the loop,
            # so that the other dialogs' conversations go on meanwhile.
            settled = await asyncio.to_thread(settle, environment, event, played, files, self._grader(event, ended),
                                              self.compiled, agreed)
            if ended and settled.status != "error":  # a dialog that failed to run is never judged, nor is its user
                audit = await asyncio.to_thread(program_audit, environment, event, settled,
                                                world=files.start if files else None)
                longest = fault_question(ctx)
                if longest is not None and not one_turn:
                    audit = await confirmed(event, settled, audit, deps.critique, longest=longest)
                judge = deps.critique if goal_question(ctx) and not one_turn else None
                settled.audit = await audited(event, settled, audit, judge)
        finally:
            if files and not one_turn:
                files.clear()
        record = casting.stamped(settled, event).model_copy(
            update={"usage": share.report().roles, "database": files.name if files else None})
        return Played(dialog=record, state=state, conversation=conversation, files=files if one_turn else None)

    def _files(self, event: Event, casting: Casting, after: Played | None) -> DialogFiles | None:
        """The dialog's world: a copy of the one it goes on from, or the event's made whole (None: the event has
        no world)."""
        folder = self.ctx.folder
        if after is not None and after.files is not None:
            return after.files.continued(folder, casting.stored_world)
        return DialogFiles.of(folder, event, casting.stored_world) if event.database is not None else None

    def _grader(self, event: Event, ended: bool) -> Grader:
        """What grades the dialog: the event's grader once it ended; while it goes on, its expected outcome alone
        (the status a mode grades by, τ-bench's comparing whole worlds, takes seconds on its database)."""
        return self.grader(event, self.ctx.folder) if ended else OutcomeGrader(self.ctx.folder, UserVerdict())


def _opened(start: Chatbot | Played, session: ChatbotSession) -> ChatbotConversation:
    """The chatbot's conversation in a dialog: opened by the chatbot, or forked from the dialog it goes on from."""
    if not isinstance(start, Played):
        return start.open(session)
    if not isinstance(start.conversation, ForkingConversation):
        raise TypeError("a dialog goes on from another only when its chatbot's conversation forks (SamplingChatbot)")
    return start.conversation.fork(session)


def settle(environment: Environment, event: Event, played: Dialog, files: DialogFiles | None, grader: Grader,
           compiled: Sequence[Check] = (), agreed: dict[int, bool] | None = None) -> Dialog:
    """A played dialog with its world stored and digested, the deterministic checks' findings (the rules'
    among them), and its grade; `agreed`: the critique's reading of the user's answer before each write, where it
    was asked."""
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
    """The run's rules and compiled assertions, as checks that every dialog is run through with the domain's own."""
    catalog = ctx.folder.policies.load()
    return catalog_checks(catalog) if catalog else []


@asynccontextmanager
async def served_world(ctx: RunContext, chatbots: Sequence[Chatbot]) -> AsyncIterator[WorldServer | None]:
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
