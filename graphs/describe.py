"""The describe stage: policy document → flows → policies → policy graph → scenarios.

    start ─► task ─► flows ═► policies ─► merge ─► cover ─► checks ─► prepare_programs (reads the rules file)
      │                                                      ▲              ▲
      ├─ a policy list ─► listed ────────────────────────────┴──────────────┘ (to checks when the list maps none)
      │                           ═► procedure (one per flow) ═╗
      │                           ═► compile (one per batch)  ═╩► programs     writes policies.json (and a proposed
      │                                                               │        rules file; a policy list to review)
      ├─ policies.json exists ──────────► prepare_scoring ═► score ─► assemble   writes graph.json
      │                                                                  │ (policies only: done)
      └─ graph.json exists ─────────────────────────────────────────► traffic ─► plan
    plan ═► scenario ─► next_round ═► scenario … ─► finish                 writes scenarios.jsonl
    (═► fans out with Send: one task per flow, per batch or block of policies, per scenario to write)

The scenarios come from the run's scenario source (`intellagent.modes`): by default a plan of sampled
policy sets, each tried again with another candidate set while its scenario fails, and a set sampled
again written after the scenarios planned before it for the same set; in τ-bench mode (`tau.data`),
τ-bench's published tasks, one call per task to name the policies it tests.

With `environment.policy_list` naming a file that exists, the policies are read from it (`listed`), checked before
any call: no task, flow, policy or coverage call, and no check-mapping call when the list maps the checks. Naming a
file that does not exist yet, the policies are extracted and written there too, for review.

A run that judges production alone asks for the policies only (`run_policies`): the stage ends with graph.json,
and writes no scenario.

Each artifact is written as soon as it is complete, so a resumed run skips what is done: with
policies.json there is no extraction, with graph.json no scoring, and only the scenarios missing from
scenarios.jsonl (or failed, with a candidate left) are written. The work of each step is in
`intellagent.describe`; the stage's progress bars are made before it runs, and shown once their items
are known."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import networkx as nx
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from intellagent.artifacts import Flow, PolicyCatalog, Scenario
from intellagent.checks import every_check
from intellagent.context import RunContext, log
from intellagent.describe import Described
from intellagent.describe.assertion_compiler import batches, compiled_batch
from intellagent.describe.check_map import asks_declared, listed_checks, mapped_checks
from intellagent.describe.extraction import (
    PolicyAnswer,
    extracted_flows,
    flow_policies,
    policy_catalog,
    task_description,
)
from intellagent.describe.passage_coverage import covered, with_uncovered
from intellagent.describe.policy_graph import BlockScores, scored_block, scoring_blocks, weighted_graph
from intellagent.describe.policy_list import PolicyList, listed_catalog, propose_list, read_policy_list
from intellagent.describe.procedure_reading import flow_procedure
from intellagent.describe.production_traffic import Traffic
from intellagent.describe.programs import BatchResult, ProcedureResult, with_programs
from intellagent.describe.source import ScenarioSource
from intellagent.describe.vocabulary import Vocabulary
from intellagent.describe.workflows import reading
from intellagent.llm import LLMError
from intellagent.modes import scenario_source
from intellagent.production.judgement import production_verdicts
from intellagent.progress import StageProgress
from intellagent.rules.proposed_rules import propose, proposed_path
from intellagent.rules.review import Reviewed, in_force, reviewed
from intellagent.rules.rules_file import read_rules
from intellagent.run_folder import RunFolder
from intellagent.stage import StageItems


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Reducer of keyed results from parallel tasks: each task adds or replaces its own keys."""
    return {**left, **right}


class State(TypedDict, total=False):
    document: str
    listed: PolicyList  # the reviewed policy list, when the config names one that exists
    policies_only: bool  # production alone: no scenario to write
    reading: str  # the document as the prompts show it: its flowcharts read step by step
    task_description: str
    flows: list[Flow]
    extracted: Annotated[dict[str, list[PolicyAnswer]], _merge]  # flow id → its policies
    failures: Annotated[dict[str, str], _merge]  # flow id → why its extraction failed
    catalog: PolicyCatalog
    vocabulary: Vocabulary
    procedure_flows: list[Flow]  # the flows whose procedure to read, one call each
    rules: Reviewed  # the rules file's rules, held and refused (none without one)
    batches: list[tuple[str, ...]]  # policies compiled into assertions together, one call per batch
    procedures: Annotated[list[ProcedureResult], operator.add]
    compiled: Annotated[list[BatchResult], operator.add]
    blocks: list[tuple[str, ...]]  # policies scored together, one call per block
    scores: Annotated[list[BlockScores], operator.add]
    graph: nx.Graph
    plan: Any  # the scenario source's plan of every scenario the run wants (as long as the scenarios it plans)
    records: Annotated[dict[str, Scenario], _merge]  # scenario id → its latest record
    pending: list[Any]  # the scenarios to write in this round, as the source names them
    wanted: int  # the scenarios the run asks for
    scenarios: list[Scenario]  # every scenario of the run, in id order, once written


class FlowTask(TypedDict):
    document: str
    flow: Flow


class ProcedureTask(TypedDict):
    reading: str
    catalog: PolicyCatalog
    vocabulary: Vocabulary
    flow: Flow  # the flow whose procedure to read


class CompileTask(TypedDict):
    reading: str
    catalog: PolicyCatalog
    vocabulary: Vocabulary
    batch: tuple[str, ...]  # the policies to compile into assertions


class BlockTask(TypedDict):
    catalog: PolicyCatalog
    block: tuple[str, ...]


class ScenarioTask(TypedDict):
    catalog: PolicyCatalog
    job: Any  # one scenario to write, as the source names it


@dataclass(frozen=True)
class DescribeDeps:
    """What the nodes work with besides the state (the graph's runtime context), made before the graph runs
    and fixed while it does.

    Attributes:
        source: where the scenarios come from.
        extracting: the bar of the policy extraction, one item per flow.
        programs: the bar of the procedures and assertions, one item per flow and per batch of policies.
        scoring: the bar of the graph's scoring calls, one per block of policies.
        items: the scenarios, recorded in scenarios.jsonl as each is written or fails.
    """

    ctx: RunContext
    source: ScenarioSource[Any, Any]
    extracting: StageProgress
    programs: StageProgress
    scoring: StageProgress
    items: StageItems[Scenario]


DescribeRuntime = Runtime[DescribeDeps]
Update = dict[str, Any]


# ── policies ────────────────────────────────────────────────────────────────────────────────


def start(state: State, runtime: DescribeRuntime) -> Update:
    """Pick up the artifacts an earlier run completed, or else the reviewed policy list the config names, if it
    exists (checked here, before any call)."""
    ctx = runtime.context.ctx
    catalog = ctx.folder.policies.load()
    if catalog is None:
        path = ctx.config.environment.policy_list
        if path is not None and path.is_file():
            return {"listed": read_policy_list(path, every_check(ctx.environment))}
        return {}
    graph = ctx.folder.graph.load()
    return {"catalog": catalog} if graph is None else {"catalog": catalog, "graph": graph}


def route_start(state: State) -> str:
    """Resume after the last artifact written: the policy list or extraction, scoring or the scenarios (none for the
    policies only)."""
    if "catalog" not in state:
        return "listed" if "listed" in state else "task"
    if "graph" not in state:
        return "prepare_scoring"
    return END if state.get("policies_only") else "traffic"


def route_graph(state: State) -> str:
    """On to the scenarios, or done when the run asks for the policies only."""
    return END if state.get("policies_only") else "traffic"


def read_listed(state: State, runtime: DescribeRuntime) -> Update:
    """The policies as the reviewed list states them, the passages none of them covers listed, and the checks mapped
    as the list maps them, if it does (no call)."""
    listed, document = state["listed"], state["document"]
    catalog = with_uncovered(listed_catalog(listed), document)
    if listed.checks is not None:
        catalog = listed_checks(catalog, every_check(runtime.context.ctx.environment), listed.checks)
    return {"reading": reading(document), "catalog": catalog}


def route_listed(state: State) -> str:
    """On to the programs when the list maps the checks, else to the call that maps them."""
    return "checks" if state["listed"].checks is None else "prepare_programs"


async def describe_task(state: State, runtime: DescribeRuntime) -> Update:
    """The chatbot's task and domain, in a few sentences."""
    shown = reading(state["document"])
    return {"reading": shown, "task_description": await task_description(runtime.context.ctx.llms["policies"], shown)}


async def extract_flows(state: State, runtime: DescribeRuntime) -> Update:
    """The families of conversation the document covers."""
    flows = await extracted_flows(runtime.context.ctx.llms["policies"], state["reading"])
    runtime.context.extracting.set_total(len(flows))
    return {"flows": flows}


def route_flows(state: State) -> list[Send]:
    """One policy extraction per flow, in parallel."""
    return [Send("policies", FlowTask(document=state["reading"], flow=flow)) for flow in state["flows"]]


async def extract_policies(task: FlowTask, runtime: DescribeRuntime) -> Update:
    """The policies of one flow; a failure is recorded against the flow and the others go on."""
    flow, bar = task["flow"], runtime.context.extracting
    try:
        policies = await flow_policies(runtime.context.ctx.llms["policies"], task["document"], flow)
    except LLMError as error:
        bar.advance(error=True)
        return {"failures": {flow.id: str(error)}}
    bar.advance()
    return {"extracted": {flow.id: policies}}


def merge_policies(state: State, runtime: DescribeRuntime) -> Update:
    """One policy per rule across flows, categories and challenge scores checked against their text."""
    config = runtime.context.ctx.config
    catalog = policy_catalog(state["task_description"], state["flows"], state.get("extracted", {}),
                             state.get("failures", {}), similarity=config.describe.merge_similarity,
                             document=config.environment.policy)
    return {"catalog": catalog}


async def cover_document(state: State, runtime: DescribeRuntime) -> Update:
    """The passages of the document no policy came from, read again in one call; those still uncovered listed."""
    ctx = runtime.context.ctx
    catalog = await covered(ctx.llms["policies"], state["catalog"], state["document"],
                            similarity=ctx.config.describe.merge_similarity, shown=state["reading"])
    return {"catalog": catalog}


async def map_checks(state: State, runtime: DescribeRuntime) -> Update:
    """Which policies each deterministic check enforces (one call)."""
    ctx = runtime.context.ctx
    llm = ctx.llms["policies"]
    catalog = await mapped_checks(llm, state["catalog"], every_check(ctx.environment),
                                  ask_declared=asks_declared(llm.spec.provider))
    return {"catalog": catalog}


def prepare_programs(state: State, runtime: DescribeRuntime) -> Update:
    """The domain's names, its rules file's rules reviewed (no call), the flows whose procedures to read and the
    batches of policies to compile into assertions (none of either when switched off)."""
    ctx, settings = runtime.context.ctx, runtime.context.ctx.config.describe
    vocabulary = Vocabulary.of(ctx.environment)
    path = ctx.config.environment.rules
    procedures, assertions = settings.programs(ctx.llms["policies"].spec.provider, rules_file=path is not None)
    rules = Reviewed()
    if path is not None and (path.is_file() or not assertions):  # a file to propose may not exist yet
        rules = reviewed(read_rules(path), ctx.environment, folder=path.parent)
    compiled = batches(state["catalog"], settings.assertion_batch) if assertions and vocabulary.tools else []
    flows = state["catalog"].flows if procedures else []
    runtime.context.programs.set_total(len(flows) + len(compiled))
    return {"vocabulary": vocabulary, "batches": compiled, "procedure_flows": flows, "rules": rules}


def route_programs(state: State) -> str | list[Send]:
    """One procedure call per flow and one assertion call per batch, side by side (none when both are off)."""
    common = {"reading": state["reading"], "catalog": state["catalog"], "vocabulary": state["vocabulary"]}
    sends = [Send("procedure", ProcedureTask(**common, flow=flow)) for flow in state["procedure_flows"]]
    sends += [Send("compile", CompileTask(**common, batch=batch)) for batch in state["batches"]]
    return sends or "programs"


async def read_procedure(task: ProcedureTask, runtime: DescribeRuntime) -> Update:
    """One flow's procedure; a failed call leaves the flow without one, noted."""
    flow = task["flow"]
    try:
        procedure, notes = await flow_procedure(runtime.context.ctx.llms["policies"], task["reading"],
                                                task["catalog"], flow, task["vocabulary"])
    except LLMError as error:
        runtime.context.programs.advance(error=True)
        return {"procedures": [ProcedureResult(flow.id, None, [f"{flow.id}: its procedure was not read: {error}"])]}
    runtime.context.programs.advance()
    return {"procedures": [ProcedureResult(flow.id, procedure, notes)]}


async def compile_batch(task: CompileTask, runtime: DescribeRuntime) -> Update:
    """One batch of policies compiled into assertions; a failed call leaves them without any, noted."""
    batch = task["batch"]
    try:
        assertions, notes = await compiled_batch(runtime.context.ctx.llms["policies"], task["reading"],
                                                 task["catalog"], batch, task["vocabulary"])
    except LLMError as error:
        runtime.context.programs.advance(error=True)
        return {"compiled": [BatchResult(batch, [], [f"assertions: {', '.join(batch)} not compiled: {error}"])]}
    runtime.context.programs.advance()
    return {"compiled": [BatchResult(batch, assertions, notes)]}


def programs(state: State, runtime: DescribeRuntime) -> Update:
    """The procedures, assertions and rules put into the catalog; policies.json is written here. What was compiled
    is also written as a proposed rules file, beside the reviewed one (which the run then uses instead) or in the
    run folder; extracted policies, as the policy list the config names, if it is not written yet."""
    ctx, compiled = runtime.context.ctx, state.get("compiled", [])
    path, rules = ctx.config.environment.rules, state["rules"]
    used = compiled if path is None else [BatchResult(result.batch, [], result.notes) for result in compiled]
    catalog = with_programs(state["catalog"], state.get("procedures", []), used,
                            in_force(rules.held, state["catalog"], ctx.environment.policy), rules.refused)
    if compiled:
        assertions = [assertion for result in compiled for assertion in result.assertions]
        target = ctx.folder.proposed_rules.path if path is None else proposed_path(path)
        written = propose(assertions, catalog, ctx.environment, target=target, reviewed_file=path)
        if written.rules.rules:
            log.warning("describe: %d compiled rules proposed in %s; review them there", len(written.rules.rules),
                        written.proposed)
    ctx.folder.policies.save(catalog)
    if "listed" not in state:
        propose_list(ctx, catalog)
    return {"catalog": catalog}


# ── graph ───────────────────────────────────────────────────────────────────────────────────


def prepare_scoring(state: State, runtime: DescribeRuntime) -> Update:
    """The blocks of policies to score, one call each (none when the weights come from the flows)."""
    ids = [policy.id for policy in state["catalog"].policies]
    settings = runtime.context.ctx.config.describe
    scored = settings.graph_weights == "llm"
    blocks = scoring_blocks(ids, settings.edge_block_size, sides=settings.pair_scores) if scored else []
    runtime.context.scoring.set_total(len(blocks))
    return {"blocks": blocks}


def route_scoring(state: State) -> str | list[Send]:
    """One scoring call per block, in parallel (none when there is a single policy)."""
    if not state["blocks"]:
        return "assemble"
    return [Send("score", BlockTask(catalog=state["catalog"], block=block)) for block in state["blocks"]]


async def score_block(task: BlockTask, runtime: DescribeRuntime) -> Update:
    """One call: each policy of the block scored against the others; a failure is kept as data."""
    ctx, sides = runtime.context.ctx, runtime.context.ctx.config.describe.pair_scores
    scores = await scored_block(ctx.llms["graph"], task["catalog"], task["block"], sides=sides)
    runtime.context.scoring.advance(error=scores.error is not None)
    return {"scores": [scores]}


def assemble(state: State, runtime: DescribeRuntime) -> Update:
    """The weighted graph from every call's scores (or from the flows); graph.json is written here."""
    ctx = runtime.context.ctx
    graph = weighted_graph(state["catalog"], state["blocks"], state.get("scores", []), ctx.config.describe)
    ctx.folder.graph.save(graph)
    return {"graph": graph}


# ── scenarios ───────────────────────────────────────────────────────────────────────────────


async def traffic(state: State, runtime: DescribeRuntime) -> Update:
    """With `describe.weights_from: transcripts`, the graph the scenarios are sampled from leans towards what
    production exercises and breaks, by the verdicts on its conversations (made now if need be; the production
    stage then finds them made). graph.json keeps the policy graph as scored."""
    ctx = runtime.context.ctx
    if ctx.config.describe.weights_from != "transcripts":
        return {}
    return {"graph": Traffic.of(await production_verdicts(ctx)).shaped(state["graph"])}


def plan(state: State, runtime: DescribeRuntime) -> Update:
    """The source's plan of the scenarios (what it notes in policies.json), and those to write now."""
    deps = runtime.context
    planned, catalog = deps.source.planned(state["catalog"], state["graph"])
    if catalog is not state["catalog"]:
        deps.ctx.folder.policies.save(catalog)
    records = {record.id: record for record in deps.items.artifact.load()}
    todo = deps.source.unwritten(planned, records, first=True)
    if todo:
        deps.items.expect(todo, done=len(planned) - todo)
    return {"catalog": catalog, "plan": planned, "records": records,
            "pending": deps.source.pending(planned, records, first=True), "wanted": deps.source.wanted(planned)}


def route_scenarios(state: State) -> str | list[Send]:
    """One scenario per pending one, in parallel; done when none is pending."""
    if not state["pending"]:
        return "finish"
    return [Send("scenario", ScenarioTask(catalog=state["catalog"], job=job)) for job in state["pending"]]


async def write_scenario(task: ScenarioTask, runtime: DescribeRuntime) -> Update:
    """One scenario, recorded whether it is written or fails."""
    deps, job = runtime.context, task["job"]
    record = await deps.items.run(lambda: deps.source.written(job, task["catalog"]),
                                  failed=lambda reason: deps.source.failed(job, reason))
    return {"records": {record.id: record}}


def next_round(state: State, runtime: DescribeRuntime) -> Update:
    """The scenarios that may be written now: a failed slot's next candidate, a repeated set's once the
    scenarios planned before it are settled."""
    deps = runtime.context
    left = deps.source.unwritten(state["plan"], state["records"], first=False)
    deps.items.expect(deps.items.progress.done + left)  # the attempts made, and one for each scenario still to write
    return {"pending": deps.source.pending(state["plan"], state["records"], first=False)}


def finish(state: State, runtime: DescribeRuntime) -> Update:
    """scenarios.jsonl rewritten in id order; a shortfall is reported."""
    written = runtime.context.items.artifact.finalize()
    requested = state["wanted"]
    valid = sum(1 for scenario in written if scenario.status == "ok")
    if valid < requested:
        log.warning("describe: %d of %d requested scenarios could be written (failures are in %s)",
                    valid, requested, RunFolder.scenarios.name)
    return {"scenarios": written}


# ── the stage ───────────────────────────────────────────────────────────────────────────────


def build_graph() -> CompiledStateGraph[State, DescribeDeps, State, State]:
    """The describe stage's state machine (the run is given as the runtime context, a `DescribeDeps`)."""
    graph = StateGraph(State, context_schema=DescribeDeps)
    graph.add_node("start", start)
    graph.add_node("listed", read_listed)
    graph.add_node("task", describe_task)
    graph.add_node("flows", extract_flows)
    graph.add_node("policies", extract_policies)
    graph.add_node("merge", merge_policies)
    graph.add_node("cover", cover_document)
    graph.add_node("checks", map_checks)
    graph.add_node("prepare_programs", prepare_programs)
    graph.add_node("procedure", read_procedure)
    graph.add_node("compile", compile_batch)
    graph.add_node("programs", programs)
    graph.add_node("prepare_scoring", prepare_scoring)
    graph.add_node("score", score_block)
    graph.add_node("assemble", assemble)
    graph.add_node("traffic", traffic)
    graph.add_node("plan", plan)
    graph.add_node("scenario", write_scenario)
    graph.add_node("next_round", next_round)
    graph.add_node("finish", finish)
    graph.add_edge(START, "start")
    graph.add_conditional_edges("start", route_start, ["listed", "task", "prepare_scoring", "traffic", END])
    graph.add_conditional_edges("listed", route_listed, ["checks", "prepare_programs"])
    graph.add_edge("task", "flows")
    graph.add_conditional_edges("flows", route_flows, ["policies"])
    graph.add_edge("policies", "merge")
    graph.add_edge("merge", "cover")
    graph.add_edge("cover", "checks")
    graph.add_edge("checks", "prepare_programs")
    graph.add_conditional_edges("prepare_programs", route_programs, ["procedure", "compile", "programs"])
    graph.add_edge("procedure", "programs")
    graph.add_edge("compile", "programs")
    graph.add_edge("programs", "prepare_scoring")
    graph.add_conditional_edges("prepare_scoring", route_scoring, ["score", "assemble"])
    graph.add_edge("score", "assemble")
    graph.add_conditional_edges("assemble", route_graph, ["traffic", END])
    graph.add_edge("traffic", "plan")
    graph.add_conditional_edges("plan", route_scenarios, ["scenario", "finish"])
    graph.add_edge("scenario", "next_round")
    graph.add_conditional_edges("next_round", route_scenarios, ["scenario", "finish"])
    graph.add_edge("finish", END)
    return graph.compile()


async def run(ctx: RunContext) -> Described:
    """Write policies.json, graph.json and scenarios.jsonl, resuming after what an earlier run completed, and
    return them."""
    return await _described(ctx, policies_only=False)


async def run_policies(ctx: RunContext) -> Described:
    """Write policies.json and graph.json (what a run that judges production alone needs), resuming after what an
    earlier run completed, and return them, with no scenario."""
    return await _described(ctx, policies_only=True)


async def _described(ctx: RunContext, *, policies_only: bool) -> Described:
    deps = DescribeDeps(ctx=ctx, source=scenario_source(ctx), extracting=ctx.progress.stage("policies", 0),
                        programs=ctx.progress.stage("programs", 0), scoring=ctx.progress.stage("graph", 0),
                        items=StageItems(ctx, stage="describe", artifact=ctx.folder.scenarios))
    # Each scenario round takes two steps and makes at least one attempt; the rest of the stage takes sixteen at
    # most (from start through traffic and plan to finish).
    limit = 18 + 2 * ctx.config.samples * ctx.config.describe.max_attempts
    final = await build_graph().ainvoke(
        # Loading the environment checks the whole domain before the first LLM call is spent on it.
        {"document": ctx.environment.policy, "policies_only": policies_only},
        context=deps,
        config={"max_concurrency": ctx.workers, "recursion_limit": limit, "run_name": "describe"},
    )
    return Described(catalog=final["catalog"], graph=final["graph"], scenarios=final.get("scenarios", []))
