"""Tool use for models without native tool calls: each chatbot step is one schema-constrained JSON choice.

A step is either `{"action": "<tool name>", "arguments": {...}}` or `{"action": "reply", "message":
"..."}`. The schema is a union built at run time from the domain's tools: the action is one of their
names (or "reply"), and the arguments of each follow that tool's own JSON schema, so a model that is
held to the schema (the embedded one is, through llama.cpp's grammar) cannot call a tool that does
not exist or invent its parameters. The tools come before the reply, and a chatbot's step starts with a
short thought (`thought=True`): a small model that first writes what the user asked and what it knows
picks the look-up that follows from it, where one asked for the action at once replied every time. The
simulated user acts on its own side the same way, its reply being its turn (`step_schema(tools, reply=...)`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, Union

from pydantic import BaseModel, Field, RootModel, WithJsonSchema, create_model

from intellagent import text_limits
from intellagent.errors import UsageError

if TYPE_CHECKING:
    from intellagent.environment import Tool

REPLY: Final = "reply"

THOUGHT_LENGTH = 120
"""Characters of a step's thought: a sentence, so that it stays cheap and never becomes the reply (the chatbot's
steps are most of a dialog's calls, and its thoughts were half of what they wrote on the embedded model). At 180
the embedded model wrote on to the bound in a third of its steps, past a first sentence that fit in 120 in 17 of
18."""


class Thought(BaseModel):
    """What a chatbot's step writes first."""

    thought: str = Field(max_length=THOUGHT_LENGTH, description="One short sentence: what the user asked for, the "
                         "details you have (from the user or a tool), and so what you do now.")


class ReplyStep(BaseModel):
    """Send a message to the user and wait for their answer."""

    action: Literal["reply"]
    message: str = Field(max_length=text_limits.CHATBOT_REPLY, description="What the user reads.")


class ThoughtfulReplyStep(Thought):
    """Send a message to the user and wait for their answer, after a short thought."""

    action: Literal["reply"]
    message: str = Field(max_length=text_limits.CHATBOT_REPLY, description="What the user reads.")


class ChatbotFinalStep(RootModel[ThoughtfulReplyStep]):
    """A step when no more tool calls are allowed before the user's next message."""


def step_schema(tools: Sequence[Tool], *, reply: type[BaseModel] = ThoughtfulReplyStep, thought: bool = True,
                name: str = "ChatbotStep") -> type[RootModel[Any]]:
    """The schema of one step: call one of `tools` with its arguments, or reply (the tools first).

    Args:
        reply: the reply step, a model whose `action` is `Literal["reply"]` (the chatbot's message after its
            thought, by default).
        thought: whether a tool call starts with a thought, as the chatbot's default reply does.
        name: the schema's name, as the model is shown it.

    Raises:
        UsageError: a tool is named like the reply action.
    """
    variants: list[type[BaseModel]] = []
    for tool in tools:
        if tool.name == REPLY:
            raise UsageError(f"tool {REPLY!r} clashes with the reply step of a JSON choice; rename the tool")
        arguments = Annotated[dict[str, Any], WithJsonSchema(tool.closed_parameters())]
        variants.append(
            create_model(
                f"Call_{tool.name}",
                __doc__=f"Call {tool.name}.",
                __base__=Thought if thought else None,
                action=(Literal[tool.name], ...),  # type: ignore[arg-type, valid-type]
                arguments=(arguments, ...),
            )
        )
    union = Annotated[Union[(*variants, reply)], Field(discriminator="action")]  # type: ignore[valid-type]
    return type(name, (RootModel[union],), {"__doc__": "A tool call or a reply."})  # type: ignore[valid-type]


def describe_tools(tools: Sequence[Tool]) -> str:
    """A compact catalogue of the tools for the prompt: name, description, then one line per argument."""
    blocks = []
    for tool in tools:
        lines = [f"- {tool.name}: {' '.join(tool.description.split())}"]
        properties = tool.parameters.get("properties", {})
        required = set(tool.parameters.get("required", []))
        for name, schema in properties.items():
            need = "required" if name in required else "optional"
            description = " ".join(str(schema.get("description", "")).split())
            lines.append(f"    {name} ({_type_text(schema)}, {need}): {description}".rstrip(": "))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _type_text(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(str(value) for value in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type_text(option) for option in schema["anyOf"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_type_text(schema.get('items', {}))}"
    return str(kind)
