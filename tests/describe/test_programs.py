"""Describe reads each flow's procedure (one call per flow) and compiles the policies into assertions (one call per
batch); a failed call costs only its own flow or batch, noted; both can be switched off."""

from __future__ import annotations

from intellagent.config import DescribeConfig
from intellagent.llm import HTTPError
from tests.describe.conftest import catalog_of, configure, rules, run_describe, script_document

FIVE = "A reservation holds five passengers at most."
BOUND = {"assertions": [{"kind": "bound", "policy": "P01", "tool": "book_reservation", "measure": "length",
                         "argument": "book_reservation.passengers", "op": "le", "value": 5, "rationale": FIVE}]}
PROCEDURE = {"steps": [{"kind": "ask", "text": "the user id"}, {"kind": "call", "tool": "book_reservation"}],
             "edges": [{"before": 1, "after": 2}]}
BOOKING = {"text": FIVE, "category": "company_policy", "challenge": 2}


def test_one_procedure_call_per_flow_and_one_assertion_call_per_batch(scripted_config, script, folder) -> None:
    script_document(script, flows={"Orders": rules(3), "Refunds": rules(4, start=4)}, procedure=PROCEDURE)
    run_describe(configure(scripted_config, samples=1, assertion_batch=3), folder, script)
    assert len(script.calls(schema="SopAnswer")) == 2
    assert len(script.calls(schema="AssertionsAnswer")) == 3  # 7 policies, 3 a batch
    assert [len(flow.sop.steps) if flow.sop else 0 for flow in catalog_of(folder).flows] == [2, 2]


def test_a_compiled_assertion_is_kept_and_mapped_to_its_policy_as_a_check(scripted_config, script, folder) -> None:
    script_document(script, flows={"Booking": [BOOKING]}, assertions=BOUND)
    run_describe(configure(scripted_config, samples=1), folder, script)
    catalog = catalog_of(folder)
    assert [(a.id, a.kind) for a in catalog.assertions] == [("P01.1", "bound")]
    assert catalog.checks["compiled P01.1"] == ["P01"]


def test_a_failed_procedure_call_leaves_that_flow_without_one_and_says_so(scripted_config, script, folder) -> None:
    script.on(schema="SopAnswer", when=lambda r: "Refunds" in r.text, reply=HTTPError(500))
    script_document(script, flows={"Orders": rules(1), "Refunds": rules(1, start=2)}, procedure=PROCEDURE)
    run_describe(configure(scripted_config, samples=1, llm_retries=0), folder, script)
    catalog = catalog_of(folder)
    assert [flow.sop is not None for flow in catalog.flows] == [True, False]
    assert any(error.startswith("F2: its procedure was not read") for error in catalog.errors)


def test_a_failed_assertion_call_leaves_its_batch_uncompiled_and_says_so(scripted_config, script, folder) -> None:
    script.on(schema="AssertionsAnswer", reply=HTTPError(500))
    script_document(script, flows={"Booking": [BOOKING]})
    run_describe(configure(scripted_config, samples=1, llm_retries=0), folder, script)
    catalog = catalog_of(folder)
    assert catalog.assertions == [] and any(e.startswith("assertions: P01 not compiled") for e in catalog.errors)
    assert len(catalog.policies) == 1 and (folder / "scenarios.jsonl").exists()


def test_switched_off_neither_is_asked_for(scripted_config, script, folder) -> None:
    script_document(script, flows={"Booking": [BOOKING]}, procedure=PROCEDURE, assertions=BOUND)
    run_describe(configure(scripted_config, samples=1, procedures=False, assertions=False), folder, script)
    assert script.calls(schema="SopAnswer") == [] and script.calls(schema="AssertionsAnswer") == []
    catalog = catalog_of(folder)
    assert catalog.assertions == [] and catalog.flows[0].sop is None


def test_left_at_auto_they_are_read_with_a_hosted_model_but_not_with_the_embedded_one() -> None:
    settings = DescribeConfig()
    assert settings.programs("openai") == (True, True)
    assert settings.programs("local") == (False, False)
    assert DescribeConfig(procedures=True, assertions=False).programs("local") == (True, False)
