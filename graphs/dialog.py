"""One dialog: the simulated user, the chatbot under test and the critique, as a LangGraph state machine.

    START → chatbot ──route_after_chatbot──→ user | END (max turns: incomplete; the user's ending)
    user ──route_after_user──→ chatbot (continue) | critique (stop) | accept (stop, send-backs used up)
                               | END (the user's ending)
    critique ──route_after_critique──→ accept (verdict confirmed) | user (sent back with feedback)
    accept → END (pass or fail)

Every dialog is played by the dialog player (`simulate.player`), which hands it its parts (`DialogDeps`, the
runtime context) and calls `play_dialog`. A dialog may also be played one chatbot turn at a time (the rollouts'
branches), on the same nodes and routes cut where the chatbot would reply again, and go on from any state.

The chatbot greets first. The user sees only the chatbot's messages; its private thought never reaches
the chatbot. Where the domain gives the user tools of its own (dual control), the user may call them
before its message, as the chatbot asks it to or to look; each call runs on the dialog's world, is
recorded on the user's message, and reaches the chatbot only as the user reports it in words.
What the user is told, how it answers and what its stop means is its role's (`simulate.users`, chosen
per event by `intellagent.modes`): a sampled scenario's user stops with a
verdict, which goes to the critique; the critique reads the whole policy and every tool call, and may
send the dialog back to the user with feedback, `max_critiques` times. τ-bench's user instead ends the
conversation with a stop token, and a chatbot's transfer to a human ends it too; the dialog is then
graded by the task's gold actions. An exception in any node ends the dialog with status `error` and
keeps the transcript so far, except the simulator's own failures: a user that cannot write a usable
turn (it keeps echoing the agent, say) ends the dialog `incomplete`, so what the chatbot did is still
judged, and a critique that cannot answer leaves the verdict unchecked.
"""

from __future__ import annotations

import functools
import logging
import operator
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Annotated, Protocol, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from intellagent.artifacts import CritiqueExchange, Dialog, Message
from intellagent.chatbots import ChatbotError, ChatbotReply
from intellagent.errors import IntellAgentError, RunAborted, failure_reason
from intellagent.llm import AnswerInvalid
from intellagent.simulate.actions import UserActions
from intellagent.simulate.critique import checked_verdict, exchange
from intellagent.simulate.drafts import draft_fault, restatement
from intellagent.simulate.setting import DialogDeps
from intellagent.simulate.transcript import agent_line, numbered, public_messages, user_line
from intellagent.simulate.users import Outcome, Stop, Update, gave_up, note

log = logging.getLogger("intellagent")

# Times a user's draft at fault (see simulate.drafts) is drawn again before the last one is sent as it is. Once:
# on the embedded model a second redraw came back word for word as the first in eight of nine turns.
REDRAFTS = 1


class DialogState(TypedDict):
    """The dialog so far.

    Attributes:
        transcript: the public conversation, with the user's thoughts and the chatbot's tool calls.
        user_view: the conversation as the user agent sees it, a line per entry: the chatbot's and its own
            messages, and notes for it (the critique's feedback, the end of the conversation).
        critiques: every stop verdict and what became of it.
        turns: the user's answers so far (a stop counts).
        stop: a verdict not yet confirmed.
        chatbot_ended: the chatbot closed the conversation; the user owes a verdict.
        outcome: set once the dialog is over.
    """

    transcript: Annotated[list[Message], operator.add]
    user_view: Annotated[list[str], operator.add]
    critiques: Annotated[list[CritiqueExchange], operator.add]
    turns: int
    stop: Stop | None
    chatbot_ended: bool
    outcome: Outcome | None


class Node(Protocol):
    """A node of the dialog: reads the state and the dialog's context, returns the keys it changes."""

    def __call__(self, state: DialogState, *, runtime: Runtime[DialogDeps]) -> Awaitable[Update]: ...


def guarded(name: str) -> Callable[[Node], Node]:
    """A node whose exception (other than an aborted run) ends the dialog with status `error`."""

    def wrap(node: Node) -> Node:
        @functools.wraps(node)
        async def run(state: DialogState, *, runtime: Runtime[DialogDeps]) -> Update:
            try:
                return await node(state, runtime=runtime)
            except RunAborted:
                raise
            except Exception as error:  # the dialog's failure, recorded with its reason and transcript
                if not isinstance(error, IntellAgentError):
                    log.debug("dialog %s: %s failed", runtime.context.event.id, name, exc_info=True)
                return {"outcome": Outcome("error", f"{name}: {failure_reason(error)}")}

        return run

    return wrap


@guarded("chatbot")
async def chatbot(state: DialogState, *, runtime: Runtime[DialogDeps]) -> Update:
    """The chatbot's turn: the greeting first, then a reply to the user's message."""
    deps = runtime.context
    failed = None
    if not state["transcript"]:
        reply = ChatbotReply(content=deps.greeting)
    else:
        try:
            reply = await deps.conversation.reply(public_messages(state["transcript"]))
        except ChatbotError as error:  # the turn's calls are kept with the failure: they happened
            reply, failed = ChatbotReply(content="", tool_calls=error.calls), error
    # The calls made on the world during the turn that the adapter did not hand back itself (a Python
    # callable's through its tools, an endpoint's over MCP) come first: they happened; reported ones are
    # only said to have.
    ran = deps.world.taken() if deps.world else []
    made = sum(len(message.tool_calls) for message in state["transcript"])
    calls = numbered([*ran, *reply.tool_calls], after=made)
    if failed is not None:
        turn = [Message(role="chatbot", content="", tool_calls=calls, at_s=deps.clock())] if calls else []
        return {"transcript": turn, "outcome": Outcome("error", f"chatbot: {failure_reason(failed)}")}
    update: Update = {
        "transcript": [Message(role="chatbot", content=reply.content, tool_calls=calls, at_s=deps.clock())],
        "user_view": [agent_line(reply.content)],
    }
    if reply.ends_dialog:
        update.update(deps.user.chatbot_ended(update["user_view"]))
    elif state["turns"] >= deps.max_turns:
        update["outcome"] = Outcome("incomplete", f"no verdict after {state['turns']} user turns (simulate.max_turns)")
    return update


@guarded("user")
async def user(state: DialogState, *, runtime: Runtime[DialogDeps]) -> Update:
    """The simulated user's turn: its calls on its own side, if it has tools, then a message for the chatbot, or
    its stop."""
    deps = runtime.context
    transcript = state["transcript"]
    said = [message.content for message in transcript if message.role == "user"]
    agent_said = [message.content for message in transcript if message.role == "chatbot"]
    number = state["turns"] + 1
    view = state["user_view"] + deps.user.reminders(number, deps.max_turns)
    acts = UserActions(deps)
    for redraft in range(REDRAFTS + 1):
        try:
            turn = await acts.turn(view, ending=state["chatbot_ended"], warmer=redraft > 0, opening=number == 1)
        except AnswerInvalid as error:
            # The simulator, not the chatbot, failed: what the chatbot did so far is still judged.
            return acts.kept({"outcome": gave_up(failure_reason(error))}, transcript)
        fault = draft_fault(turn, agent_said=agent_said, user_said=said, private=deps.user.private,
                            may_go_on=number < deps.max_turns and not state["chatbot_ended"],
                            request_ids=deps.user.request_ids)
        if fault is None:
            break
        if fault.added:
            turn = turn.model_copy(update={"message": f"{turn.message.rstrip()} {fault.added}"})
            break
        if redraft == REDRAFTS:
            if not fault.repeats:
                break  # sent as it is: the audit counts what got through
            again = restatement(deps.event, deps.user.request_ids, user_said=said)
            if again is None:  # sent, it could not move the conversation: the user cannot go on
                return acts.kept({"outcome": gave_up(f"its message {fault.problem}")}, transcript)
            turn = turn.model_copy(update={"message": again})
            break
        # The draft is quoted in a note rather than answered with an error, and sampled warmer: shown its
        # own answer and an error, the embedded model wrote the same echo three times.
        shown = turn.message if not turn.stops else f"(you ended the conversation: {getattr(turn, 'reason', '')})"
        view = [*view, note("simulate/user_redraft", draft=shown, problem=fault.problem)]
    update: Update = {"turns": number}
    if turn.stops:
        update.update(deps.user.stopped(turn, number))
        return acts.kept(update, transcript)
    message, moves = deps.user.moved(turn.message, number)
    update["transcript"] = [Message(role="user", content=message, thought=turn.thought, moves=moves,
                                    tool_calls=acts.numbered(transcript), at_s=deps.clock())]
    update["user_view"] = [*acts.lines, user_line(message)]
    return update


@guarded("critique")
async def critique(state: DialogState, *, runtime: Runtime[DialogDeps]) -> Update:
    """Check the user's verdict against the policy and the full transcript; confirm it or send it back."""
    deps = runtime.context
    stop = state["stop"]
    assert stop is not None  # routed here only with a verdict
    answer = await checked_verdict(deps.critique, deps.policy, deps.tools, state["transcript"], stop,
                                   dialog=deps.event.id)
    if answer is None:
        return {}
    if answer.correct:
        return {"critiques": [exchange(stop, confirmed=True)]}
    feedback = note("simulate/user_feedback", verdict=stop.verdict, reason=stop.reason, feedback=answer.feedback)
    return {"critiques": [exchange(stop, confirmed=False, feedback=answer.feedback)], "stop": None,
            "user_view": [feedback]}


async def accept(state: DialogState, *, runtime: Runtime[DialogDeps]) -> Update:
    """The verdict stands: the dialog passes or fails (recorded unchecked when no critique looked at it)."""
    stop = state["stop"]
    assert stop is not None  # routed here only with a verdict
    update: Update = {"outcome": Outcome("pass" if stop.verdict == "success" else "fail", stop.reason)}
    checked = bool(state["critiques"]) and state["critiques"][-1].turn == stop.turn
    if not checked:
        update["critiques"] = [exchange(stop, confirmed=True, checked=False)]
    return update


def route_after_chatbot(state: DialogState) -> str:
    """The user answers, unless the dialog is over (max turns, the user's ending, or an error)."""
    return END if state["outcome"] else "user"


def route_after_user(state: DialogState, *, runtime: Runtime[DialogDeps]) -> str:
    """A message goes to the chatbot; a verdict to the critique while it may still send the dialog back."""
    if state["outcome"]:
        return END
    if state["stop"] is None:
        return "chatbot"
    sent_back = sum(not exchange.confirmed for exchange in state["critiques"])
    return "critique" if sent_back < runtime.context.max_critiques else "accept"


def route_after_critique(state: DialogState) -> str:
    """A confirmed verdict is accepted; one sent back returns to the user."""
    if state["outcome"]:
        return END
    return "accept" if state["stop"] is not None else "user"


@cache
def build_graph() -> CompiledStateGraph[DialogState, DialogDeps, DialogState, DialogState]:
    """The dialog graph, compiled once; run it with `play_dialog`."""
    return _graph(one_turn=False)


@cache
def build_turn_graph() -> CompiledStateGraph[DialogState, DialogDeps, DialogState, DialogState]:
    """The dialog graph cut after one chatbot turn, compiled once; run it with `play_dialog(..., one_turn=True)`."""
    return _graph(one_turn=True)


def _graph(*, one_turn: bool) -> CompiledStateGraph[DialogState, DialogDeps, DialogState, DialogState]:
    """The dialog's nodes and routes; with `one_turn`, where the chatbot would reply again the graph ends instead."""
    next_turn = END if one_turn else "chatbot"
    graph = StateGraph(DialogState, context_schema=DialogDeps)
    graph.add_node("chatbot", chatbot)
    graph.add_node("user", user)
    graph.add_node("critique", critique)
    graph.add_node("accept", accept)
    graph.add_edge(START, "chatbot")
    graph.add_conditional_edges("chatbot", route_after_chatbot, ["user", END])
    graph.add_conditional_edges("user", route_after_user, {"chatbot": next_turn, "critique": "critique",
                                                           "accept": "accept", END: END})
    graph.add_conditional_edges("critique", route_after_critique, ["accept", "user", END])
    graph.add_edge("accept", END)
    return graph.compile()


def opening() -> DialogState:
    """The state of a dialog before its first turn."""
    return {
        "transcript": [],
        "user_view": [],
        "critiques": [],
        "turns": 0,
        "stop": None,
        "chatbot_ended": False,
        "outcome": None,
    }


async def play_dialog(deps: DialogDeps, state: DialogState | None, *, one_turn: bool = False
                      ) -> tuple[DialogState, Dialog]:
    """Play a dialog from `state` (None: a dialog not yet begun, whose first turn is the greeting) to its end, or,
    with `one_turn`, for one chatbot turn and the user's answer to it, its verdict checked as in a whole dialog, to
    where the chatbot would reply again; return the state there and the dialog it stands for (without usage or
    database, which the dialog player adds)."""
    # Each user turn takes two steps (user, chatbot), each verdict at most three more; a margin for the rest.
    verdicts = 3 * (deps.max_critiques + 1) + 5
    limit = verdicts if one_turn else 2 * deps.max_turns + verdicts
    graph = build_turn_graph() if one_turn else build_graph()
    config = {"recursion_limit": limit, "run_name": f"{'turn' if one_turn else 'dialog'} {deps.name or deps.event.id}"}
    after = await graph.ainvoke(state or opening(), config, context=deps)
    return after, played(deps, after)


def played(deps: DialogDeps, state: DialogState) -> Dialog:
    """The dialog `state` stands for (a dialog still going on is `incomplete`, for want of an ending)."""
    outcome: Outcome = state["outcome"] or Outcome("incomplete", "still going on")
    return Dialog(
        id=deps.event.id,
        status=outcome.status,
        reason=outcome.reason,
        policies=deps.event.policies,
        challenge=deps.event.challenge,
        transcript=state["transcript"],
        critiques=state["critiques"],
        turns=state["turns"],
        duration_s=deps.clock(),
    )
