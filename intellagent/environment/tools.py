"""Chatbot tools: plain typed functions whose JSON schema is derived from signature and docstring.

A tool is written once, as a Python function with type hints and a Google-style docstring; LangChain's
schema machinery turns it into the function-calling schema the chatbot sees and into the pydantic model
that validates the chatbot's arguments, so code and schema cannot drift apart. The database session is
a parameter typed `InjectedSession`: it is passed in by the environment and never shown to the chatbot.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from langchain_core.tools import InjectedToolArg, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError
from sqlmodel import Session

from intellagent.errors import UsageError

InjectedSession = Annotated[Session, InjectedToolArg]
"""The type of a tool's session parameter: the event's database session, supplied by the environment."""

Side = Literal["company", "user"]
"""Whose a table or a tool is: the company's (the chatbot's tools, its records) or the user's (its device, its
app), which only the user's own tools change (`environment.user_tools`)."""


class ToolArgumentsError(ValueError):
    """The chatbot's arguments do not fit the tool's schema; the message says which and why."""


@dataclass(frozen=True, eq=False)
class Tool:
    """A function the chatbot can call, with the schema derived from it.

    Attributes:
        name: the function's name, which the chatbot calls it by.
        description: the docstring without its `Args:` section.
        parameters: the JSON schema of the arguments (the session left out).
        writes: whether the tool may change the database.
        ends_dialog: whether calling it ends the conversation (a transfer to a human, say).
        confirm: whether the policy wants the customer's explicit agreement before it is called (checked
            deterministically on every dialog).
        function: the decorated function itself.
        side: whose tool it is: the chatbot's ("company"), or the user's own ("user"), as the environment
            loaded it; a tool writes only the tables of its own side.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    writes: bool
    ends_dialog: bool
    function: Callable[..., Any]
    arguments_model: type[BaseModel]
    session_parameter: str | None
    confirm: bool = False
    side: Side = "company"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly (no validation, nothing caught)."""
        return self.function(*args, **kwargs)

    def schema(self) -> dict[str, Any]:
        """The tool in OpenAI function-calling format."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def closed_parameters(self) -> dict[str, Any]:
        """The arguments' JSON schema for a model to answer in: every object with named fields, the arguments and
        those nested in them, refuses other keys. A caller may pass extra keys, which a tool may keep (τ-bench's
        keep them verbatim), but a constrained model offered them fills them: the embedded model wrote a whole
        flight row's columns into each flight it chose."""
        return _closed(self.parameters)

    def run(self, session: Session, arguments: Mapping[str, Any]) -> Any:
        """Validate the chatbot's arguments against the schema, then call the function on `session`.

        Raises:
            ToolArgumentsError: the arguments are not an object, name unknown parameters, or do not validate.
            Exception: whatever the function itself raises.
        """
        if not isinstance(arguments, Mapping):
            raise ToolArgumentsError(f"arguments of {self.name} must be a JSON object, got {type(arguments).__name__}")
        known = self.arguments_model.model_fields
        unknown = [key for key in arguments if key not in known]
        if unknown:
            raise ToolArgumentsError(
                f"{self.name} got unexpected arguments {', '.join(unknown)}; its arguments are {', '.join(known)}"
            )
        try:
            parsed = self.arguments_model.model_validate(dict(arguments))
        except ValidationError as exc:
            raise ToolArgumentsError(f"invalid arguments for {self.name}: {_describe(exc)}") from None
        # Attributes, not model_dump(): nested values keep the exact types and extra keys that were validated.
        values = {name: getattr(parsed, name) for name in known}
        if self.session_parameter is not None:
            values[self.session_parameter] = session
        return self.function(**values)


def tool(*, writes: bool, ends_dialog: bool = False, confirm: bool = False) -> Callable[[Callable[..., Any]], Tool]:
    """Turn a typed, documented function into a `Tool`.

    Args:
        writes: whether the tool may change the database (declared, so stages can tell reads from writes).
        ends_dialog: whether calling the tool ends the conversation.
        confirm: whether the customer must explicitly agree before it is called; every dialog is then
            checked for a "yes" right before each call.

    Raises:
        UsageError: the function lacks a docstring, a type hint or an argument description.
    """

    def decorate(function: Callable[..., Any]) -> Tool:
        return _build(function, writes=writes, ends_dialog=ends_dialog, confirm=confirm)

    return decorate


def _build(function: Callable[..., Any], *, writes: bool, ends_dialog: bool, confirm: bool) -> Tool:
    where = _location(function)
    if not inspect.getdoc(function):
        raise UsageError(f"{where} has no docstring; describe what it does and each argument under `Args:`")
    session_parameter = _check_signature(function, where)
    # LangChain's strict parsing wants an `Args:` section as soon as the function has a parameter, the injected
    # session included, which the chatbot never sees; every argument it does see is checked for a description
    # below, with a message that names it.
    try:
        structured = StructuredTool.from_function(function, parse_docstring=True, error_on_invalid_docstring=False)
    except ValueError as exc:
        raise UsageError(f"{where}: {exc} Fix its Google-style docstring (an `Args:` entry per argument)") from None
    model = structured.tool_call_schema
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise UsageError(f"{where}: could not derive an argument schema; use plain typed parameters")
    parameters = convert_to_openai_tool(structured)["function"]["parameters"]
    for name in model.model_fields:
        if "description" not in parameters["properties"].get(name, {}):
            raise UsageError(f"{where}: argument `{name}` is not described under `Args:` in its docstring; add it")
    return Tool(
        name=function.__name__,
        description=structured.description,
        parameters=parameters,
        writes=writes,
        ends_dialog=ends_dialog,
        function=function,
        arguments_model=model,
        session_parameter=session_parameter,
        confirm=confirm,
    )


def _check_signature(function: Callable[..., Any], where: str) -> str | None:
    """Every parameter typed and named; returns the injected session parameter, if any."""
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except NameError as exc:
        raise UsageError(f"{where}: a type hint cannot be resolved ({exc}); import the type it names") from None
    if "return" not in hints:
        raise UsageError(f"{where} has no return type hint; annotate it (str or a JSON-serialisable type)")
    session_parameter = None
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise UsageError(f"{where}: *{parameter.name} is not supported; give each argument a name and a type")
        hint = hints.get(parameter.name)
        if hint is None:
            raise UsageError(f"{where}: parameter `{parameter.name}` has no type hint; annotate it")
        if _is_session(hint):
            if not _is_injected(hint):
                raise UsageError(
                    f"{where}: parameter `{parameter.name}` is a Session; type it InjectedSession so the "
                    "environment passes it in and the chatbot never sees it"
                )
            session_parameter = parameter.name
    return session_parameter


def _is_session(hint: Any) -> bool:
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is Annotated else hint
    return isinstance(base, type) and issubclass(base, Session)


def _is_injected(hint: Any) -> bool:
    return typing.get_origin(hint) is Annotated and any(
        item is InjectedToolArg or isinstance(item, InjectedToolArg) for item in hint.__metadata__
    )


def _location(function: Callable[..., Any]) -> str:
    code = getattr(function, "__code__", None)
    place = f" ({code.co_filename}:{code.co_firstlineno})" if code else ""
    return f"tool `{getattr(function, '__name__', function)}`{place}"


_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")  # name → a schema
_VALUES = ("enum", "const", "default", "examples")  # data, not schemas


def _closed(schema: Any) -> Any:
    """`schema` with `additionalProperties: false` on every object that names its properties (a free-form object,
    a JSON column's, stays open)."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _VALUES:
            closed[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            closed[key] = {name: _closed(sub) for name, sub in value.items()}
        else:
            closed[key] = _closed(value)
    if isinstance(schema.get("properties"), dict):
        closed["additionalProperties"] = False
    return closed


def _describe(exc: ValidationError) -> str:
    """All problems on one line, each as `field.path: message`."""
    return "; ".join(
        f"{'.'.join(str(part) for part in error['loc']) or '(arguments)'}: {error['msg']}" for error in exc.errors()
    )
