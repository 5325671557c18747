"""An event's expected outcome drafted by a program, the model asked only what the rows cannot say.

Asked for a whole outcome (the calls, the forbidden changes, the facts to state), the embedded model never wrote
the change a scenario entitles its user to: three tries of a prompt of ten thousand tokens each, and the event
was left with no outcome. Yet the scenario already names that change's tool (`Event.entitled`), and the event's
rows hold the records it is made on. So where `populate.drafted_outcomes` is on (by default on the embedded model)
and the user is entitled to a change, the outcome is that change:

- its tool is the scenario's;
- each argument naming a key or a reference of a table the event's rows fill takes the event's own value, where
  the rows hold exactly one (the user's id, the id of the record to change);
- the model is asked for the arguments left, and for nothing else (step `populate/outcome_arguments`, a short
  answer after the world's shared prompt), or not at all when nothing is left, or when the rows hold no record
  for an identifying argument (the model then took the tool description's example id);
- a draft that fails on the world (its failure names a value of the rows: the model planned the order to cancel as
  shipped) is first made again on the event's world drawn anew, those values given up (`WORLD_DRAWS` times at
  most, no call), its answered arguments carried over (`carried_over`); then it goes back to the model once,
  with the error (every argument open when the rows settled them all); what still fails is dropped, and the
  event says why it has no outcome.

The look-ups before the change and the changes the rules forbid are not drafted: the outcome is graded on the
world the change leaves, which a chatbot that does nothing fails, and its floor says that a reckless one passes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, WithJsonSchema, create_model

from intellagent.chatbots.tool_choice import describe_tools
from intellagent.llm import LLMError
from intellagent.outcomes.answer import given_values
from intellagent.outcomes.proposal import Proposal, ProposedCall, rows_text
from intellagent.prompt_files import prompt_text
from intellagent.value_shapes import named_cell

if TYPE_CHECKING:
    from intellagent.artifacts import Event
    from intellagent.environment import Tool
    from intellagent.outcomes.verification import Failure
    from intellagent.populate.event import EventDeps


WORLD_DRAWS = 4
"""Times an event's world is drawn anew for its entitled change, which failed on the rows as planned: each draw
costs no call, and a value at fault is most often one of several the background world offers (a date, an item)."""


@dataclass(frozen=True)
class Draft:
    """The entitled change as the event's rows fill it.

    Attributes:
        known: the arguments the rows settle: a key or reference with one value among the event's rows.
        left: the required arguments they do not.
        choices: the values the rows offer for an identifying argument they hold several of.
        held: a list argument as the rows hold it now, where its items are rows of a table the event fills (the
            flights a booking holds, for a change of its cabin): offered, not settled, as the change may replace it.
    """

    tool: Tool
    known: dict[str, Any]
    left: list[str]
    choices: dict[str, list[Any]]
    held: dict[str, list[dict[str, Any]]]


def is_drafted(deps: EventDeps, event: Event) -> bool:
    """Whether the event's outcome is drafted from its rows (`populate.drafted_outcomes`): where the user is entitled
    to a change (a refusal's outcome is still proposed whole)."""
    return deps.drafts and event.entitled is not None


def draft(deps: EventDeps, event: Event) -> Draft:
    """The change `event` entitles its user to, with what its rows settle of the arguments."""
    assert event.entitled is not None
    tool = deps.env.tool(event.entitled.tool)
    values = _identifying_values(deps, event)
    properties = tool.parameters.get("properties", {})
    known = {name: found[0] for name, found in values.items() if name in properties and len(found) == 1}
    choices = {name: found for name, found in values.items() if name in properties and len(found) > 1}
    left = [name for name in tool.parameters.get("required", []) if name not in known]
    return Draft(tool=tool, known=known, left=left, choices=choices, held=_held_lists(event, properties, known))


def _held_lists(event: Event, properties: dict[str, Any], known: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Each list argument whose items' fields are columns of a table of the event's rows, as those rows give it: of
    the record the settled arguments name, where the rows refer to it."""
    held: dict[str, list[dict[str, Any]]] = {}
    for name, schema in properties.items():
        fields = list(schema.get("items", {}).get("properties", {})) if schema.get("type") == "array" else []
        for rows in {**event.user_rows, **event.user_side_rows}.values():
            if fields and rows and all(field in rows[0] for field in fields):
                own = [row for row in rows if all(row[column] == value for column, value in known.items()
                                                  if column in row)]
                held[name] = [{field: row[field] for field in fields} for row in own]
                break
    return held


def _identifying_values(deps: EventDeps, event: Event) -> dict[str, list[Any]]:
    """Column name → its distinct values among the event's own rows, for the columns that identify a record:
    a table's key, or a reference to another table."""
    found: dict[str, list[Any]] = {}
    for table_name, rows in {**event.user_rows, **event.user_side_rows}.items():
        identifying = deps.tables[table_name].identifying
        for row in rows:
            for column in identifying:
                value = row.get(column)
                if value is not None and value not in found.setdefault(column, []):
                    found[column].append(value)
    return found


async def drafted(deps: EventDeps, event: Event) -> Proposal:
    """The outcome of the entitled change: drafted from the rows, its arguments left asked of the model (one call,
    none when the rows settle them all)."""
    sketch = draft(deps, event)
    if not sketch.left:
        return _proposal(sketch, sketch.known)
    keys = {column for table in deps.tables for column in table.key}
    unheld = [name for name in sketch.left if name in keys and name not in sketch.choices]
    if unheld:  # the record the change is made on is not in the event's world: any id given would be made up
        return Proposal(error=f"the event's rows hold no {' or '.join(unheld)} for {sketch.tool.name} to act on")
    try:
        answer = await deps.llm.answer(_messages(deps, event, sketch), open_arguments(sketch.tool, sketch.left),
                                       step="populate/outcome_arguments")
    except LLMError as error:
        return Proposal(error=f"the arguments of {sketch.tool.name} were not given: {error}")
    return _proposal(sketch, {**given_values(answer), **sketch.known})


async def redrafted(deps: EventDeps, event: Event, proposal: Proposal, failure: Failure) -> Proposal:
    """The drafted change, which failed with `failure`, asked of the model once more with the error shown (it is then
    not sent back again); dropped when the model cannot answer, or its own answer failed, or at once on the lean
    path: the embedded model gave its failed arguments back word for word, shown the error, at a minute a run. The
    rows' values still win over the model's, unless they settled every argument: then one of them may be a record
    the change is not about (the item to exchange for, not the one held), and every argument is asked for."""
    if deps.lean:
        return proposal.dropping(failure.index, failure.reason, writes=True)
    sketch, call = draft(deps, event), proposal.calls[failure.index]
    sent = replace(proposal, repairs=proposal.repairs + 1)
    if call.mended:
        return sent.dropping(failure.index, failure.reason, writes=True)
    settled = sketch.known if sketch.left else {}
    asked = sketch if sketch.left else replace(sketch, known={}, left=list(sketch.tool.parameters.get("required", [])))
    try:
        answer = await deps.llm.answer(_messages(deps, event, asked, failed=(call, failure.reason)),
                                       open_arguments(sketch.tool, asked.left), step="populate/outcome_arguments")
    except LLMError as error:
        return sent.dropping(failure.index, f"{failure.reason} (asked again: {error})", writes=True)
    arguments = {**given_values(answer), **settled}
    return replace(sent, calls=[ProposedCall(tool=sketch.tool.name, arguments=arguments, mended=True)])


def drawable(deps: EventDeps, event: Event, failure: str) -> bool:
    """Whether a drafted change's `failure` is the world's: it names a value of the event's rows other than a
    record's own key (an item's date, an order's status), not only the call's arguments. Only then can the world
    drawn anew mend it."""
    for name, rows in {**event.user_rows, **event.user_side_rows}.items():
        own_key = deps.tables[name].own_key
        if any(named_cell(failure, value) for row in rows for column, value in row.items() if column not in own_key):
            return True
    return False


def carried_over(deps: EventDeps, event: Event, before: Event, proposal: Proposal) -> Proposal:
    """The drafted change of `proposal`, made on `before`'s world, made again on `event`'s, drawn anew (no call).

    What the rows settle comes from the new rows; what the model answered is kept, except what it took from the
    rows: a list as they held it (the items kept through a change of plan) is the list the new rows hold, and an id
    it chose among several is the id in the same place among the new ones (a new world's keys are new).
    """
    sketch, earlier = draft(deps, event), draft(deps, before)
    answered: dict[str, Any] = {}
    for name, value in proposal.calls[0].arguments.items():
        if name in earlier.known:
            continue
        offered, now = earlier.choices.get(name, []), sketch.choices.get(name, [])
        if name in sketch.held and _as_held(value, earlier.held.get(name)):
            answered[name] = sketch.held[name]
        elif value in offered and len(now) == len(offered):
            answered[name] = now[offered.index(value)]
        else:
            answered[name] = value
    return _proposal(sketch, {**answered, **sketch.known})


def _as_held(value: Any, held: list[dict[str, Any]] | None) -> bool:
    """Whether an answered list is the held one, item by item on the fields the rows give (a model adds others)."""
    if held is None or not isinstance(value, list) or len(value) != len(held):
        return False
    return all(isinstance(item, dict) and all(item.get(field) == wanted for field, wanted in row.items())
               for item, row in zip(value, held, strict=True))


def open_arguments(tool: Tool, left: list[str]) -> type[BaseModel]:
    """The answer's schema: the tool's own arguments that are left open, and no other (the model need not write out
    again what the rows settle); each validated as the tool validates it, shown as the tool's closed schema (a
    flight chosen is its number and date, not the row's every column)."""
    return _open_model(tool, tuple(left))


# Once per tool and set of open arguments: a model class made per event is never freed.
@lru_cache(maxsize=64)
def _open_model(tool: Tool, left: tuple[str, ...]) -> type[BaseModel]:
    shown = tool.closed_parameters()["properties"]
    fields = {name: (Annotated[field.annotation, WithJsonSchema(shown[name])], field)
              for name, field in tool.arguments_model.model_fields.items() if name in left}
    return create_model(tool.arguments_model.__name__, __config__=ConfigDict(extra="forbid"),
                        **fields)  # type: ignore[call-overload]


def _proposal(sketch: Draft, arguments: dict[str, Any]) -> Proposal:
    return Proposal(calls=[ProposedCall(tool=sketch.tool.name, arguments=arguments)])


def _messages(deps: EventDeps, event: Event, sketch: Draft, *, failed: tuple[ProposedCall, str] | None = None
              ) -> list[Any]:
    """The question after the world's shared prompt: the scenario, the change, what the rows settle, what is left."""
    assert event.entitled is not None
    known = "\n".join(f"- {name}: {json.dumps(value, ensure_ascii=False)}" for name, value in sketch.known.items())
    choices = "\n".join([*(f"- {name}: one of {', '.join(json.dumps(value) for value in values)}"
                          for name, values in sketch.choices.items()),
                        *(f"- {name}: now {json.dumps(items, ensure_ascii=False)}"
                          for name, items in sketch.held.items())])
    error = "\n\n" + prompt_text("populate/outcome_arguments_failed", call=failed[0].text(),
                                   error=failed[1]) if failed else ""
    return deps.messages("outcome_arguments", scenario=event.scenario, request=event.entitled.request,
                         tool=describe_tools([sketch.tool]), known=known or "(none)", choices=choices or "(none)",
                         left=", ".join(sketch.left), rows=rows_text(deps, event), error=error)
