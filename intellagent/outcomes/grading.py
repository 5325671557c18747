"""A dialog graded against its event's expected outcome, the same way whichever mode made the outcome.

- The **reward** is τ-bench's, made stricter by the rules: 1 when the world ended as the expected calls leave
  it, every expected output appears in a reply (ignoring case and the reply's commas) and no forbidden write
  was made, else 0. Both worlds are stored as their changes over the event's world, so "ended the same" is
  "the two deltas hold the same records": compared record by record, with no database made whole, and
  exactly what comparing the whole worlds would say.
- **Forbidden writes made**: the writes the sampled rules forbid that the chatbot made and that ran (an
  attempt the tool refused changed nothing).
- **Tool calls**, as FlowBench scores them (the user's own calls on its side among them, where it has tools,
  with the counts also kept per side, so that a report tells guiding from doing): a call matches an expected
  call when it is the same call as a person reads it (`matching`: the arguments through the tool's schema)
  and it ran without an error; each expected call is matched once at most. Precision is matched among the
  calls made, recall matched among the calls expected; the counts are kept per tool so that a report sums
  them rather than averaging ratios. Each expected call is also credited per argument, by the closest made
  call of its tool.
- **Progress**: the share of the expected calls made in a valid order before the chatbot's first wrong write
  (one that ran and matches no expected call still unmatched, or a forbidden one). An order is valid when
  each write comes after the calls the outcome makes before it, and before those it makes after it: look-ups
  between two writes may come in any order among themselves. Look-ups that match nothing are not wrong, only
  unneeded.
- What went wrong, by name: the expected writes and look-ups missed, the writes no expected call makes, and
  the records whose end state differs.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import ExpectedOutcome, OutcomeGrade, ToolCall
from intellagent.artifacts.outcomes import call_text, said
from intellagent.environment import worlds
from intellagent.outcomes.matching import argument_credit, call_key, forbids

if TYPE_CHECKING:
    from intellagent.environment import Environment

DIFF_LINES = 12
"""Records a grade names as differing: enough to see what went wrong without copying a world into it."""


def grade(environment: Environment, expected: ExpectedOutcome, expected_world: worlds.Changes, *,
          calls: Sequence[ToolCall], replies: Sequence[str], world: worlds.Changes) -> OutcomeGrade:
    """A dialog graded against an expected outcome.

    Args:
        environment: the domain, whose tools say which calls write.
        expected: the event's expected outcome.
        expected_world: what the expected calls change in the event's world (the outcome's stored world).
        calls: the tool calls in order, the chatbot's and the user's own on its side; those the chatbot only
            reported are left out, as nothing ran, and so are those of tools that do not act on the world
            (thinking, arithmetic) unless the outcome expects one.
        replies: the chatbot's messages to the user.
        world: what the dialog changed in the event's world.
    """
    writes = {tool.name for tool in environment.every_tool if tool.writes}
    aside = {tool.name for tool in environment.every_tool if tool.session_parameter is None}
    aside -= {call.tool for call in expected.calls}  # a published task's gold may hand the user over
    ran = {index: call for index, call in enumerate(calls) if not call.reported and call.name not in aside}
    matched, progress = _matched(environment, expected, ran, writes)
    keys = {call_key(environment, call.tool, call.arguments) for call in expected.calls}
    made_writes = {index: call for index, call in ran.items() if not call.failed and call.name in writes}
    breaking = {index: [number for number, item in enumerate(expected.forbidden)
                        if forbids(environment, item, call.name, call.arguments)]
                for index, call in made_writes.items()}
    breaking = {index: numbers for index, numbers in breaking.items() if numbers}
    differ = _differences(expected_world, world)
    outputs = {output: said(output, replies) for output in expected.outputs}
    state_match = not differ
    counts: dict[str, list[int]] = {}
    for call in expected.calls:
        counts.setdefault(call.tool, [0, 0, 0])[0] += 1
    for call in ran.values():
        counts.setdefault(call.name, [0, 0, 0])[1] += 1
    for position in matched.values():
        counts[expected.calls[position].tool][2] += 1
    missed = [call for position, call in enumerate(expected.calls) if position not in matched.values()]
    return OutcomeGrade(
        reward=1.0 if state_match and all(outputs.values()) and not breaking else 0.0,
        state_match=state_match,
        outputs=outputs,
        forbidden_made=[call_text(calls[index].name, calls[index].arguments) for index in breaking],
        missed=[call.text() for call in missed if call.writes],
        missed_reads=[call.text() for call in missed if not call.writes],
        unexpected=[call_text(call.name, call.arguments) for call in made_writes.values()
                    if call_key(environment, call.name, call.arguments) not in keys],
        diff=differ[:DIFF_LINES] + ([f"... and {len(differ) - DIFF_LINES} more"] if len(differ) > DIFF_LINES else []),
        expected_calls=len(expected.calls),
        made_calls=len(ran),
        matched_calls=len(matched),
        matched=matched,
        breaking=breaking,
        argument_credit=_credit(environment, expected, list(ran.values())),
        tools=dict(sorted(counts.items())),
        sides=_sides(environment, counts),
        progress=progress / len(expected.calls) if expected.calls else 1.0,
    )


def _sides(environment: Environment, counts: dict[str, list[int]]) -> dict[str, list[int]]:
    """The per-tool counts summed per side of the world, where the user has tools of its own (a tool no longer
    known counts as the company's)."""
    user = {tool.name for tool in environment.every_tool if tool.side == "user"}
    if not user:
        return {}
    sides = {"company": [0, 0, 0], "user": [0, 0, 0]}
    for tool, numbers in counts.items():
        side = sides["user" if tool in user else "company"]
        for position, number in enumerate(numbers):
            side[position] += number
    return sides


def _matched(environment: Environment, expected: ExpectedOutcome, ran: dict[int, ToolCall],
             writes: set[str]) -> tuple[dict[int, int], int]:
    """Which expected call each call that ran matched (call's position → expected call's), each expected call
    once at most; and how many of them were made in a valid order before the first wrong write."""
    waiting: dict[str, list[int]] = {}
    for position, call in enumerate(expected.calls):
        waiting.setdefault(call_key(environment, call.tool, call.arguments), []).append(position)
    matched: dict[int, int] = {}
    before_wrong: list[int] = []  # the expected positions matched before the first wrong write, in the order made
    wrong = False
    for position, call in ran.items():
        if call.failed:
            continue  # it changed nothing, and matched nothing
        open_positions = waiting.get(call_key(environment, call.name, call.arguments))
        forbidden = any(forbids(environment, item, call.name, call.arguments) for item in expected.forbidden)
        if open_positions and not forbidden:
            matched[position] = open_positions.pop(0)
            if not wrong:
                before_wrong.append(matched[position])
        elif call.name in writes:
            wrong = True
    return matched, _in_valid_order(expected, before_wrong)


def _in_valid_order(expected: ExpectedOutcome, made: list[int]) -> int:
    """The most of the expected calls at positions `made` (in the order the chatbot made them) that keep a valid
    order. Each expected call gets a stage: the look-ups before the first write share the first, each write has
    one of its own, the look-ups after it share the next; a valid order is one whose stages never go down, and
    the longest such subsequence is found by patience sorting."""
    stages = []
    stage = 0
    for call in expected.calls:
        if call.writes:
            stages.append(stage + 1)
            stage += 2
        else:
            stages.append(stage)
    tails: list[int] = []
    for position in made:
        stage = stages[position]
        place = bisect_right(tails, stage)
        tails[place:place + 1] = [stage]
    return len(tails)


def _credit(environment: Environment, expected: ExpectedOutcome, ran: list[ToolCall]) -> float | None:
    """The mean over the expected calls of the share of each one's arguments that the closest call the chatbot
    made of its tool, and that ran, got right (0 for an expected call whose tool was never called); None when no
    call was expected."""
    if not expected.calls:
        return None
    credits = []
    for call in expected.calls:
        made = [other.arguments for other in ran if other.name == call.tool and not other.failed]
        credits.append(max((argument_credit(environment, call.tool, call.arguments, arguments) for arguments in made),
                           default=0.0))
    return sum(credits) / len(credits)


def _differences(expected: worlds.Changes, actual: worlds.Changes) -> list[str]:
    """The records whose end state differs between two worlds' changes over one world, one line each."""
    ours, theirs = worlds.records(expected), worlds.records(actual)
    columns = {name: changed.columns for name, changed in (*expected.items(), *actual.items())}
    lines = []
    for name in sorted(ours.keys() | theirs.keys()):
        if name not in theirs:
            done = "removed" if ours[name][1] is None else "written"
            lines.append(f"{name}: {done} by the expected calls, not by the chatbot")
        elif name not in ours:
            done = "removed" if theirs[name][1] is None else "written"
            lines.append(f"{name}: {done} by the chatbot, not by the expected calls")
        elif ours[name] != theirs[name]:
            (table, wanted), (_, found) = ours[name], theirs[name]
            lines.append(f"{name}: {_columns(columns[table], wanted, found)}")
    return lines


def _columns(columns: list[str], wanted: list[Any] | None, found: list[Any] | None) -> str:
    if wanted is None:
        return "removed by the expected calls, kept by the chatbot"
    if found is None:
        return "removed by the chatbot, kept by the expected calls"
    return ", ".join(column for column, one, other in zip(columns, wanted, found, strict=True) if one != other)

