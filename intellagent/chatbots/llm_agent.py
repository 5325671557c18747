"""The default chatbot under test: an LLM whose system prompt is the policy document, with the domain's
tools bound to the dialog's own database.

With native tool calls the tools go to the API as functions. Without (the embedded model), each step
is a JSON choice between a tool call and a reply, after a short thought (see `tool_choice`), executed as a
real tool call; the details the user gave that no call has used yet are put in view at every step, and a
reply that asks for one of them again is drawn once more (see `given_details`).
Either way at most `max_tool_steps` tools run between two user messages; after that the model must
reply (and, in JSON steps, as soon as it repeats a call it made since the user's message). A tool that
ends the dialog (a hand-off to a human) gets one last reply, then the dialog ends.
The tools are those of the dialog's world (`DialogWorld.environment`): the domain's chatbot tools, and
in a solo dialog the user's as well; never the user's otherwise.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import RootModel

from intellagent.artifacts import ToolCall
from intellagent.chatbots.given_details import asks_again, given_details, unused_details
from intellagent.chatbots.protocol import ChatbotError, ChatbotReply, ChatbotSession, ChatMessage
from intellagent.chatbots.tool_choice import REPLY, ChatbotFinalStep, ReplyStep, describe_tools, step_schema
from intellagent.chatbots.world import DialogWorld
from intellagent.errors import RunAborted, failure_reason
from intellagent.llm import LLM
from intellagent.llm.dialog_models import counted, dialog_model
from intellagent.prompt_files import prompt_text, render

if TYPE_CHECKING:
    from intellagent.environment import Environment

STEP = "simulate/chatbot"


class LLMAgent:
    """An LLM playing the chatbot: policy as system prompt, the domain's tools on the dialog's database.

    Args:
        llm: the chatbot role's model.
        environment: the domain (policy, tools, databases).
        native_tools: send tools to the API (True) or ask for a JSON choice per step (False).
        max_tool_steps: tool calls allowed between two user messages.
        policy: the system prompt's policy, when not the domain's own (a calibration mutant's edited copy).
        seed: the run's seed, from which each dialog's own is drawn when the model samples (see `seeds`).
    """

    def __init__(
        self,
        *,
        llm: LLM,
        environment: Environment,
        native_tools: bool,
        max_tool_steps: int,
        policy: str | None = None,
        seed: int = 0,
    ) -> None:
        self.llm = llm
        self.seed = seed
        self.environment = environment
        self.native_tools = native_tools
        self.max_tool_steps = max_tool_steps
        self.policy = environment.policy if policy is None else policy
        self._toolkits: dict[Environment, _Toolkit] = {}
        self.toolkit(environment)  # a tool the steps cannot name fails now, before any dialog

    def toolkit(self, world: Environment) -> _Toolkit:
        """The prompt and schemas of the tools of a dialog's world, made once per kind of world (a run plays
        its dialogs on the domain, and solo ones on the domain with the user's tools too)."""
        if world not in self._toolkits:
            self._toolkits[world] = _Toolkit.of(world, policy=self.policy, native_tools=self.native_tools)
        return self._toolkits[world]

    def open(self, session: ChatbotSession) -> _AgentConversation:
        """A conversation on the dialog's database, counted in the dialog's accounting."""
        if session.world is None:
            raise ChatbotError(f"the llm_agent chatbot needs a database, and event {session.id} has none")
        llm = dialog_model(self.llm, seed=self.seed, dialog_id=session.id)
        return _AgentConversation(self, session.world, counted(llm, session.usage))

    def sampling(self, temperature: float) -> LLMAgent:
        """The same agent, its model sampled at `temperature` (each dialog with its own seed)."""
        sampled = copy.copy(self)
        sampled.llm = self.llm.with_options(temperature=temperature)
        return sampled


@dataclass(frozen=True)
class _Toolkit:
    """What the agent is given of its tools: the prompt's start, and the tools' schemas (native) or the schema of
    one step (a JSON choice)."""

    prefix: list[BaseMessage]
    ending_tools: frozenset[str]
    tool_schemas: list[dict[str, Any]] = field(default_factory=list)
    step_schema: type[RootModel[Any]] | None = None

    @classmethod
    def of(cls, world: Environment, *, policy: str, native_tools: bool) -> _Toolkit:
        ending = frozenset(tool.name for tool in world.tools if tool.ends_dialog)
        if native_tools:
            return cls(prefix=[SystemMessage(policy)], ending_tools=ending, tool_schemas=world.tool_schemas())
        prefix = render("simulate/chatbot_steps", policy=policy, tools=describe_tools(world.tools))
        return cls(prefix=prefix, ending_tools=ending, step_schema=step_schema(world.tools))


class _AgentConversation:
    def __init__(self, agent: LLMAgent, world: DialogWorld, llm: LLM) -> None:
        self.agent = agent
        self.world = world
        self.llm = llm
        self.tools = agent.toolkit(world.environment)
        self.history: list[BaseMessage] = list(self.tools.prefix)
        self.seen = 0  # public messages already in the history
        self.said: list[str] = []  # the user's messages
        self.made: list[ToolCall] = []  # every call of the conversation, earlier turns' too

    def fork(self, session: ChatbotSession) -> _AgentConversation:
        """The conversation so far, its tool calls and their results included, continued on `session`'s world."""
        forked = self.agent.open(session)
        forked.history, forked.seen = list(self.history), self.seen
        forked.said, forked.made = list(self.said), list(self.made)
        return forked

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        """Take steps (tool calls) until the model replies, within the tool-call allowance."""
        for message in messages[self.seen :]:
            self.history.append(self._public(message))
            if message["role"] == "user":
                self.said.append(message["content"])
        self.seen = len(messages) + 1  # the reply about to be returned is already in the history
        calls: list[ToolCall] = []
        try:
            if self.agent.native_tools:
                return await self._native_turn(calls)
            return await self._json_turn(calls)
        except RunAborted:
            raise
        except Exception as error:  # the calls made before it failed happened: the transcript keeps them
            raise ChatbotError(failure_reason(error), calls=calls) from error
        finally:
            self.made += calls

    def _public(self, message: ChatMessage) -> BaseMessage:
        if message["role"] == "user":
            return HumanMessage(message["content"])
        if self.agent.native_tools:
            return AIMessage(message["content"])
        # Constructed, not validated: a greeting, or a reply of a conversation this one continues, may be longer
        # than a step's reply may be.
        return AIMessage(ReplyStep.model_construct(action=REPLY, message=message["content"]).model_dump_json())

    async def _native_turn(self, calls: list[ToolCall]) -> ChatbotReply:
        while True:
            may_call = len(calls) < self.agent.max_tool_steps and not self._ended(calls)
            options: dict[str, Any] = {"tools": self.tools.tool_schemas}
            if not may_call:
                options["tool_choice"] = "none"
            message = await self.llm.complete(self.history, step=STEP, **options)
            self.history.append(message)
            for broken in message.invalid_tool_calls:  # arguments that are not JSON: answered, never dropped
                result = f"Error: the arguments of {broken['name']} are not a JSON object: {broken['args']}"
                self.history.append(ToolMessage(result, tool_call_id=broken["id"] or ""))
                calls.append(ToolCall(id=broken["id"] or "", name=broken["name"] or "",
                                      arguments={"(arguments)": broken["args"]}, result=result))
            if message.invalid_tool_calls and not message.tool_calls:
                continue
            if not message.tool_calls:
                return ChatbotReply(content=message.text, tool_calls=calls, ends_dialog=self._ended(calls))
            if not may_call:
                raise ChatbotError(f"the chatbot kept calling tools after {len(calls)} calls, though told to reply")
            for request in message.tool_calls:
                allowed = len(calls) < self.agent.max_tool_steps
                result = await self.world.arun(request["name"], request["args"]) if allowed else self._refusal()
                self.history.append(ToolMessage(result, tool_call_id=request["id"] or ""))
                calls.append(
                    ToolCall(id=request["id"] or "", name=request["name"], arguments=request["args"], result=result)
                )

    async def _json_turn(self, calls: list[ToolCall]) -> ChatbotReply:
        repeated = False
        while True:
            may_call = len(calls) < self.agent.max_tool_steps and not self._ended(calls) and not repeated
            assert self.tools.step_schema is not None  # made for JSON steps
            schema = self.tools.step_schema if may_call else ChatbotFinalStep
            unused = unused_details(given_details(self.said), [*self.made, *calls])
            step = await self._step(schema, unused)
            if step.action == REPLY and may_call and asks_again(step.message, unused):
                step = await self._step(schema, unused, asked_again=step.message)
            if step.action != REPLY and any(made.name == step.action and made.arguments == step.arguments
                                            for made in calls):
                # The embedded model repeats a look-up it has just made, its result in view, until the allowance
                # runs out; a call made already this turn is not run again, and the next step is the reply.
                repeated = True
                continue
            self.history.append(AIMessage(step.model_dump_json()))
            if step.action == REPLY:
                return ChatbotReply(content=step.message, tool_calls=calls, ends_dialog=self._ended(calls))
            result = await self.world.arun(step.action, step.arguments)
            self.history += render("simulate/chatbot_tool_result", tool=step.action, result=result)
            calls.append(ToolCall(id="", name=step.action, arguments=step.arguments, result=result))

    async def _step(self, schema: type[RootModel[Any]], unused: list[str], *, asked_again: str | None = None) -> Any:
        """One JSON step, with the details the user gave that no call has used put in view (a note added to the
        last message as it is sent, never kept in the history); `asked_again`: the drawn reply asked for one of
        them, and is drawn once more, warmer."""
        notes = []
        if unused:
            notes.append(prompt_text("simulate/chatbot_details", details=", ".join(unused)))
        if asked_again is not None:
            notes.append(prompt_text("simulate/chatbot_asked_again", draft=asked_again))
        messages = list(self.history)
        if notes:
            last = messages[-1]
            messages[-1] = last.model_copy(update={"content": "\n\n".join([str(last.content), *notes])})
        answer: RootModel[Any] = await self.llm.answer(messages, schema, step=STEP, warmer=asked_again is not None)
        return answer.root

    def _refusal(self) -> str:
        return (
            f"Error: not run: at most {self.agent.max_tool_steps} tool calls are allowed before the user's "
            "next message; reply to the user now"
        )

    def _ended(self, calls: list[ToolCall]) -> bool:
        return any(call.name in self.tools.ending_tools for call in calls)
