"""The chatbot under test as a dialog sees it: a conversation is opened per dialog and asked for replies.

An adapter turns one kind of chatbot (an LLM with the domain's tools, a Python callable, a LangGraph
graph, an HTTP endpoint, an OpenAI-compatible endpoint) into this protocol. Anything with an `open`
method that fits it can also be passed as the chatbot through the Python API.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from intellagent.artifacts import ToolCall
from intellagent.chatbots.world import DialogWorld
from intellagent.errors import IntellAgentError
from intellagent.llm import Usage

MCP_HEADER = "X-IntellAgent-MCP"
"""The request header that carries the dialog's MCP address (see `mcp_world`) to an endpoint chatbot."""

ChatMessage = dict[str, str]
"""One message of the public conversation: {"role": "assistant" | "user", "content": text}."""


class ChatbotError(IntellAgentError):
    """The chatbot could not give a reply (it raised, timed out, or answered something unusable).

    Args:
        calls: the tool calls it had made in the turn before it failed: they happened, and the
            transcript keeps them.
    """

    def __init__(self, message: str, *, calls: list[ToolCall] | None = None) -> None:
        super().__init__(message)
        self.calls = calls or []


@dataclass(frozen=True)
class ChatbotSession:
    """What a chatbot is told about the dialog it is opened for; a `python` chatbot may ask for it as `session`.

    Attributes:
        id: the dialog's id (the event's), the same on a redo, sent as the session id.
        database: the dialog's own copy of the event database (None if the event has none).
        usage: the dialog's accounting; an adapter that calls an LLM of the run counts its calls here.
        world: the domain's tools on that database, which record every call (None without a database).
        mcp_url: the address at which the run's MCP server serves that world, for an endpoint chatbot.
    """

    id: str
    database: Path | None
    usage: Usage
    world: DialogWorld | None = None
    mcp_url: str | None = None

    @property
    def tools(self) -> list[BaseTool]:
        """The domain's tools bound to the dialog's database, as LangChain tools (none without a database).

        Hand them to your agent in place of its production tools: their calls are recorded in the
        transcript and their writes land in the dialog's database.
        """
        return self.world.langchain_tools() if self.world else []


@dataclass
class ChatbotReply:
    """The chatbot's next message and the tool calls it made before it, in order.

    Attributes:
        content: the text the user sees.
        tool_calls: the calls made since the user's last message (id may be empty: the dialog numbers it).
        ends_dialog: the chatbot ended the conversation (e.g. by a hand-off to a human).
    """

    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    ends_dialog: bool = False


class ChatbotConversation(Protocol):
    """One dialog with the chatbot."""

    async def reply(self, messages: list[ChatMessage]) -> ChatbotReply:
        """The next reply to the public conversation so far (greeting first, last one the user's)."""
        ...


@runtime_checkable
class Chatbot(Protocol):
    """A chatbot under test: opens one conversation per dialog.

    An adapter whose chatbot reaches its tools over the network sets a class attribute
    `reaches_world_over_mcp = True` (as the `http` and `openai` ones do): the run then serves each
    dialog's world over MCP and hands its address in `ChatbotSession.mcp_url`.
    """

    def open(self, session: ChatbotSession) -> ChatbotConversation:
        """Start a conversation for one dialog."""
        ...


@runtime_checkable
class ForkingConversation(ChatbotConversation, Protocol):
    """A conversation that can be continued in several ways from where it stands."""

    def fork(self, session: ChatbotSession) -> ForkingConversation:
        """The conversation so far, continued apart in another dialog: on that dialog's world, sampled with its
        seed, counted in its accounting; this one is left as it is."""
        ...


@runtime_checkable
class SamplingChatbot(Chatbot, Protocol):
    """A chatbot whose replies can be sampled, so that one conversation can be continued in several ways (the
    rollouts' beam search): its conversations fork, and each fork samples with its own dialog's seed."""

    def sampling(self, temperature: float) -> SamplingChatbot:
        """The same chatbot, its model sampled at `temperature`."""
        ...

    def open(self, session: ChatbotSession) -> ForkingConversation:
        """Start a conversation for one dialog."""
        ...


class _ReportedToolCall(BaseModel):
    id: str = ""
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None


_REPORTED_CALLS = TypeAdapter(list[_ReportedToolCall])


def reported_reply(value: Any, *, text_key: str, source: str) -> ChatbotReply:
    """A reply as an external chatbot reports it: a string, or a mapping with `text_key` and optional tool_calls.

    The tool calls it lists are marked `reported`: the chatbot says it made them, nothing ran them.

    Args:
        value: what the chatbot returned.
        text_key: the key of the reply's text in a mapping ("content" for callables, "reply" for HTTP).
        source: names the chatbot in error messages.

    Raises:
        ChatbotError: the value has neither shape.
    """
    if isinstance(value, str):
        return ChatbotReply(content=value)
    if not isinstance(value, dict) or not isinstance(value.get(text_key), str):
        raise ChatbotError(
            f"{source} returned {_shape(value)}; return a string or a mapping with a string {text_key!r}"
        )
    try:
        reported = _REPORTED_CALLS.validate_python(value.get("tool_calls") or [])
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ChatbotError(f"{source} returned unusable tool_calls: [{where}]: {problem['msg']}") from None
    calls = [
        ToolCall(id=call.id, name=call.name, arguments=call.arguments, result=_result_text(call.result), reported=True)
        for call in reported
    ]
    return ChatbotReply(content=value[text_key], tool_calls=calls)


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        return f"a mapping with keys {sorted(value)}"
    return type(value).__name__


def _result_text(result: Any) -> str | None:
    if result is None or isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False)
