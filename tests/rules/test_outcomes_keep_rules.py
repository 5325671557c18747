"""Rules win over a model's expected outcome: an outcome that breaks a rule of its event's policies goes back to the
model with the rule named, and is repaired or dropped; the rule stays in force (on the store, digit ids)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from intellagent.artifacts import Event, Policy, PolicyCatalog
from intellagent.artifacts.rules import RuleInForce
from intellagent.config import load_config
from intellagent.llm import ScriptedLLM
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.populate.test_expected_outcomes import SCENARIO, call, order_and_line, proposal, shown_rows, store_plan
from tests.rules.kinds import rule
from tests.store import environment as store_environment

PENDING_STAYS = rule("{id: pending-orders-stay, kind: forbidden, tool: cancel_order, when: [{argument: order_id, "
                     "table: store_orders, key: order_id, column: status, op: eq, value: pending}]}")


def catalog() -> PolicyCatalog:
    """The scenario's two policies, the first enforced by a rule that forbids cancelling a pending order."""
    policies = [Policy(id=pid, text=f"Rule {pid}.", flows=[], category="company_policy", challenge=2)
                for pid in ("P01", "P02")]
    return PolicyCatalog(task_description="A store.", flows=[], policies=policies,
                         rules=[RuleInForce(rule=PENDING_STAYS, policies=["P01"])],
                         checks={PENDING_STAYS.check: ["P01"]})


def populated(tmp_path: Path, mend: dict[str, Any] | None) -> tuple[Event, ScriptedLLM, RunFolder]:
    """The scenario populated on the store with a pending order, whose outcome the model proposes as its
    cancellation, then mends (or not) when sent back."""
    config = load_config({"name": "rules", "environment": store_environment(), "llm": "scripted", "seed": 7,
                          "workers": 1, "populate": {"lean": "yes"}}, base_dir=tmp_path)
    folder = RunFolder(tmp_path / "run")
    asyncio.run(execute(config, output=folder.root, stages=(), progress=False))
    folder.policies.save(catalog())
    folder.scenarios.append(SCENARIO)
    script = ScriptedLLM().on(schema="SymbolicPlan", reply=store_plan())
    script.on(schema="ExpectedOutcomeProposal", reply=lambda request: proposal(
        call("cancel_order", ("P01",), order_id=order_and_line(shown_rows(request))[0])))
    script.on(schema="MendedCall", reply=lambda request: {"call": None} if mend is None else {"call": mend | {
        "arguments": {"order_id": order_and_line(shown_rows(request))[0]}}})
    asyncio.run(execute(config, output=folder.root, stages=("populate",), script=script, progress=False))
    (event,) = folder.events.load()
    return event, script, folder


def test_a_write_a_rule_forbids_is_sent_back_with_the_rule_named_and_repaired(tmp_path: Path) -> None:
    event, script, folder = populated(tmp_path, mend={"tool": "get_order", "policies": ["P01"]})

    (sent_back,) = script.calls(schema="MendedCall")
    assert "it breaks a rule (rule pending-orders-stay)" in sent_back.text
    assert event.expected is not None and [c.tool for c in event.expected.calls] == ["get_order"]
    assert [held.rule.id for held in folder.policies.require().rules] == ["pending-orders-stay"]


def test_a_write_a_rule_forbids_that_is_not_mended_is_dropped_and_the_rule_stays(tmp_path: Path) -> None:
    event, _, folder = populated(tmp_path, mend=None)

    kept = [] if event.expected is None else [c.tool for c in event.expected.calls]
    reasons = (event.expected_error or "") + " ".join(event.expected.dropped if event.expected else [])
    assert "cancel_order" not in kept
    assert "rule pending-orders-stay" in reasons
    assert [held.rule.id for held in folder.policies.require().rules] == ["pending-orders-stay"]
