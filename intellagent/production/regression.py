"""Failing production conversations kept as regression scenarios: a frozen test set that `--scenarios-from` plays.

Each conversation the report's analysis failed becomes a scenario and its event, under the conversation's
id (P0007):

- **the goal** is the user's own: the simulated user is asked to want what the real one wanted, and is
  shown what it said, in order; the policies are those the conversation broke, then those it tested;
- **the facts** are what the conversation's tool results showed: every object in a successful call's
  JSON result that carries a table's key and required columns becomes a row of that table, written over
  the background world as the event's world, and given to the simulated user as what it knows. A row
  the database or the domain's rules refuse (a reference to a row nobody showed) is left out and noted
  in the event's `dropped`: a transcript that showed little makes a poorer world, never a broken one;
- **the expected behaviour** is each broken policy, with the turn and reason it was broken. No expected
  outcome is verified for it: its dialogs are judged by the checks and the judge.

The set is a run folder of its own (regression/): the run's policies (with its rules) and graph, and these
scenarios and events with their worlds.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlmodel import SQLModel

from intellagent.artifacts import Analysis, Dialog, Event, PolicyCatalog, Scenario
from intellagent.context import RunContext
from intellagent.environment import worlds
from intellagent.environment.environment import Environment
from intellagent.populate.background import BACKGROUND
from intellagent.run_folder import RunFolder

NO_OUTCOME = "a production conversation: its expected outcome is not verified"


def write_regression_set(ctx: RunContext, dialogs: list[Dialog], analyses: list[Analysis]) -> list[Event]:
    """The regression set of the run's failing production conversations, written anew; its events."""
    failing = {analysis.id for analysis in analyses if analysis.status == "fail"}
    chosen = [dialog for dialog in dialogs if dialog.id in failing]
    target = RunFolder(ctx.folder.regression)
    _clear(target)
    if not chosen:
        return []
    target.root.mkdir(parents=True, exist_ok=True)
    catalog = ctx.folder.policies.require()
    for entry in (RunFolder.policies, RunFolder.graph):
        if ctx.folder.path(entry.name).exists():
            shutil.copy2(ctx.folder.path(entry.name), target.path(entry.name))
    background = target.path(BACKGROUND)
    background.parent.mkdir(parents=True)
    if ctx.folder.path(BACKGROUND).exists():  # the run's own, built from the same seed
        shutil.copy2(ctx.folder.path(BACKGROUND), background)
    else:
        ctx.environment.create_database(background, seed=ctx.config.seed)
    by_id = {analysis.id: analysis for analysis in analyses}
    scenarios, events = [], []
    for dialog in chosen:
        scenario = regression_scenario(dialog, by_id[dialog.id], catalog)
        scenarios.append(scenario)
        events.append(regression_event(ctx.environment, scenario, dialog, target))
    target.scenarios.replace(scenarios)
    target.events.replace(events)
    return events


def _clear(target: RunFolder) -> None:
    """The set's artifacts removed, its LLM cache kept: what playing the set recorded is not paid for again."""
    if not target.root.exists():
        return
    for path in target.root.iterdir():
        if path.name == RunFolder.llm_cache:
            continue
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def regression_scenario(dialog: Dialog, analysis: Analysis, catalog: PolicyCatalog) -> Scenario:
    """The scenario of a failing conversation: the user's goal in its own words, the broken policies first."""
    broken = list(dict.fromkeys(v.policy for v in analysis.violations))
    policies = [*broken, *(p for p in analysis.tested if p not in broken)]
    said = "\n".join(f"{n}. {m.content}" for n, m in enumerate(
        (m for m in dialog.transcript if m.role == "user"), start=1))
    first = {policy: next(v for v in analysis.violations if v.policy == policy) for policy in broken}  # strongest
    behaviour = "\n".join(f"- {catalog.policy(p).text} (broken in production at turn {v.turn}: {v.reason})"
                           for p, v in first.items())
    challenge = sum(catalog.policy(p).challenge for p in policies)
    return Scenario(
        id=dialog.id, policies=policies, target_challenge=challenge, challenge=challenge,
        description=f"You want what a real customer wanted in this conversation ({dialog.production}), and you "
                    f"pursue it as they did. What they said, in order:\n{said}",
        expected_behaviour=f"Keep the rules this conversation broke:\n{behaviour}",
    )


def regression_event(environment: Environment, scenario: Scenario, dialog: Dialog, target: RunFolder) -> Event:
    """The event of a regression scenario: its world is the background with the rows its tool results showed."""
    base = target.path(BACKGROUND)
    whole = target.path(RunFolder.event_worlds.whole(scenario.id))
    kept, dropped = _insert(environment, base, whole, shown_rows(environment, dialog))
    found = worlds.changes(whole, base)
    whole.unlink()
    stored = RunFolder.event_worlds.stored(scenario.id)
    worlds.save_delta(target.path(stored), base=base, found=found)
    return Event(id=scenario.id, policies=scenario.policies, challenge=scenario.challenge,
                 scenario=scenario.description, expected_behaviour=scenario.expected_behaviour, user_rows=kept,
                 database=stored, digest=worlds.digest(found, base), dropped=dropped, expected_error=NO_OUTCOME)


def shown_rows(environment: Environment, dialog: Dialog) -> list[SQLModel]:
    """The rows the conversation's successful tool results showed, as the domain's table rows (the last showing
    of a row wins)."""
    rows: dict[tuple[str, str], SQLModel] = {}
    for message in dialog.transcript:
        for call in message.tool_calls:
            if call.result is None or call.failed:
                continue
            try:
                shown = json.loads(call.result)
            except json.JSONDecodeError:
                continue
            for found in _objects(shown):
                for table in environment.tables:
                    row = _as_row(table, found)
                    if row is not None:
                        rows[(table.__tablename__, _key(table, row))] = row
    return list(rows.values())


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in a value, nested ones included."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


def _as_row(table: type[SQLModel], found: dict[str, Any]) -> SQLModel | None:
    """The row of `table` an object shows, when it holds the table's key and every required column."""
    fields = table.model_fields
    keys = [column.name for column in table.__table__.primary_key.columns]  # type: ignore[attr-defined]
    required = [name for name, info in fields.items() if info.is_required()]
    if not keys or any(name not in found for name in [*keys, *required]):
        return None
    try:
        return table.model_validate({name: found[name] for name in fields if name in found})
    except ValueError:
        return None


def _key(table: type[SQLModel], row: SQLModel) -> str:
    return json.dumps([getattr(row, column.name) for column in table.__table__.primary_key.columns],  # type: ignore[attr-defined]
                      default=str)


def _insert(environment: Environment, base: Path, path: Path, rows: list[SQLModel]
            ) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """The world at `path`: the base with each row written over it (replacing a row of the same key), keeping those
    the database and the domain's rules accept; the rows kept, per table, and why each other was dropped.

    A row is refused alone when the database or a rule of its own refuses it; the rows that break a world rule
    together (an order shown without its payment) are dropped, and the others written again on a fresh copy,
    until the world is valid.
    """
    dropped: list[str] = []
    candidates = list(rows)
    while True:
        shutil.copy2(base, path)
        with environment.session(path) as session:
            accepted, refused = _merged(environment, session, candidates)
            changes = [(row.__tablename__, {name: getattr(row, name) for name in type(row).model_fields})
                       for _, row in accepted]
            breaches = environment.broken_world_rules(session, changes)
            if not breaches:
                dropped += refused
                return _by_table([row for row, _ in accepted]), dropped
            culprits = {index for breach in breaches for index in breach.causes} or set(range(len(accepted)))
            session.rollback()
        broken = {id(accepted[i][0]): breach for breach in breaches for i in breach.causes or range(len(accepted))}
        dropped += [f"{_name(row)}: breaks {broken[id(row)].rule}: {broken[id(row)].message}"
                    for row in (accepted[i][0] for i in sorted(culprits))]
        gone = {id(accepted[i][0]) for i in culprits}
        candidates = [row for row, _ in accepted if id(row) not in gone]


def _merged(environment: Environment, session: Any, rows: list[SQLModel]) -> tuple[list[tuple[SQLModel, SQLModel]],
                                                                                    list[str]]:
    """Each row written in a savepoint of its own, as (row, row in the session), and why each refused one was."""
    accepted, refused = [], []
    for row in rows:
        try:
            with session.begin_nested():
                merged = session.merge(row)
                session.flush()
                problems = environment.validate(merged, session)
                if problems:
                    raise ValueError("; ".join(problems))
        except Exception as error:  # any refusal leaves the row out: the world stays valid
            refused.append(f"{_name(row)}: {str(error).splitlines()[0][:200]}")
            continue
        accepted.append((row, merged))
    return accepted, refused


def _name(row: SQLModel) -> str:
    return f"{row.__tablename__} {_key(type(row), row)}"


def _by_table(rows: list[SQLModel]) -> dict[str, list[dict[str, Any]]]:
    kept: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        kept.setdefault(str(row.__tablename__), []).append(row.model_dump(mode="json"))
    return kept
