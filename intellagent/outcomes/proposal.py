"""An event's expected outcome as the model proposes it, and a failed call as the model mends it.

One call per event proposes the outcome (step `populate/outcome`): the calls a chatbot that keeps every
sampled rule makes, the writes the rules forbid, the facts it must state. The prompt shows the scenario,
its expected behaviour, the sampled policies, the event's own rows and the rows they refer to, and the
tools that act on the world; the answer's schema admits only those tools with their own arguments (see
`answer`). A call that fails when the outcome is run goes back to the model once, with what went wrong
(step `populate/outcome_repair`, at most `MAX_REPAIRS` per event); what the model cannot mend is dropped,
with its reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel

from intellagent.artifacts import Event, ForbiddenCall
from intellagent.artifacts.outcomes import call_text
from intellagent.llm import LLMError
from intellagent.outcomes.answer import given_arguments, mend_schema, proposal_schema, world_tools
from intellagent.prompt_files import prompt_text, render

if TYPE_CHECKING:
    from intellagent.populate.event import EventDeps

MAX_REPAIRS = 2
"""Failed calls sent back to the model per event, in all."""

MAX_REFERENCED = 8
"""Rows the event's rows refer to, shown beside them."""

RESULT_CHARACTERS = 400
"""What a repair prompt shows of each call's result."""


@dataclass(frozen=True)
class ProposedCall:
    """A call of the proposed outcome.

    Attributes:
        mended: the model gave it in place of a call that failed; it is not sent back again.
    """

    tool: str
    arguments: dict[str, Any]
    policies: list[str] = field(default_factory=list)
    mended: bool = False

    def text(self) -> str:
        """The call as one line, as reports cite it."""
        return call_text(self.tool, self.arguments)


@dataclass(frozen=True)
class Proposal:
    """The outcome the model proposed, as repairs and drops have left it.

    Attributes:
        calls: the calls still kept, in order.
        forbidden: the writes the rules forbid here.
        outputs: the facts the chatbot must state.
        dropped: each call given up, with why.
        repairs: calls sent back to the model so far.
        failed: how many calls were dropped because they would not run clean.
        lost_writes: of those, the changes, as calls: an outcome without one of them would be emptier than the
            scenario, so the event gets none.
        error: why the model gave no usable proposal.
    """

    calls: list[ProposedCall] = field(default_factory=list)
    forbidden: list[ForbiddenCall] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    repairs: int = 0
    failed: int = 0
    lost_writes: list[str] = field(default_factory=list)
    error: str | None = None

    @classmethod
    def from_answer(cls, answer: BaseModel) -> Proposal:
        """The proposal an answer gives (see `answer.ExpectedOutcomeProposal`)."""
        calls = [_proposed(call) for call in answer.calls]  # type: ignore[attr-defined]
        forbidden = [ForbiddenCall(tool=item.tool, arguments=item.arguments, policies=[item.policy],
                                   reason=item.reason.strip()) for item in getattr(answer, "forbidden", [])]
        outputs = list(dict.fromkeys(output.strip() for output in answer.outputs if output.strip()))  # type: ignore[attr-defined]
        return cls(calls=calls, forbidden=forbidden, outputs=outputs)

    def dropping(self, index: int, reason: str, *, failed: bool = True, writes: bool = False) -> Proposal:
        """The proposal without its call at `index`, noted with `reason` (`failed`: because it would not run
        clean, rather than because no rule-keeping chatbot makes it; `writes`: the call changes the world)."""
        call = self.calls[index]
        lost = [*self.lost_writes, call.text()] if failed and writes else self.lost_writes
        return replace(self, calls=self.calls[:index] + self.calls[index + 1:],
                       dropped=[*self.dropped, f"{call.text()}: {reason}"], failed=self.failed + failed,
                       lost_writes=lost)

    def answered(self) -> str:
        """The calls kept, as the model's answer gave them (for a repair's conversation)."""
        return json.dumps({"calls": [{"tool": call.tool, "arguments": call.arguments, "policies": call.policies}
                                     for call in self.calls],
                           "forbidden": [forbidden.model_dump(exclude={"reason"}) for forbidden in self.forbidden],
                           "outputs": self.outputs}, ensure_ascii=False)


def _proposed(call: BaseModel, *, mended: bool = False) -> ProposedCall:
    return ProposedCall(tool=call.tool, arguments=given_arguments(call),  # type: ignore[attr-defined]
                        policies=list(dict.fromkeys(call.policies)), mended=mended)  # type: ignore[attr-defined]


async def proposed(deps: EventDeps, event: Event) -> Proposal:
    """The model's proposal of the event's expected outcome (one call); an answer that never fits its schema is a
    proposal with its error."""
    schema = proposal_schema(deps.env, tuple(event.policies), event.entitled)
    try:
        answer = await deps.llm.answer(outcome_messages(deps, event), schema, step="populate/outcome")
    except LLMError as error:
        return Proposal(error=f"the proposal failed: {error}")
    return Proposal.from_answer(answer)


async def mended(deps: EventDeps, event: Event, proposal: Proposal, index: int, reason: str,
                 results: list[str]) -> Proposal:
    """The proposal with its call at `index`, which failed with `reason`, replaced by the model's answer (one
    call), or dropped when the model leaves it out or cannot answer.

    Args:
        results: what each call up to the failed one returned when the outcome was run.
    """
    shown = "\n".join(f"{number}. {call.text()} returned: {_cut(result)}"
                      for number, (call, result) in enumerate(zip(proposal.calls, results, strict=False), start=1))
    messages = [*outcome_messages(deps, event), AIMessage(proposal.answered()),
                *render("populate/outcome_repair", results=shown, number=str(index + 1), error=_cut(reason))]
    sent = replace(proposal, repairs=proposal.repairs + 1)
    try:
        answer = await deps.llm.answer(messages, mend_schema(deps.env, tuple(event.policies), proposal.forbidden),
                                       step="populate/outcome_repair")
    except LLMError as error:
        return sent.dropping(index, f"{reason} (its repair failed: {error})", writes=_writes(deps, proposal, index))
    if answer.call is None:  # type: ignore[attr-defined]
        return sent.dropping(index, f"{reason} (left out when sent back)", writes=_writes(deps, proposal, index))
    calls = list(sent.calls)
    calls[index] = _proposed(answer.call, mended=True)  # type: ignore[attr-defined]
    return replace(sent, calls=calls)


def _writes(deps: EventDeps, proposal: Proposal, index: int) -> bool:
    return deps.env.tool(proposal.calls[index].tool).writes


def outcome_messages(deps: EventDeps, event: Event) -> list[BaseMessage]:
    """The proposal's prompt: the world's description, then the event and the tools."""
    policies = "\n".join(f"- {policy_id}: {deps.policies.get(policy_id, '')}".rstrip() for policy_id in event.policies)
    claim = event.claim  # the outcome follows the records, not what the user will say of them
    scenario = event.scenario + ("\n\n" + prompt_text("populate/outcome_claim", statement=claim.statement,
                                                       truth=claim.contradiction()) if claim else "")
    entitled = (prompt_text("populate/outcome_entitled", request=event.entitled.request, tool=event.entitled.tool)
                if event.entitled else prompt_text("populate/outcome_refusal"))
    return deps.messages("outcome", tools=_tools_text(deps), scenario=scenario,
                         expected_behaviour=event.expected_behaviour, entitled=entitled,
                         policies=policies or "(none named)", rows=rows_text(deps, event))


def rows_text(deps: EventDeps, event: Event) -> str:
    """The event's own rows (those of the user's side in full), then the rows they refer to (at most
    `MAX_REFERENCED`), one JSON line each, without their empty columns (a flight's date has nine while it can be
    booked, and every token of this prompt is read cold)."""
    own = {**event.user_rows, **event.user_side_rows}
    referenced: dict[str, list[dict[str, Any]]] = {}
    for table_name, rows in own.items():
        table = deps.tables[table_name]
        for row in rows:
            for foreign_key in table.foreign_keys:
                match = {target: row.get(column) for column, target in zip(foreign_key.columns,
                                                                           foreign_key.target_columns, strict=True)}
                if None in match.values() or _among(own.get(foreign_key.target, []), match):
                    continue
                found = deps.world.matching(foreign_key.target, match)[:1]
                listed = referenced.setdefault(foreign_key.target, [])
                if found and found[0] not in listed and sum(map(len, referenced.values())) < MAX_REFERENCED:
                    listed.append(found[0])
    blocks = [f"{name}:\n" + "\n".join(f"- {json.dumps(_filled(row), ensure_ascii=False, default=str)}" for row in rows)
              for name, rows in (*own.items(), *referenced.items()) if rows]
    return "\n".join(blocks) or "(no rows of its own: the scenario plays on the world as it is)"


def _filled(row: dict[str, Any]) -> dict[str, Any]:
    return {column: value for column, value in row.items() if value is not None}


def _among(rows: list[dict[str, Any]], match: dict[str, Any]) -> bool:
    return any(all(row.get(column) == value for column, value in match.items()) for row in rows)


def _tools_text(deps: EventDeps) -> str:
    """Each tool an expected call may make: its name and arguments, whether it changes the world (or is the
    user's own, which the chatbot gets the user to use), what it does."""
    lines = []
    for tool in world_tools(deps.env):
        arguments = ", ".join(tool.parameters.get("properties", {}))
        kind = "changes the world" if tool.writes else "looks up"
        if tool.side == "user":
            kind = f"the user's own tool, which it uses when the chatbot asks; {kind}"
        lines.append(f"- {tool.name}({arguments}) [{kind}]: {tool.description.splitlines()[0]}")
    return "\n".join(lines)


def _cut(text: str) -> str:
    return text if len(text) <= RESULT_CHARACTERS else text[:RESULT_CHARACTERS] + "…"
