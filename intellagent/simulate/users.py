"""The simulated user of a dialog, as the dialog graph (`graphs.dialog`) has it play: what it is told, how it
answers, and what its stop means.

A sampled scenario's user (`ScenarioUser`) knows its situation, the rows it may know of and what the
chatbot should do; it is reminded of its part on its first and last turns, and it stops with a verdict
that the critique checks. Where the domain gives the user tools of its own (dual control), each of its
steps is a choice between one of them and its turn (`UserToolStep` or the turn): it looks at its side
of the world and changes it, as the chatbot asks, before it writes its message. A model with native
tool calls makes the choice as one (its turn is the `reply` function); any other as a schema-constrained
JSON choice, as the `llm_agent` chatbot's steps are (`chatbots.tool_choice`). τ-bench's user plays
by τ-bench's conventions (`intellagent.tau.user`). Which user an event gets is decided in one place,
`intellagent.modes.user_role`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, RootModel, ValidationError, create_model

from intellagent.artifacts import Claim, DialogStatus, Event, Persona, PlayedMove
from intellagent.artifacts.dialogs import USER_CUT_SHORT
from intellagent.chatbots.selection import NATIVE_TOOL_PROVIDERS
from intellagent.chatbots.tool_choice import REPLY, describe_tools, step_schema
from intellagent.llm import LLM
from intellagent.outcomes.facts import customer_facts
from intellagent.prompt_files import prompt_text, render
from intellagent.simulate.persona_moves import with_moves
from intellagent.simulate.transcript import known_rows
from intellagent.simulate.turns import (
    BriefFinalUserTurn,
    BriefUserTurn,
    FinalUserTurn,
    TaskUserTurn,
    UserTurn,
    opening_turn,
)

if TYPE_CHECKING:
    from intellagent.environment import Tool

Update = dict[str, Any]
"""Keys of the dialog's state (`graphs.dialog.DialogState`) with their new values."""


class UserToolStep(NamedTuple):
    """The user's call of one of its own tools, which it makes before its message."""

    tool: str
    arguments: dict[str, Any]


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


USER_ENDED = "the user ended the conversation"
"""The reason of a dialog its user ended without a verdict (τ-bench's stop token): its grade decides it."""


def gave_up(why: str) -> Outcome:
    """The end of a dialog whose simulated user could not go on: the simulator failed, not the chatbot, so the
    dialog is `incomplete` and what the chatbot did so far is judged (the audit records the user's fault)."""
    return Outcome("incomplete", f"{USER_CUT_SHORT}: {why}")


def ended_by_user(status: DialogStatus, reason: str) -> bool:
    """Whether the simulated user ended a dialog: with a verdict that stood (pass, fail), or without one."""
    return status in ("pass", "fail") or reason == USER_ENDED


class UserRole(Protocol):
    """The simulated user of one dialog.

    Attributes:
        private: what only the user knows, which its messages must not paste to the chatbot (empty: nothing).
    """

    private: str

    @property
    def request_ids(self) -> tuple[str, ...]:
        """The ids of the records its request is about, one of which its first message must name (empty: it is not
        asked for one)."""
        ...

    def reminders(self, number: int, max_turns: int) -> list[str]:
        """Notes for its turn `number`, after the conversation so far."""
        ...

    async def answer(self, view: list[str], *, ending: bool, warmer: bool, may_act: bool = False,
                     opening: bool = False) -> UserTurn | TaskUserTurn | UserToolStep:
        """Its turn, given the conversation as it sees it; `ending`: the chatbot closed the conversation;
        `warmer`: a draft is asked again, sampled warmer; `may_act`: it may call one of its own tools first
        (a `UserToolStep`), if it has any; `opening`: its first turn, after the chatbot's greeting alone."""
        ...

    def stopped(self, turn: UserTurn | TaskUserTurn, number: int) -> Update:
        """What its stop on turn `number` makes of the dialog."""
        ...

    def moved(self, message: str, number: int) -> tuple[str, list[PlayedMove]]:
        """Its message on turn `number` with its persona's moves of that turn, and the moves it holds."""
        ...

    def chatbot_ended(self, view: list[str]) -> Update:
        """What the chatbot's closing the conversation makes of the dialog (`view`: the user's lines so far)."""
        ...


class UserRoleOf(Protocol):
    """The simulated user of a dialog on an event, played by `llm` (`thoughts`: whether a sampled scenario's
    user writes a private thought; `request_ids`: the ids of the records the event's request is about that its user
    knows, `outcomes.facts.request_ids`); `intellagent.modes.user_role` is the one the stages use."""

    def __call__(self, event: Event, llm: LLM, *, thoughts: bool, tools: Sequence[Tool] = (),
                 request_ids: Sequence[str] = ()) -> UserRole: ...


@dataclass(frozen=True)
class ScenarioUser:
    """The user of a sampled scenario: it plays the event's situation, and stops with a verdict.

    Args:
        event: the event played out.
        llm: its model.
        thoughts: whether it writes a private thought before each message (`simulate.user_thoughts`).
        tools: its own tools on its side of the world (`environment.user_tools`; none in a solo dialog).
        ids: the ids of the records its request is about that it knows (`outcomes.facts.request_ids`).
    """

    event: Event
    llm: LLM
    thoughts: bool = True
    tools: Sequence[Tool] = ()
    ids: tuple[str, ...] = ()
    private: str = ""

    @property
    def request_ids(self) -> tuple[str, ...]:
        """The ids its first message names one of, so that the chatbot has a record to look up; none for a persona
        that gets its details wrong or gives them late on purpose (`Persona.inexact`): holding it to an id would
        take its part from it."""
        persona = self.event.persona
        return () if persona is not None and persona.inexact else self.ids

    def reminders(self, number: int, max_turns: int) -> list[str]:
        """Notes for the first and last turns, the two a small model gets wrong: on the first it echoes the
        greeting, on the last it keeps chatting after its answer came."""
        if number == max_turns:
            return [note("simulate/user_last_turn")]
        return [note("simulate/user_first_turn")] if number == 1 else []

    async def answer(self, view: list[str], *, ending: bool, warmer: bool, may_act: bool = False,
                     opening: bool = False) -> UserTurn | UserToolStep:
        """A message with a decision, which must be a verdict once the chatbot ended the conversation and cannot be
        one on the `opening` turn, and with a thought if the run asks for one; or, while it `may_act` and the
        conversation goes on, a call of one of its own tools in its place."""
        schema = _turn_schema(thoughts=self.thoughts, ending=ending, opening=opening)
        native = self.llm.spec.provider in NATIVE_TOOL_PROVIDERS
        messages = user_prompt(self.event, view, thoughts=self.thoughts, tools=self.tools, native=native)
        if not (self.tools and may_act and not ending):
            return await self.llm.answer(messages, schema, step="simulate/user", warmer=warmer)
        return await tool_step(self.llm, messages, schema, self.tools, warmer=warmer)

    def stopped(self, turn: UserTurn | TaskUserTurn, number: int) -> Update:
        """The verdict, for the critique to check."""
        assert isinstance(turn, UserTurn)
        verdict: Literal["success", "failure"] = "success" if turn.decision == "stop-success" else "failure"
        return {"stop": Stop(turn=number, verdict=verdict, reason=turn.reason, thought=turn.thought)}

    def chatbot_ended(self, view: list[str]) -> Update:
        """The user owes its verdict, and is told so."""
        return {"chatbot_ended": True, "user_view": [*view, note("simulate/user_dialog_ended")]}

    def moved(self, message: str, number: int) -> tuple[str, list[PlayedMove]]:
        """The event's persona's moves of the turn, made by the message or added to it."""
        return with_moves(self.event.persona, self.event.claim, number, message)


def _turn_schema(*, thoughts: bool, ending: bool, opening: bool) -> type[UserTurn]:
    """The schema of a user's turn: a verdict when the chatbot ended the conversation, none on the first turn."""
    if ending:
        return FinalUserTurn if thoughts else BriefFinalUserTurn
    turn = UserTurn if thoughts else BriefUserTurn
    return opening_turn(turn) if opening else turn


async def tool_step(llm: LLM, messages: list[BaseMessage], schema: type[BaseModel], tools: Sequence[Tool], *,
                    warmer: bool) -> Any:
    """A step of a user with tools of its own: a call of one of them (`UserToolStep`), or its turn of `schema`; as a
    native tool call on a model that makes them, as a schema-constrained JSON choice on any other."""
    if llm.spec.provider in NATIVE_TOOL_PROVIDERS:
        return await _native_step(llm, messages, schema, tools)
    step: RootModel[Any] = await llm.answer(messages, _user_step(tuple(tools), schema), step="simulate/user",
                                            warmer=warmer)
    if step.root.action != REPLY:
        return UserToolStep(step.root.action, step.root.arguments)
    return schema.model_validate(step.root.model_dump(exclude={"action"}))


async def _native_step(llm: LLM, messages: list[BaseMessage], turn: type[BaseModel], tools: Sequence[Tool]) -> Any:
    """One step as a native tool call: one of its tools, or `reply` with its turn. A reply its schema refuses, or
    an answer that calls nothing, is asked again as a schema-constrained turn."""
    reply = {"type": "function", "function": {"name": REPLY, "description": turn.__doc__ or "Your turn.",
                                               "parameters": turn.model_json_schema()}}
    answer = await llm.complete(messages, step="simulate/user", tool_choice="required",
                                tools=[*(tool.schema() for tool in tools), reply])
    for call in answer.tool_calls[:1]:  # one call a step: the next step sees what it showed
        if call["name"] in {tool.name for tool in tools}:
            return UserToolStep(call["name"], call["args"])
        if call["name"] == REPLY:
            try:
                return turn.model_validate(call["args"])
            except ValidationError:
                break
    return await llm.answer(messages, turn, step="simulate/user", warmer=True)


@cache
def _user_step(tools: tuple[Tool, ...], turn: type[BaseModel]) -> type[RootModel[Any]]:
    """A step of a user with tools: one of them, or its turn (made once per kind of turn and set of tools)."""
    reply: type[BaseModel] = create_model(f"{turn.__name__}Reply", __base__=turn,
                                          action=(Literal["reply"], ...))  # type: ignore[call-overload]
    return step_schema(tools, reply=reply, thought=False, name="UserStep")


def user_prompt(event: Event, view: list[str], *, thoughts: bool = True, tools: Sequence[Tool] = (),
                native: bool = False) -> list[BaseMessage]:
    """The user agent's instructions (how to play, the same in every dialog and so first; then its situation, what
    it knows and the details the expected outcome needs of it, what the chatbot should do, its own tools, how it
    behaves) and the conversation so far as one text, so that a small model never mistakes whose turn it is
    (`native`: its tools are called as functions)."""
    known = known_rows(event.user_rows)
    facts = customer_facts(event)
    if facts:  # what the expected calls need of the customer, so that a capable chatbot can get there
        known += "\n\n" + note("simulate/user_needed", facts="\n".join(f"- {fact}" for fact in facts))
    return render(
        "simulate/user",
        scenario=event.scenario,
        known=known,
        expected_behaviour=event.expected_behaviour,
        persona=persona_text(event.persona, event.claim),
        own_tools=own_tools_text(tools, native=native),
        conversation="\n".join(view),
        thought_field=note("simulate/user_thought_field") + "\n" if thoughts else "",
    )


def own_tools_text(tools: Sequence[Tool], *, native: bool) -> str:
    """The user prompt's section on its own tools and how to call them (nothing without tools)."""
    if not tools:
        return ""
    how = note("simulate/user_tools_native" if native else "simulate/user_tools_json")
    return note("simulate/user_tools", tools=describe_tools(tools), how=how) + "\n\n"


def persona_text(persona: Persona | None, claim: Claim | None) -> str:
    """The user prompt's section on how the user behaves: the persona's instructions, the language it writes
    in, the false claim it makes and, for an adversarial one, that its verdict is about the agent's rules
    rather than about what it got (nothing without a persona)."""
    if persona is None:
        return ""
    parts = [note("simulate/user_persona", instructions=persona.instructions.strip())]
    if persona.language:
        parts.append(note("simulate/user_language", language=persona.language))
    if claim is not None:
        parts.append(note("simulate/user_claim", statement=claim.statement, truth=claim.contradiction()))
    if persona.adversarial:
        parts.append(note("simulate/user_adversarial"))
    return "\n".join(parts) + "\n\n"


def note(prompt: str, **values: str) -> str:
    """A note to the user agent, from a one-message prompt file."""
    return prompt_text(prompt, **values)
