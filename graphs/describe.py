"""The describe stage: policy document → flows → policies → policy graph → samples → scenarios.

    start ─► task ─► flows ═► policies ─► merge ─► cover ─► checks       writes policies.json
      │                                     │
      ├─ policies.json exists ──────────► prepare_scoring ═► score ─► assemble   writes graph.json
      │                                                                  │
      └─ graph.json exists ───────────────────────────────────────────► plan
    plan ═► scenario ─► next_round ═► scenario … ─► finish                 writes scenarios.jsonl
    (═► fans out with Send: one task per flow, per block of policies, per scenario slot)

In τ-bench mode (`tau.data`) the scenarios are τ-bench's published tasks rather than sampled sets:
plan_tasks ═► task_scenario ─► finish, one call per task to name the policies it tests.

Each artifact is written as soon as it is complete, so a resumed run skips what is done: with
policies.json there is no extraction, with graph.json no scoring, and only the scenarios missing from
scenarios.jsonl (or failed, with a candidate left) are written."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict, TypeVar

import networkx as nx
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send
from pydantic import BaseModel

from intellagent import text_limits
from intellagent.artifacts import Flow, PolicyCatalog, Scenario
from intellagent.checks import every_check
from intellagent.context import RunContext, log
from intellagent.describe import Described
from intellagent.describe.check_map import by_category, check_map, check_map_schema, checks_text
from intellagent.describe.coverage import covering_schema, prompt_values, with_covering_rules, with_uncovered
from intellagent.describe.evidence import checked_policies
from intellagent.describe.extraction import (
    FlowsAnswer,
    PoliciesAnswer,
    PolicyAnswer,
    TaskAnswer,
    merge_duplicates,
    nothing_extracted,
    number_flows,
)
from intellagent.describe.passages import uncovered
from intellagent.describe.policy_graph import (
    BlockScores,
    assemble_graph,
    flows_graph,
    scores_schema,
    scoring_blocks,
    scoring_prompt_values,
)
from intellagent.describe.sampling import Slot, challenge_levels, plan_samples
from intellagent.describe.scenarios import (
    AnotherScenario,
    RefineAnswer,
    ScenarioAnswer,
    earlier_note,
    earlier_scenarios,
    pending_attempts,
    rule_list,
    scenario_id,
    unwritten,
)
from intellagent.describe.tasks import (
    MAX_POLICIES,
    gold_text,
    pending_tasks,
    published_tasks,
    task_policies_schema,
    task_scenario,
)
from intellagent.errors import RunAborted
from intellagent.files import JsonlFile
from intellagent.llm import LLM, LLMError
from intellagent.progress import StageProgress
from intellagent.prompt_files import render
from intellagent.run_folder import RunFolder
from intellagent.stage import StageItems
from intellagent.tau.tasks import TauTask, task_id

A = TypeVar("A", bound=BaseModel)


@dataclass
class Describe:
    """What the nodes share besides the state: the run, the scenario file, the progress bars."""

    ctx: RunContext
    scenarios: JsonlFile[Scenario]
    items: StageItems[Scenario] | None = None
    bars: dict[str, StageProgress] = field(default_factory=dict)


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Reducer of keyed results from parallel tasks: each task adds or replaces its own keys."""
    return {**left, **right}


class State(TypedDict, total=False):
    document: str
    task_description: str
    flows: list[Flow]
    extracted: Annotated[dict[str, list[PolicyAnswer]], _merge]  # flow id → its policies
    failures: Annotated[dict[str, str], _merge]  # flow id → why its extraction failed
    catalog: PolicyCatalog
    blocks: list[tuple[str, ...]]  # policies scored together, one call per block
    scores: Annotated[list[BlockScores], operator.add]
    graph: nx.Graph
    slots: list[Slot]
    records: Annotated[dict[str, Scenario], _merge]  # scenario id → its latest record
    pending: list[tuple[Slot, int]]  # (slot, attempt index) to write in this round
    tasks: list[TauTask]  # τ-bench mode: the published tasks with no scenario yet
    wanted: int  # the scenarios the run asks for: samples, or the tasks played
    scenarios: list[Scenario]  # every scenario of the run, in id order, once written


class FlowTask(TypedDict):
    document: str
    flow: Flow


class BlockTask(TypedDict):
    catalog: PolicyCatalog
    block: tuple[str, ...]


class ScenarioTask(TypedDict):
    document: str
    catalog: PolicyCatalog
    slot: Slot
    attempt: int
    earlier: list[str]  # the descriptions of the scenarios written before it for the same policy set


class PublishedTask(TypedDict):
    catalog: PolicyCatalog
    schema: type[BaseModel]
    task: TauTask


DescribeRuntime = Runtime[Describe]


# ── policies ────────────────────────────────────────────────────────────────────────────────


def start(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """Pick up the artifacts an earlier run completed."""
    folder = runtime.context.ctx.folder
    catalog = folder.policies.load()
    if catalog is None:
        return {}
    graph = folder.graph.load()
    return {"catalog": catalog} if graph is None else {"catalog": catalog, "graph": graph}


def route_start(state: State, runtime: DescribeRuntime) -> str:
    """Resume after the last artifact written: extraction, scoring or the scenarios."""
    if "catalog" not in state:
        return "task"
    return "prepare_scoring" if "graph" not in state else route_source(state, runtime)


async def describe_task(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """The chatbot's task and domain, in a few sentences."""
    messages = render("describe/task", policy=state["document"])
    answer = await _essential(runtime, "policies", messages, TaskAnswer, step="describe/task")
    return {"task_description": text_limits.trimmed(answer.task_description, text_limits.TASK)}


async def extract_flows(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """The families of conversation the document covers."""
    messages = render("describe/flows", policy=state["document"])
    answer = await _essential(runtime, "policies", messages, FlowsAnswer, step="describe/flows")
    flows = number_flows(answer)
    runtime.context.bars["policies"] = runtime.context.ctx.progress.stage("policies", len(flows))
    return {"flows": flows}


def route_flows(state: State) -> list[Send]:
    """One policy extraction per flow, in parallel."""
    return [Send("policies", FlowTask(document=state["document"], flow=flow)) for flow in state["flows"]]


async def extract_policies(task: FlowTask, runtime: DescribeRuntime) -> dict[str, Any]:
    """The policies of one flow; a failure is recorded against the flow and the others go on."""
    flow = task["flow"]
    label = f"{flow.name}: {flow.description}" if flow.description else flow.name
    messages = render("describe/policies", policy=task["document"], flow=label)
    bar = runtime.context.bars["policies"]
    try:
        answer = await runtime.context.ctx.llms["policies"].answer(messages, PoliciesAnswer, step="describe/policies")
    except LLMError as error:
        bar.advance(error=True)
        return {"failures": {flow.id: str(error)}}
    bar.advance()
    return {"extracted": {flow.id: answer.policies}}


def merge_policies(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """One policy per rule across flows, categories and challenge scores checked against their text."""
    flows, extracted, failures = state["flows"], state.get("extracted", {}), state.get("failures", {})
    policies = merge_duplicates(
        [(flow.id, extracted[flow.id]) for flow in flows if flow.id in extracted],
        similarity=runtime.context.ctx.config.describe.merge_similarity,
    )
    if not policies:
        raise nothing_extracted(runtime.context.ctx.config.environment.policy, flows, failures)
    errors = [f"{flow.id} ({flow.name}): {failures[flow.id]}" for flow in flows if flow.id in failures]
    policies, corrected = checked_policies(policies)
    for correction in corrected:
        log.info("describe: %s", correction)
    catalog = PolicyCatalog(
        task_description=state["task_description"], flows=flows, policies=policies, errors=errors, corrected=corrected
    )
    return {"catalog": catalog}


async def cover_document(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """The passages of the document no policy came from, read again in one call aimed at them; those still
    uncovered are listed in the catalog. A failed call is noted, and the passages are listed as they are."""
    ctx, catalog, document = runtime.context.ctx, state["catalog"], state["document"]
    spans = uncovered(document, [policy.text for policy in catalog.policies])
    if spans:
        messages = render("describe/uncovered", **prompt_values(document, catalog, spans))
        try:
            answer = await ctx.llms["policies"].answer(messages, covering_schema(catalog, len(spans)),
                                                       step="describe/uncovered")
        except LLMError as error:
            catalog.errors.append(f"coverage: the passages no policy came from were not read again: {error}")
        else:
            catalog = with_covering_rules(catalog, answer, document, spans,
                                          similarity=ctx.config.describe.merge_similarity)
    return {"catalog": with_uncovered(catalog, document)}


async def map_checks(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """Which policies each deterministic check enforces (one call); policies.json is written here.

    A failed call, or a mapping not believed, leaves a check unmapped, noted in the catalog's errors:
    its findings are then reported without a policy, and the judge alone rules on every policy. A check
    that declares a category is mapped within it only, and when left unmapped, to that category's policies.
    """
    ctx, catalog = runtime.context.ctx, state["catalog"]
    checks = every_check(ctx.environment)
    messages = render("describe/checks", policies=catalog.listing(), checks=checks_text(checks))
    try:
        answer = await ctx.llms["policies"].answer(messages, check_map_schema(catalog, checks), step="describe/checks")
    except LLMError as error:
        catalog.errors.append(f"checks: not mapped to policies: {error}")
    else:
        catalog.checks, notes = check_map(answer, catalog, checks)
        catalog.errors += notes
    fallback, notes = by_category(checks, catalog)
    catalog.checks.update(fallback)
    catalog.errors += notes
    catalog.every_dialog = [check.name for check in checks if check.every_dialog and check.name in catalog.checks]
    ctx.folder.policies.save(catalog)
    return {"catalog": catalog}


# ── graph ───────────────────────────────────────────────────────────────────────────────────


def prepare_scoring(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """The blocks of policies to score, one call each (none when the weights come from the flows)."""
    ids = [policy.id for policy in state["catalog"].policies]
    settings = runtime.context.ctx.config.describe
    scored = settings.graph_weights == "llm"
    blocks = scoring_blocks(ids, settings.edge_block_size, sides=settings.pair_scores) if scored else []
    runtime.context.bars["graph"] = runtime.context.ctx.progress.stage("graph", len(blocks))
    return {"blocks": blocks}


def route_scoring(state: State) -> str | list[Send]:
    """One scoring call per block, in parallel (none when there is a single policy)."""
    if not state["blocks"]:
        return "assemble"
    return [Send("score", BlockTask(catalog=state["catalog"], block=block)) for block in state["blocks"]]


async def score_block(task: BlockTask, runtime: DescribeRuntime) -> dict[str, Any]:
    """One call: each policy of the block scored against the others; a failure is kept as data."""
    catalog, block = task["catalog"], task["block"]
    sides = runtime.context.ctx.config.describe.pair_scores
    schema = scores_schema(catalog, block, sides=sides)
    messages = render("describe/edges", **scoring_prompt_values(catalog, block, sides=sides))
    bar = runtime.context.bars["graph"]
    try:
        answer = await runtime.context.ctx.llms["graph"].answer(messages, schema, step="describe/graph")
    except LLMError as error:
        bar.advance(error=True)
        return {"scores": [BlockScores(block=block, error=str(error))]}
    bar.advance()
    return {"scores": [BlockScores(block=block, scores=answer.model_dump())]}


def assemble(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """The weighted graph from every call's scores (or from the flows); graph.json is written here."""
    settings = runtime.context.ctx.config.describe
    if settings.graph_weights == "flows":
        graph = flows_graph(state["catalog"])
        runtime.context.ctx.folder.graph.save(graph)
        return {"graph": graph}
    order = {block: number for number, block in enumerate(state["blocks"])}
    results = sorted(state.get("scores", []), key=lambda result: order[result.block])
    graph = assemble_graph(state["catalog"], results, block_size=settings.edge_block_size, sides=settings.pair_scores)
    runtime.context.ctx.folder.graph.save(graph)
    if graph.graph["fallback_pairs"]:
        log.warning("describe: %d policy pairs got the fallback weight (see graph.json)",
                    len(graph.graph["fallback_pairs"]))
    return {"graph": graph}


# ── scenarios ───────────────────────────────────────────────────────────────────────────────


def route_source(state: State, runtime: DescribeRuntime) -> str:
    """Scenarios from sampled policy sets, or from τ-bench's published tasks (`tau.data`)."""
    return "plan_tasks" if runtime.context.ctx.config.tau.active else "plan"


def plan(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """The levels to sample at (noted in policies.json), the sampling plan, and the scenarios to write now."""
    context, config = runtime.context, runtime.context.ctx.config
    catalog, graph = state["catalog"], state["graph"]
    levels = challenge_levels(graph, config.describe.challenge_range)
    if levels.narrowed:
        log.warning("describe: challenge levels %s of describe.challenge_range [%d, %d] are sampled: %s",
                    ", ".join(map(str, levels.levels)), *levels.configured, levels.narrowed)
    if catalog.challenge_levels != levels:
        catalog = catalog.model_copy(update={"challenge_levels": levels})
        context.ctx.folder.policies.save(catalog)
    slots = plan_samples(graph, count=config.samples, levels=levels.levels, attempts=config.describe.max_attempts,
                         seed=config.seed)
    records = {record.id: record for record in context.scenarios.load()}
    todo = unwritten(slots, records)
    if todo:
        context.items = StageItems(context.ctx, stage="describe", artifact=context.scenarios, total=len(todo),
                                   done=len(slots) - len(todo))
    return {"catalog": catalog, "slots": slots, "records": records, "pending": pending_attempts(slots, records),
            "wanted": config.samples}


def route_scenarios(state: State) -> str | list[Send]:
    """One scenario per pending slot, in parallel; done when no slot is pending."""
    if not state["pending"]:
        return "finish"
    return [
        Send("scenario", ScenarioTask(document=state["document"], catalog=state["catalog"], slot=slot, attempt=attempt,
                                      earlier=earlier_scenarios(slot.candidates[attempt], state["records"])))
        for slot, attempt in state["pending"]
    ]


async def write_scenario(task: ScenarioTask, runtime: DescribeRuntime) -> dict[str, Any]:
    """One attempt at a slot's scenario, recorded whether it succeeds or fails."""
    slot, catalog, earlier = task["slot"], task["catalog"], task["earlier"]
    sample = slot.candidates[task["attempt"]]
    base: dict[str, Any] = {"id": scenario_id(slot), "policies": list(sample.policies), "target_challenge": slot.target,
                            "challenge": sample.challenge, "repeat": sample.repeat}

    async def work() -> Scenario:
        policies = [catalog.policy(policy_id) for policy_id in sample.policies]
        llm = runtime.context.ctx.llms["scenarios"]
        messages = render("describe/scenario", task_description=catalog.task_description, policies=rule_list(policies),
                          earlier=earlier_note(sample, earlier))
        answer = await llm.answer(messages, AnotherScenario(earlier) if earlier else ScenarioAnswer,
                                  step="describe/scenario")
        scenario = Scenario(
            **base,
            description=text_limits.trimmed(answer.description, text_limits.SCENARIO),
            expected_behaviour=text_limits.trimmed(answer.expected_behaviour, text_limits.SCENARIO),
        )
        if runtime.context.ctx.config.describe.refine:
            scenario = await _refine(llm, task["document"], scenario)
        return scenario

    items = runtime.context.items
    assert items is not None  # created by `plan` whenever a scenario is pending
    record = await items.run(work, failed=lambda reason: Scenario(**base, status="error", error=reason))
    return {"records": {record.id: record}}


async def _refine(llm: LLM, document: str, scenario: Scenario) -> Scenario:
    """The scenario with its expected behaviour checked against the whole document, corrected if wrong."""
    messages = render(
        "describe/refine",
        policy=document,
        description=scenario.description,
        expected_behaviour=scenario.expected_behaviour,
    )
    answer = await llm.answer(messages, RefineAnswer, step="describe/refine")
    if answer.correct:
        return scenario
    corrected = text_limits.trimmed(answer.corrected, text_limits.SCENARIO)
    return scenario.model_copy(update={"expected_behaviour": corrected, "refined": True})


def plan_tasks(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """τ-bench mode: the published tasks the run plays, and those with no scenario yet."""
    context = runtime.context
    tasks = published_tasks(context.ctx.config.tau)
    pending = pending_tasks(tasks, {record.id: record for record in context.scenarios.load()})
    if pending:
        context.items = StageItems(context.ctx, stage="describe", artifact=context.scenarios, total=len(pending),
                                   done=len(tasks) - len(pending))
    return {"tasks": pending, "wanted": len(tasks)}


def route_tasks(state: State) -> str | list[Send]:
    """One scenario per published task still to write, in parallel."""
    if not state["tasks"]:
        return "finish"
    schema = task_policies_schema(state["catalog"])  # one answer model for every task: classes are not freed
    return [Send("task_scenario", PublishedTask(catalog=state["catalog"], schema=schema, task=task))
            for task in state["tasks"]]


async def write_task_scenario(task: PublishedTask, runtime: DescribeRuntime) -> dict[str, Any]:
    """A published task as a scenario, with the policies it tests; if none can be named, with every policy,
    so that the judge still reads the dialog against the whole policy (a τ-bench grade needs no policy)."""
    catalog, published = task["catalog"], task["task"]

    async def work() -> Scenario:
        messages = render("describe/task_policies", policies=catalog.listing(), instruction=published.instruction,
                          gold=gold_text(published), most=str(MAX_POLICIES))
        try:
            answer = await runtime.context.ctx.llms["scenarios"].answer(messages, task["schema"],
                                                                          step="describe/task_policies")
            named, why = answer.policies, "the model named none"  # type: ignore[attr-defined]
        except LLMError as error:
            named, why = [], f"naming them failed ({error})"
        if not named:
            log.warning("describe: %s is judged on every policy: %s", task_id(published), why)
        return task_scenario(published, catalog, named or [policy.id for policy in catalog.policies])

    def failed(reason: str) -> Scenario:
        return Scenario(id=task_id(published), status="error", error=reason, policies=[], target_challenge=0,
                        challenge=0, task=published)

    items = runtime.context.items
    assert items is not None  # created by `plan_tasks` whenever a task is pending
    record = await items.run(work, failed=failed)
    return {"records": {record.id: record}}


def next_round(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """The attempts that can be made now: a failed slot's next candidate, a repeat whose earlier scenarios are
    settled."""
    items = runtime.context.items
    if items is not None:  # the attempts made, and one for each slot still to write
        items.total = items.progress.done + len(unwritten(state["slots"], state["records"]))
        items.progress.set_total(items.total)
    return {"pending": pending_attempts(state["slots"], state["records"])}


def finish(state: State, runtime: DescribeRuntime) -> dict[str, Any]:
    """scenarios.jsonl rewritten in id order; a shortfall is reported."""
    written = runtime.context.scenarios.finalize()
    requested = state["wanted"]
    valid = sum(1 for scenario in written if scenario.status == "ok")
    if valid < requested:
        log.warning("describe: %d of %d requested scenarios could be written (failures are in %s)",
                    valid, requested, RunFolder.scenarios.name)
    return {"scenarios": written}


# ── the stage ───────────────────────────────────────────────────────────────────────────────


async def _essential(runtime: DescribeRuntime, role: str, messages: list[Any], schema: type[A], *, step: str) -> A:
    """An answer the stage cannot do without: its failure stops the stage (artifacts so far stay)."""
    try:
        return await runtime.context.ctx.llms[role].answer(messages, schema, step=step)
    except LLMError as error:
        raise RunAborted(f"describe: {step} failed, so nothing can be extracted: {error}") from error


def build_graph() -> CompiledStateGraph[State, Describe, State, State]:
    """The describe stage's state machine (the run is given as the runtime context, a `Describe`)."""
    graph = StateGraph(State, context_schema=Describe)
    graph.add_node("start", start)
    graph.add_node("task", describe_task)
    graph.add_node("flows", extract_flows)
    graph.add_node("policies", extract_policies)
    graph.add_node("merge", merge_policies)
    graph.add_node("cover", cover_document)
    graph.add_node("checks", map_checks)
    graph.add_node("prepare_scoring", prepare_scoring)
    graph.add_node("score", score_block)
    graph.add_node("assemble", assemble)
    graph.add_node("plan", plan)
    graph.add_node("scenario", write_scenario)
    graph.add_node("next_round", next_round)
    graph.add_node("plan_tasks", plan_tasks)
    graph.add_node("task_scenario", write_task_scenario)
    graph.add_node("finish", finish)
    graph.add_edge(START, "start")
    graph.add_conditional_edges("start", route_start, ["task", "prepare_scoring", "plan", "plan_tasks"])
    graph.add_edge("task", "flows")
    graph.add_conditional_edges("flows", route_flows, ["policies"])
    graph.add_edge("policies", "merge")
    graph.add_edge("merge", "cover")
    graph.add_edge("cover", "checks")
    graph.add_edge("checks", "prepare_scoring")
    graph.add_conditional_edges("prepare_scoring", route_scoring, ["score", "assemble"])
    graph.add_edge("score", "assemble")
    graph.add_conditional_edges("assemble", route_source, ["plan", "plan_tasks"])
    graph.add_conditional_edges("plan_tasks", route_tasks, ["task_scenario", "finish"])
    graph.add_edge("task_scenario", "finish")
    graph.add_conditional_edges("plan", route_scenarios, ["scenario", "finish"])
    graph.add_edge("scenario", "next_round")
    graph.add_conditional_edges("next_round", route_scenarios, ["scenario", "finish"])
    graph.add_edge("finish", END)
    return graph.compile()


async def run(ctx: RunContext) -> Described:
    """Write policies.json, graph.json and scenarios.jsonl, resuming after what an earlier run completed, and
    return them."""
    context = Describe(ctx=ctx, scenarios=ctx.folder.scenarios)
    # Each scenario round takes two steps and makes at least one attempt; the rest of the stage takes fewer
    # than a dozen.
    limit = 16 + 2 * ctx.config.samples * ctx.config.describe.max_attempts
    final = await build_graph().ainvoke(
        # Loading the environment checks the whole domain before the first LLM call is spent on it.
        {"document": ctx.environment.policy},
        context=context,
        config={"max_concurrency": ctx.config.workers, "recursion_limit": limit, "run_name": "describe"},
    )
    return Described(catalog=final["catalog"], graph=final["graph"], scenarios=final["scenarios"])
