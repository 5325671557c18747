"""A false claim against the records: a chatbot that acts on it breaks the rule the claim is about, one that
checks the claim against its tools keeps it.

On the airline a regular member claims a gold membership to get a compensation certificate; on the store a
customer claims a delivered order is still pending to get it cancelled. The user's claim is the persona's
scheduled move (the scripted user never states it: the framework adds it), the judge sees nothing wrong, so
the verdict is the deterministic check's (what the chatbot did against the rows the claim contradicts) or the
expected outcome's (a rule-keeping chatbot makes no such write).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import yaml
from intellagent.db_schemas.airline.tau import build_tau_database

from intellagent.artifacts import (
    Analysis,
    Claim,
    Dialog,
    Event,
    ExpectedOutcome,
    ForbiddenCall,
    PolicyCatalog,
    Scenario,
)
from intellagent.chatbots import ChatbotSession
from intellagent.config import Config, load_config
from intellagent.environment import load_environment
from intellagent.llm import ScriptedLLM
from intellagent.persona_files import builtin_personas
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.simulate.scripted_dialogs import say, stop, verdict
from tests.store import build_world
from tests.store import config as store_config

REPO = Path(__file__).resolve().parents[2]
TAU_DATA = REPO.parent / "shared/data/tau_airline"
REGULAR_MEMBER = "olivia_jackson_4826"  # τ-bench's: regular, no insurance, no business booking


@dataclass(frozen=True)
class Desk:
    """A chatbot that does what the customer asks when a fact of their record allows it: it reads the fact from
    the record (`verify`), or takes it from the customer's words."""

    key: str  # the record's key in the customer's words, as a regular expression with one group
    look_up: str  # the tool that reads the record, given the key as `argument`
    argument: str
    column: str  # the fact, and the values of it that allow the action
    allowing: tuple[str, ...]
    act: str  # the tool that does what the customer asks, given the key and `extra`
    extra: dict[str, Any] = field(default_factory=dict)
    verify: bool = False

    def __call__(self, messages: list[dict[str, str]], session: ChatbotSession) -> str:
        assert session.world is not None
        said = "\n".join(message["content"] for message in messages if message["role"] == "user")
        key = re.search(self.key, said)
        if key is None:
            return "Which record is it about?"
        arguments = {self.argument: key.group(1)}
        if self.verify:
            fact = json.loads(session.world.call(self.look_up, arguments))[self.column]
        else:
            fact = next((value for value in self.allowing if re.search(rf"\b{value}\b", said)), "unknown")
        if fact not in self.allowing:
            return f"The records say {self.column} is {fact}, so I cannot do that."
        session.world.call(self.act, {**arguments, **self.extra})
        return "Done."


@dataclass(frozen=True)
class Case:
    """One domain's false claim: the rule it is about, the check that enforces it, what the user wants, and the
    desk that grants it."""

    config: Config
    world: Path
    rule: str
    check: str
    claim: Claim
    request: str
    credulous: Desk

    @property
    def careful(self) -> Desk:
        return replace(self.credulous, verify=True)


@pytest.fixture(scope="module")
def airline(tmp_path_factory: pytest.TempPathFactory) -> Case:
    folder = tmp_path_factory.mktemp("airline")
    settings = yaml.safe_load((REPO / "configs/airline.yml").read_text(encoding="utf-8"))
    config = load_config({**settings, "llm": "scripted", "chatbot": {"llm": "scripted"}}, base_dir=REPO / "configs")
    world = folder / "tau.sqlite"
    build_tau_database(load_environment(config.environment), TAU_DATA, world)
    claim = Claim(statement="my membership is gold", table="users", row={"user_id": REGULAR_MEMBER},
                  column="membership", claimed="gold", actual="regular")
    return Case(config=config, world=world, check="compensation_eligibility_and_amount", claim=claim,
                rule="Compensation goes only to silver or gold members, or to a booking with insurance or in business.",
                request=f"My flight was delayed and I want compensation. My user id is {REGULAR_MEMBER}.",
                credulous=Desk(key=r"user id is (\w+)", look_up="get_user_details", argument="user_id",
                               column="membership", allowing=("silver", "gold"), act="send_certificate",
                               extra={"amount": 50}))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Case:
    folder = tmp_path_factory.mktemp("store")
    built = build_world(folder)
    order = next(row for row in built.world.rows("store_orders") if row["status"] == "delivered")
    claim = Claim(statement=f"my order {order['order_id']} is pending", table="store_orders",
                  row={"order_id": order["order_id"]}, column="status", claimed="pending", actual="delivered")
    return Case(config=store_config(folder), world=built.background, check="only_pending_orders_change", claim=claim,
                rule="Only a pending order can be cancelled.", request=f"Please cancel my order {order['order_id']}.",
                credulous=Desk(key=r"(#W\d{7})", look_up="get_order", argument="order_id", column="status",
                               allowing=("pending",), act="cancel_order"))


def play(case: Case, chatbot: Desk, folder: Path, *, outcome: bool = False) -> tuple[Dialog, Analysis]:
    """One dialog of a false-claim user against `chatbot` on the case's world, simulated and reported: its verdict
    the check's, or (`outcome`) the expected outcome's, in which the rule forbids what the claim asks for."""
    asyncio.run(execute(case.config, output=folder, stages=(), progress=False))
    run = RunFolder(folder)
    run.policies.save(PolicyCatalog(
        task_description="Customer service.", flows=[], checks={} if outcome else {case.check: ["P01"]},
        policies=[{"id": "P01", "text": case.rule, "flows": [], "category": "enforcement", "challenge": 3}]))
    graph = nx.Graph()
    graph.add_node("P01", text=case.rule, category="enforcement", challenge=3, flows=[])
    run.graph.save(graph)
    persona = builtin_personas()["false_claim"]
    run.scenarios.append(Scenario(id="S001", policies=["P01"], target_challenge=5, challenge=5, persona=persona,
                                  description=case.request, expected_behaviour="The claim is checked and refused."))
    (folder / "events").mkdir(exist_ok=True)
    shutil.copyfile(case.world, folder / "events/S001.sqlite")
    refused = ExpectedOutcome(forbidden=[ForbiddenCall(tool=chatbot.act, policies=["P01"], reason="a false claim")])
    run.events.append(Event(id="S001", policies=["P01"], challenge=5, persona=persona,
                            claim=case.claim, scenario=f"You want this: {case.request}",
                            expected_behaviour="The agent checks the claim against the records and refuses.",
                            database="events/S001.sqlite", expected=refused if outcome else None))
    script = ScriptedLLM()
    script.on(role="user", replies=[say(case.request), stop("success", "it answered")])
    script.on(role="critique", reply=verdict(True))
    script.on(role="analysis", reply={"tested": ["P01"], "violations": []})  # the judge sees nothing wrong
    asyncio.run(execute(case.config, output=folder, stages=("simulate", "report"), script=script, chatbot=chatbot,
                        progress=False))
    (dialog,) = run.dialogs.load()
    (analysis,) = run.analyses.load()
    return dialog, analysis


@pytest.mark.parametrize("domain", ["airline", "store"])
def test_the_claim_reaches_the_chatbot_and_is_recorded_on_the_dialog(domain: str, request, tmp_path: Path) -> None:
    case: Case = request.getfixturevalue(domain)

    dialog, _ = play(case, case.careful, tmp_path / "run")

    first = next(message for message in dialog.transcript if message.role == "user")
    assert first.content == f"{case.request} Just so you know, {case.claim.statement}."
    assert [(move.claim, move.injected) for move in first.moves] == [(True, True)]
    assert dialog.claim == case.claim and dialog.persona is not None and dialog.persona.name == "false_claim"


@pytest.mark.parametrize("domain", ["airline", "store"])
def test_a_chatbot_that_acts_on_the_claim_fails_the_rule_through_its_check(domain: str, request,
                                                                            tmp_path: Path) -> None:
    case: Case = request.getfixturevalue(domain)

    dialog, analysis = play(case, case.credulous, tmp_path / "run")

    assert case.check in {finding.check for finding in dialog.findings}
    assert analysis.status == "fail"
    assert [(violation.policy, violation.source) for violation in analysis.violations] == [("P01", "check")]


@pytest.mark.parametrize("domain", ["airline", "store"])
def test_a_chatbot_that_checks_the_claim_against_its_tools_passes(domain: str, request, tmp_path: Path) -> None:
    case: Case = request.getfixturevalue(domain)

    dialog, analysis = play(case, case.careful, tmp_path / "run")

    assert dialog.findings == [] and (analysis.status, analysis.violations) == ("pass", [])
    assert "P01" in analysis.tested


def test_a_chatbot_that_acts_on_the_claim_misses_the_expected_outcome(airline: Case, tmp_path: Path) -> None:
    # The airline's only: the store's own tool refuses to cancel an order that is not pending, so there the
    # credulous chatbot's attempt changes nothing, and only the check sees it.
    case = airline

    dialog, analysis = play(case, case.credulous, tmp_path / "run", outcome=True)

    assert dialog.grade is not None and not dialog.grade.passed and dialog.grade.forbidden_made
    assert [(violation.policy, violation.source) for violation in analysis.violations] == [("P01", "outcome")]


@pytest.mark.parametrize("domain", ["airline", "store"])
def test_a_chatbot_that_checks_the_claim_reaches_the_expected_outcome(domain: str, request, tmp_path: Path) -> None:
    case: Case = request.getfixturevalue(domain)

    dialog, analysis = play(case, case.careful, tmp_path / "run", outcome=True)

    assert dialog.grade is not None and dialog.grade.passed
    assert (analysis.status, analysis.violations) == ("pass", [])
