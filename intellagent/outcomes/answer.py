"""The answers a model gives about an event's expected outcome: the proposal, and a call in place of one that
failed when it was run.

Each can only name what exists: a call is one of the domain's tools that act on its world, with that tool's
own arguments (a union discriminated by the tool's name, each member the tool's arguments model); a
forbidden call is one of its writing tools; a policy is one of the event's sampled ids. The tools' part is
the same for every event of a run and is made once per domain; the sampled ids differ per event, so they
are one definition the JSON schema of each event's answer adds (`SAMPLED`), and checked after parsing,
with no model made per event.
"""

from __future__ import annotations

import copy
import json
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, WithJsonSchema, create_model
from pydantic_core import InitErrorDetails, PydanticCustomError

from intellagent.artifacts import Entitlement, ForbiddenCall
from intellagent.outcomes.matching import forbids

if TYPE_CHECKING:
    from intellagent.environment import Environment, Tool

# Bounds, so that a small model cannot write on until it runs out of tokens.
MAX_CALLS = 6
MAX_FORBIDDEN = 3
MAX_OUTPUTS = 4
MAX_CALL_POLICIES = 3
OUTPUT_LENGTH = 80
REASON_LENGTH = 160

SAMPLED = "SampledPolicy"
"""The definition, in an answer's JSON schema, of the policy ids the event samples."""

_MARK = "x-sampled-policy"
_SAMPLED_ID = Annotated[str, WithJsonSchema({"type": "string", _MARK: True})]

_CLOSED = ConfigDict(extra="forbid")


def world_tools(environment: Environment) -> list[Tool]:
    """The tools that act on the world (they take its session): the only ones an expected call may make, the
    user's own among them (the fixes a chatbot must get the user to make on its side). A tool that neither reads
    nor changes the world (a calculator, a note, a hand-over) leaves no trace a grade could check."""
    return [tool for tool in environment.every_tool if tool.session_parameter is not None]


@dataclass(frozen=True)
class _Parts:
    """What every event's answers of one domain share: their models, and their JSON schemas with the sampled
    ids left as a reference to `SAMPLED`."""

    proposal: type[BaseModel]
    mend: type[BaseModel]
    proposal_schema: dict[str, Any]
    mend_schema: dict[str, Any]


# Once per domain: a model class made per event is never freed. Keyed by the environment itself (a run loads one).
@lru_cache(maxsize=8)
def _parts(environment: Environment) -> _Parts:
    calls = [_call_model(tool) for tool in world_tools(environment)]
    call: Any = calls[0] if len(calls) == 1 else Annotated[typing.Union[tuple(calls)], Field(discriminator="tool")]  # noqa: UP007
    writes = tuple(tool.name for tool in world_tools(environment) if tool.writes)
    fields: dict[str, Any] = {
        "calls": (list[call], Field(max_length=MAX_CALLS, description="The calls a chatbot that keeps every rule "
                                    "makes here, in order: the changes, and the look-ups they need first.")),
    }
    if writes:
        fields["forbidden"] = (list[_forbidden_model(writes)], Field(
            max_length=MAX_FORBIDDEN, description="Changes the rules forbid here: calls the chatbot must not make."))
    fields["outputs"] = (list[Annotated[str, StringConstraints(max_length=OUTPUT_LENGTH)]], Field(
        max_length=MAX_OUTPUTS, description="Short facts the chatbot must tell the user (an amount, a date, a name), "
        "each as a reply would contain it; none if it need not state any."))
    proposal = create_model("ExpectedOutcomeProposal", __config__=_CLOSED, **fields)
    mend = create_model("MendedCall", __config__=_CLOSED, call=(call | None, Field(
        description="The call to make in place of the one that failed, or null to leave it out.")))
    return _Parts(proposal, mend, _referring(proposal.model_json_schema()), _referring(mend.model_json_schema()))


def _call_model(tool: Tool) -> type[BaseModel]:
    return create_model(
        f"{_title(tool.name)}Call",
        __config__=_CLOSED,
        tool=(Literal[tool.name], ...),  # type: ignore[valid-type]
        arguments=(tool.arguments_model, ...),
        policies=(list[_SAMPLED_ID], Field(default_factory=list, max_length=MAX_CALL_POLICIES, description=(
            "The sampled rules that require this call; none for a look-up a later call needs."))),
    )


def _forbidden_model(writes: tuple[str, ...]) -> type[BaseModel]:
    return create_model(
        "ForbiddenCall",
        __config__=_CLOSED,
        tool=(Literal[writes], Field(description="The tool that must not be called.")),  # type: ignore[valid-type]
        arguments=(dict[str, Any] | None, Field(description="The arguments that make the call forbidden; null: any "
                                               "call of the tool.")),
        policy=(_SAMPLED_ID, Field(description="The sampled rule that forbids it.")),
        reason=(str, Field(max_length=REASON_LENGTH, description="Why, in one line.")),
    )


def _referring(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every sampled id's place referring to the `SAMPLED` definition each event adds."""
    if schema.get(_MARK):
        return {"$ref": f"#/$defs/{SAMPLED}"}
    return {key: _referring(value) if isinstance(value, dict) else
            [_referring(item) if isinstance(item, dict) else item for item in value] if isinstance(value, list) else
            value for key, value in schema.items()}


class _EventAnswer:
    """An answer of one event: the domain's model, with the event's sampled ids as the only policies allowed, and
    the event's own checks of what the answer says (`problems`)."""

    __name__: str

    def __init__(self, model: type[BaseModel], schema: dict[str, Any], policies: tuple[str, ...],
                 problems: Callable[[BaseModel], list[InitErrorDetails]] = lambda answer: [],
                 settle: Callable[[BaseModel], BaseModel] = lambda answer: answer) -> None:
        self.__name__ = model.__name__
        self._model = model
        self._schema = schema
        self.policies = policies
        self._problems = problems
        self._settle = settle

    def model_json_schema(self) -> dict[str, Any]:
        """The JSON schema of the answer."""
        schema = copy.deepcopy(self._schema)  # the reader may change what it is given
        sampled = {"enum": list(self.policies), "type": "string"} if self.policies else {"not": {}}
        schema["$defs"] = dict(sorted({**schema.get("$defs", {}), SAMPLED: sampled}.items()))
        return schema

    def model_validate_json(self, text: str | bytes) -> Any:
        """The answer in `text`, checked.

        Raises:
            ValidationError: the answer is not JSON, leaves the schema, or names a policy the event does not sample.
        """
        answer = self._settle(self._model.model_validate_json(text))
        problems: list[InitErrorDetails] = [
            {"type": "literal_error", "loc": where, "input": named,
             "ctx": {"expected": ", ".join(repr(policy) for policy in self.policies) or "no policy"}}
            for where, named in _policies_named(answer) if named not in self.policies]
        problems += self._problems(answer)
        if problems:
            raise ValidationError.from_exception_data(self.__name__, problems, input_type="json")
        return answer


def proposal_schema(environment: Environment, policies: tuple[str, ...],
                    entitled: Entitlement | None = None) -> _EventAnswer:
    """The schema of an event's proposed outcome (see `ExpectedOutcomeProposal`), its policies the event's; an
    answer is also refused, with what is wrong, when it holds nothing (no call, no forbidden change), makes a change
    it also forbids, or, where the user is `entitled` to a change, makes none."""
    parts = _parts(environment)

    def problems(answer: BaseModel) -> list[InitErrorDetails]:
        return [_problem(where, message) for where, message in proposal_problems(environment, answer, entitled)]

    return _EventAnswer(parts.proposal, parts.proposal_schema, policies, problems,
                        settle=lambda answer: settled(environment, answer, entitled))


def settled(environment: Environment, answer: BaseModel, entitled: Entitlement | None) -> BaseModel:
    """A proposal with what a program can settle settled, before it is checked, so that no call is spent sending
    it back: a look-up repeated with the same arguments is kept once, and a change both made and forbidden whose
    tool is the one the scenario entitles the user to use is made (the forbidden entry dropped). A contradiction
    the scenario does not settle is still sent back: read as a refusal, it would fail a chatbot that delivers."""
    writes = {tool.name for tool in world_tools(environment) if tool.writes}
    calls, seen = [], set()
    for call in getattr(answer, "calls", []):
        key = (call.tool, json.dumps(given_arguments(call), sort_keys=True))
        if call.tool in writes or key not in seen:
            calls.append(call)
        seen.add(key)

    def made(item: Any) -> bool:
        forbidden_call = ForbiddenCall(tool=item.tool, arguments=item.arguments, policies=[item.policy])
        return any(forbids(environment, forbidden_call, call.tool, given_arguments(call)) for call in calls)

    forbidden = [item for item in getattr(answer, "forbidden", [])
                 if not (entitled is not None and item.tool == entitled.tool and made(item))]
    if len(calls) == len(getattr(answer, "calls", [])) and len(forbidden) == len(getattr(answer, "forbidden", [])):
        return answer
    return answer.model_copy(update={"calls": calls, "forbidden": forbidden})


def mend_schema(environment: Environment, policies: tuple[str, ...],
                forbidden: Sequence[ForbiddenCall] = ()) -> _EventAnswer:
    """The schema of a call in place of one that failed (see `MendedCall`), its policies the event's; a call that is
    one of the proposal's `forbidden` changes is refused."""
    parts = _parts(environment)

    def problems(answer: BaseModel) -> list[InitErrorDetails]:
        call = getattr(answer, "call", None)
        if call is None:
            return []
        return [_problem(("call",), f"it is the change forbidden as {item.text()}: give another call, or null")
                for item in forbidden if forbids(environment, item, call.tool, given_arguments(call))]

    return _EventAnswer(parts.mend, parts.mend_schema, policies, problems)


def proposal_problems(environment: Environment, answer: BaseModel,
                      entitled: Entitlement | None) -> list[tuple[tuple[str | int, ...], str]]:
    """What makes a proposal no outcome, each with where: nothing to grade, a change both made and forbidden, or no
    change where the user is entitled to one."""
    calls = list(getattr(answer, "calls", []))
    forbidden = [ForbiddenCall(tool=item.tool, arguments=item.arguments, policies=[item.policy])
                 for item in getattr(answer, "forbidden", [])]
    if not calls and not forbidden:
        return [(("calls",), "the proposal is empty: give the calls a rule-keeping chatbot makes here, or, if the "
                 "rules allow nothing, the changes they forbid")]
    found: list[tuple[tuple[str | int, ...], str]] = []
    for i, item in enumerate(forbidden):
        for j, call in enumerate(calls):
            if forbids(environment, item, call.tool, given_arguments(call)):
                found.append((("forbidden", i), f"it forbids calls[{j}] ({call.tool}), which the calls make: a change "
                              "is made or forbidden, never both; name the arguments that single out the forbidden "
                              "one, or leave one of the two out"))
    writes = {tool.name for tool in world_tools(environment) if tool.writes}
    if entitled is not None and not any(call.tool in writes for call in calls):
        found.append((("calls",), f'the user is entitled to "{entitled.request}": the calls must make that change '
                      f"(with {entitled.tool}), after the look-ups it needs"))
    return found


def _problem(where: tuple[str | int, ...], message: str) -> InitErrorDetails:
    return {"type": PydanticCustomError("outcome", message), "loc": where, "input": None}  # type: ignore[typeddict-item]



def _policies_named(answer: BaseModel) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every policy id an answer names, with where."""
    calls = getattr(answer, "calls", None)
    if calls is None:  # a mended call
        call = getattr(answer, "call", None)
        yield from ((("call", "policies", i), policy) for i, policy in enumerate(call.policies if call else []))
        return
    for i, call in enumerate(calls):
        yield from ((("calls", i, "policies", j), policy) for j, policy in enumerate(call.policies))
    for i, forbidden in enumerate(getattr(answer, "forbidden", [])):
        yield ("forbidden", i, "policy"), forbidden.policy


def given_arguments(call: BaseModel) -> dict[str, Any]:
    """The arguments a proposed call gives, as the model wrote them (no default added for one it left out)."""
    return given_values(call.arguments)  # type: ignore[attr-defined]


def given_values(answer: BaseModel) -> dict[str, Any]:
    """The fields an answer gives, as the model wrote them (no default added for one it left out)."""
    return answer.model_dump(mode="json", exclude_unset=True, by_alias=True)


def _title(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
