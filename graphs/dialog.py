"""One dialog: the simulated user, the chatbot under test and the critique, as a LangGraph state machine.

    START → chatbot ──route_after_chatbot──→ user | END (max turns: incomplete)
    user ──route_after_user──→ chatbot (continue) | critique (stop) | accept (stop, send-backs used up)
    critique ──route_after_critique──→ accept (verdict confirmed) | user (sent back with feedback)
    accept → END (pass or fail)

The chatbot greets first. The user sees only the chatbot's messages; its private thought never reaches
the chatbot. A stop goes to the critique, which reads the whole policy and every tool call, and may
send the dialog back to the user with feedback, `max_critiques` times. An exception in any node ends
the dialog with status `error` and keeps the transcript so far, except the simulator's own failures:
a user that cannot write a usable turn (it keeps echoing the agent, say) ends the dialog `incomplete`,
so what the chatbot did is still judged, and a critique that cannot answer leaves the verdict unchecked.

A τ-bench task's user follows τ-bench's conventions instead: it has only the task's private
instruction, asks for no critique and gives no verdict; it ends the conversation with a stop token,
and the simulate stage grades the dialog by the task's gold actions.
"""

from __future__ import annotations

import functools
import logging
import operator
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal, NamedTuple, Protocol, TypedDict

from langchain_core.messages import BaseMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from intellagent.artifacts import CritiqueExchange, Dialog, DialogStatus, Event, Message, ToolCall
from intellagent.chatbots import ChatbotConversation, ChatbotError, ChatbotReply, DialogWorld
from intellagent.errors import IntellAgentError, RunAborted, failure_reason
from intellagent.llm import LLM, AnswerInvalid
from intellagent.prompt_files import render
from intellagent.simulate.transcript import agent_line, known_rows, public_messages, transcript_text, user_line
from intellagent.simulate.turns import (
    STOP_TOKEN,
    BriefFinalUserTurn,
    BriefUserTurn,
    Critique,
    FinalUserTurn,
    TaskUserTurn,
    UserTurn,
    redraft_reason,
)

log = logging.getLogger("intellagent")

# Times a user message that repeats the agent or the user is drafted again before the dialog ends.
REDRAFTS = 2


class Stop(NamedTuple):
    """A user's verdict, waiting for the critique."""

    turn: int
    verdict: Literal["success", "failure"]
    reason: str
    thought: str


class Outcome(NamedTuple):
    """How the dialog ended."""

    status: DialogStatus
    reason: str


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


@dataclass
class DialogDeps:
    """What the nodes of one dialog work with (the graph's runtime context).

    Attributes:
        event: the event played out.
        policy: the policy document, which the critique reads whole.
        conversation: the chatbot under test, opened for this dialog.
        user, critique: the simulated user's and the critique's models.
        greeting: the chatbot's first message.
        max_turns: user turns after which the dialog ends as `incomplete`.
        max_critiques: times the critique may send the dialog back.
        world: the dialog's database as the chatbot reaches it; the calls made there are recorded.
        user_thoughts: whether the user writes a private thought before each message.
        name: the dialog's id, which names its trace (the event's, with its trial or mutant).
    """

    event: Event
    policy: str
    conversation: ChatbotConversation
    user: LLM
    critique: LLM
    greeting: str
    max_turns: int
    max_critiques: int
    world: DialogWorld | None = None
    user_thoughts: bool = True
    name: str = ""
    started: float = field(default_factory=time.monotonic)

    def clock(self) -> float:
        """Seconds since the dialog started."""
        return round(time.monotonic() - self.started, 2)


Update = dict[str, Any]


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
    calls = [_numbered(call, made + n) for n, call in enumerate([*ran, *reply.tool_calls], start=1)]
    if failed is not None:
        turn = [Message(role="chatbot", content="", tool_calls=calls, at_s=deps.clock())] if calls else []
        return {"transcript": turn, "outcome": Outcome("error", f"chatbot: {failure_reason(failed)}")}
    update: Update = {
        "transcript": [Message(role="chatbot", content=reply.content, tool_calls=calls, at_s=deps.clock())],
        "user_view": [agent_line(reply.content)],
    }
    if reply.ends_dialog and deps.event.task is not None:  # as in τ-bench, a transfer to a human ends the task
        update["outcome"] = Outcome("incomplete", "the chatbot ended the conversation")
    elif reply.ends_dialog:
        update["chatbot_ended"] = True
        update["user_view"] += [note("simulate/user_dialog_ended")]
    elif state["turns"] >= deps.max_turns:
        update["outcome"] = Outcome("incomplete", f"no verdict after {state['turns']} user turns (simulate.max_turns)")
    return update


def _numbered(call: ToolCall, number: int) -> ToolCall:
    return call if call.id else call.model_copy(update={"id": f"call_{number}"})


@guarded("user")
async def user(state: DialogState, *, runtime: Runtime[DialogDeps]) -> Update:
    """The simulated user's turn: a message for the chatbot, or a verdict (in τ-bench mode, or the end)."""
    deps = runtime.context
    transcript = state["transcript"]
    said = [message.content for message in transcript if message.role == "user"]
    agent_said = [message.content for message in transcript if message.role == "chatbot"]
    number = state["turns"] + 1
    # τ-bench's user gets no reminders: its conventions are τ-bench's, and its prompt holds them all.
    view = state["user_view"] if deps.event.task else state["user_view"] + _reminders(number, deps.max_turns)
    schema = _user_schema(deps, ending=state["chatbot_ended"])
    for redraft in range(REDRAFTS + 1):
        try:
            turn = await deps.user.answer(_user_messages(deps, view), schema, step="simulate/user",
                                          warmer=redraft > 0)
        except AnswerInvalid as error:
            # The simulator, not the chatbot, failed: what the chatbot did so far is still judged.
            return {"outcome": Outcome("incomplete", f"the simulated user could not go on: {failure_reason(error)}")}
        private = deps.event.scenario if deps.event.task else ""  # only a τ-bench instruction is private
        problem = redraft_reason(turn, agent_said=agent_said, user_said=said, private=private)
        if problem is None:
            break
        # The draft is quoted in a note rather than answered with an error, and sampled warmer: shown its
        # own answer and an error, the embedded model wrote the same echo three times.
        view = [*view, note("simulate/user_redraft", draft=turn.message, problem=problem)]
    else:
        return {"outcome": Outcome("incomplete", f"the simulated user could not go on: its message {problem}")}
    update: Update = {"turns": number}
    if isinstance(turn, TaskUserTurn) and turn.stops:
        update["outcome"] = Outcome("incomplete", TASK_ENDED)
    elif isinstance(turn, UserTurn) and turn.stops:
        verdict: Literal["success", "failure"] = "success" if turn.decision == "stop-success" else "failure"
        update["stop"] = Stop(turn=number, verdict=verdict, reason=turn.reason, thought=turn.thought)
    else:
        thought = turn.thought if isinstance(turn, UserTurn) else None
        update["transcript"] = [Message(role="user", content=turn.message, thought=thought, at_s=deps.clock())]
        update["user_view"] = [user_line(turn.message)]
    return update


# A τ-bench task's dialog ends without a verdict; the stage grades it by the task's gold actions.
TASK_ENDED = "the user ended the conversation"


def _user_schema(deps: DialogDeps, *, ending: bool) -> type[UserTurn | TaskUserTurn]:
    """The user's answer: a message alone for a τ-bench task; else with a decision, which must be a
    verdict once the chatbot ended the conversation, and with a thought if the run asks for one."""
    if deps.event.task is not None:
        return TaskUserTurn
    if deps.user_thoughts:
        return FinalUserTurn if ending else UserTurn
    return BriefFinalUserTurn if ending else BriefUserTurn


def _user_messages(deps: DialogDeps, view: list[str]) -> list[BaseMessage]:
    """The user agent's prompt: a τ-bench task's, or the scenario's."""
    if deps.event.task is not None:
        return task_user_prompt(deps.event, view)
    return user_prompt(deps.event, view, thoughts=deps.user_thoughts)


def _reminders(number: int, max_turns: int) -> list[str]:
    """Notes for the user's first and last turns, the two a small model gets wrong: on the first it
    echoes the greeting, on the last it keeps chatting after its answer came."""
    if number == max_turns:
        return [note("simulate/user_last_turn")]
    return [note("simulate/user_first_turn")] if number == 1 else []


def user_prompt(event: Event, view: list[str], *, thoughts: bool = True) -> list[BaseMessage]:
    """The user agent's instructions (its situation, what it knows, what the chatbot should do) and the
    conversation so far as one text, so that a small model never mistakes whose turn it is."""
    return render(
        "simulate/user",
        scenario=event.scenario,
        known=known_rows(event.user_rows),
        expected_behaviour=event.expected_behaviour,
        conversation="\n".join(view),
        thought_field=note("simulate/user_thought_field") + "\n" if thoughts else "",
    )


def task_user_prompt(event: Event, view: list[str]) -> list[BaseMessage]:
    """The user agent's instructions for a τ-bench task: the task's private instruction alone, as τ-bench
    gives it, and the conversation so far."""
    return render("simulate/task_user", instruction=event.scenario, conversation="\n".join(view), stop_token=STOP_TOKEN)


def note(prompt: str, **values: str) -> str:
    """A note to the user agent, from a one-message prompt file."""
    return str(render(prompt, **values)[0].content)


@guarded("critique")
async def critique(state: DialogState, *, runtime: Runtime[DialogDeps]) -> Update:
    """Check the user's verdict against the policy and the full transcript; confirm it or send it back."""
    deps = runtime.context
    stop = state["stop"]
    assert stop is not None  # routed here only with a verdict
    messages = render(
        "simulate/critique",
        policy=deps.policy,
        transcript=transcript_text(state["transcript"]),
        verdict=stop.verdict,
        reason=stop.reason,
    )
    try:
        answer = await deps.critique.answer(messages, Critique, step="simulate/critique")
    except AnswerInvalid as error:
        # No usable check: the verdict stands unchecked, as when the send-backs are used up.
        log.info("dialog %s: the critique could not answer (%s)", deps.event.id, failure_reason(error))
        return {}
    exchange = CritiqueExchange(
        turn=stop.turn,
        verdict=stop.verdict,
        reason=stop.reason,
        thought=stop.thought,
        confirmed=answer.correct,
        feedback="" if answer.correct else answer.feedback,
    )
    if answer.correct:
        return {"critiques": [exchange]}
    feedback = note("simulate/user_feedback", verdict=stop.verdict, reason=stop.reason, feedback=answer.feedback)
    return {"critiques": [exchange], "stop": None, "user_view": [feedback]}


async def accept(state: DialogState, *, runtime: Runtime[DialogDeps]) -> Update:
    """The verdict stands: the dialog passes or fails (recorded unchecked when no critique looked at it)."""
    stop = state["stop"]
    assert stop is not None  # routed here only with a verdict
    update: Update = {"outcome": Outcome("pass" if stop.verdict == "success" else "fail", stop.reason)}
    checked = bool(state["critiques"]) and state["critiques"][-1].turn == stop.turn
    if not checked:
        exchange = CritiqueExchange(
            turn=stop.turn,
            verdict=stop.verdict,
            reason=stop.reason,
            thought=stop.thought,
            confirmed=True,
            checked=False,
        )
        update["critiques"] = [exchange]
    return update


def route_after_chatbot(state: DialogState) -> str:
    """The user answers, unless the dialog is over (max turns, or an error)."""
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
    """The dialog graph, compiled once; run it with `run_dialog`."""
    graph = StateGraph(DialogState, context_schema=DialogDeps)
    graph.add_node("chatbot", chatbot)
    graph.add_node("user", user)
    graph.add_node("critique", critique)
    graph.add_node("accept", accept)
    graph.add_edge(START, "chatbot")
    graph.add_conditional_edges("chatbot", route_after_chatbot, ["user", END])
    graph.add_conditional_edges("user", route_after_user, ["chatbot", "critique", "accept", END])
    graph.add_conditional_edges("critique", route_after_critique, ["accept", "user", END])
    graph.add_edge("accept", END)
    return graph.compile()


async def run_dialog(deps: DialogDeps) -> Dialog:
    """Play one dialog to its end and return it (without usage or database, which the stage adds)."""
    start: DialogState = {
        "transcript": [],
        "user_view": [],
        "critiques": [],
        "turns": 0,
        "stop": None,
        "chatbot_ended": False,
        "outcome": None,
    }
    # Each user turn takes two steps (user, chatbot), each verdict at most three more; a margin for the rest.
    limit = 2 * deps.max_turns + 3 * (deps.max_critiques + 1) + 5
    config = {"recursion_limit": limit, "run_name": f"dialog {deps.name or deps.event.id}"}
    state = await build_graph().ainvoke(start, config, context=deps)
    outcome: Outcome = state["outcome"]
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
