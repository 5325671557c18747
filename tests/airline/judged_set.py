"""The labelled set (tests/airline/labelled/) as a run folder, audited and judged by a model of your choice, reported
against its labels: how far that model's judge, and the audit with that model confirming the program's faults,
agree with a person's reading of the 48 dialogs.

    .venv/bin/python -m tests.airline.judged_set --llm local --output results/labelled-set

Each dialog's user is audited as the simulate stage audits it (the program's faults, put to the `critique` model
as `simulate.fault_question` says), then the report stage judges every dialog with the `analysis` model and holds
it to labels.jsonl. It prints the reliability line; report.html's "Against your labels" panel has the tables.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
from pathlib import Path

import networkx as nx
from intellagent.db_schemas.airline.tau import build_tau_database

from intellagent.artifacts import Dialog, Scenario
from intellagent.config import Config, apply_overrides, load_config
from intellagent.environment import Environment, load_environment
from intellagent.llm import ResponseCache, ScriptedLLM, Usage
from intellagent.llm.roles import RoleModels
from intellagent.reports.summary import reliability_line
from intellagent.run_folder import RunFolder
from intellagent.runner import RunResult, execute
from intellagent.simulate.fault_question import confirmed, longest_question
from intellagent.simulate.user_audit import program_audit
from tests.airline.labelled_set import LABELS, catalog, labelled_dialogs

TAU_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "tau_airline"


def settings(llm: str) -> Config:
    """The airline example's config with every role on `llm`."""
    return apply_overrides(load_config("airline"), llm=llm)


async def audited_dialogs(config: Config, environment: Environment, world: Path, cache: ResponseCache,
                          script: ScriptedLLM | None = None) -> list[Dialog]:
    """Every dialog of the set, its user audited: the program's faults, confirmed by the critique model."""
    models = RoleModels(config, cache=cache, usage=Usage(), script=script)
    critique, longest = models["critique"], longest_question(config.simulate.fault_question,
                                                             models.spec("critique").provider)
    dialogs = []
    for item in labelled_dialogs():
        audit = program_audit(environment, item.event, item.dialog, world=world)
        if longest is not None:
            audit = await confirmed(item.event, item.dialog, audit, critique, longest=longest)
        dialogs.append(item.dialog.model_copy(update={"audit": audit}))
    return dialogs


def write_run(folder: RunFolder, dialogs: list[Dialog]) -> None:
    """The set's policies, graph, scenarios, events and dialogs, and its labels, in a run folder."""
    policies = catalog()
    folder.policies.save(policies)
    graph = nx.Graph()
    graph.add_nodes_from((p.id, {"text": p.text, "category": p.category, "challenge": p.challenge, "flows": p.flows})
                         for p in policies.policies)
    folder.graph.save(graph)
    for item in labelled_dialogs():
        event = item.event
        folder.scenarios.append(Scenario(id=event.id, policies=event.policies, target_challenge=event.challenge,
                                         challenge=event.challenge, description=event.scenario,
                                         persona=event.persona))
        folder.events.append(event)
    for dialog in dialogs:
        folder.dialogs.append(dialog)
    shutil.copyfile(LABELS, folder.path(RunFolder.labels))


async def judged(config: Config, output: Path, *, world: Path, script: ScriptedLLM | None = None) -> RunResult:
    """The set written to `output` (a new run folder), audited and reported against its labels."""
    environment = load_environment(config.environment)
    await execute(config, output=output, stages=(), progress=False)  # run.json: the folder is a run's
    folder = RunFolder(output)
    cache = ResponseCache(folder.path(RunFolder.llm_cache))
    try:
        dialogs = await audited_dialogs(config, environment, world, cache, script)
    finally:
        cache.close()
    write_run(folder, dialogs)
    return await execute(config, output=output, stages=("report",), script=script, progress=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", required=True, help="the model of every role, as --llm takes it (local, openai:...)")
    parser.add_argument("--output", type=Path, default=Path("results/labelled-set"))
    args = parser.parse_args(argv)
    if args.output.exists():
        parser.error(f"{args.output} exists; give a new folder")
    config = settings(args.llm)
    world = args.output.parent / f"{args.output.name}.tau.sqlite"
    if not world.exists():
        build_tau_database(load_environment(config.environment), TAU_DATA, world)
    result = asyncio.run(judged(config, args.output, world=world))
    print(reliability_line(result.report))
    print(f"tables: {args.output / 'report.html'}#labels")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
