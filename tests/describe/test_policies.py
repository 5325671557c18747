"""Task, flows and policies: parsed into policies.json, one policy per rule, failures recorded."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import catalog_of, configure, rules, run_describe, script_document

from intellagent.artifacts import CATEGORIES, Flow, Policy, PolicyCatalog
from intellagent.checks.builtin import BUILTIN
from intellagent.describe.check_map import asks_declared, mapped_checks
from intellagent.describe.evidence import evidenced
from intellagent.errors import RunAborted
from intellagent.llm import HTTPError, RoleModels, Usage
from intellagent.llm.cache import ResponseCache
from intellagent.llm.careless import careless_answers
from intellagent.prompt_files import render

CONFIRM = "Before changing a booking, list the details and wait for the user's explicit yes."
CONFIRM_AGAIN = "Before changing a booking, list the details and wait for the user's explicit 'yes'!"
BOOK_ID = "The agent must first obtain the user id, then ask for the trip type, origin and destination."
MODIFY_ID = "The agent must first obtain the user id and the reservation id."


def test_flows_policies_and_categories_are_written_to_policies_json(scripted_config, script, folder):
    script_document(script, flows={
        "Orders": [{"text": BOOK_ID, "category": "authentication", "challenge": 2}],
        "Refunds": [{"text": "Refunds go back to the original payment method within 7 days.",
                     "category": "payment", "challenge": 3}],
    })
    run_describe(configure(scripted_config, samples=1), folder, script)
    catalog = catalog_of(folder)
    assert catalog.task_description == "A shop assistant that handles orders and refunds."
    assert [(f.id, f.name, f.description) for f in catalog.flows] == [
        ("F1", "Orders", "The user wants Orders."), ("F2", "Refunds", "The user wants Refunds.")]
    assert [(p.id, p.flows, p.category, p.challenge) for p in catalog.policies] == [
        ("P01", ["F1"], "authentication", 2), ("P02", ["F2"], "payment", 3)]
    assert catalog.policies[0].text == BOOK_ID
    assert catalog.errors == []


def test_a_rule_found_under_two_flows_is_one_policy_listing_both(scripted_config, script, folder):
    script_document(script, flows={
        "Orders": [{"text": CONFIRM, "category": "user_consent", "challenge": 2}, *rules(1)],
        "Refunds": [*rules(1, start=2), {"text": CONFIRM_AGAIN, "category": "user_consent", "challenge": 3}],
    })
    run_describe(configure(scripted_config, samples=1), folder, script)
    policies = catalog_of(folder).policies
    assert [(p.id, p.flows) for p in policies] == [("P01", ["F1", "F2"]), ("P02", ["F1"]), ("P03", ["F2"])]
    assert (policies[0].text, policies[0].challenge) == (CONFIRM, 2)


def test_alike_rules_that_say_different_things_stay_apart(scripted_config, script, folder):
    script_document(script, flows={
        "Book": [{"text": BOOK_ID, "category": "authentication", "challenge": 2}],
        "Modify": [{"text": MODIFY_ID, "category": "authentication", "challenge": 2}],
    })
    run_describe(configure(scripted_config, samples=1), folder, script)
    assert [p.text for p in catalog_of(folder).policies] == [BOOK_ID, MODIFY_ID]


def test_alike_rules_with_other_amounts_stay_apart(scripted_config, script, folder):
    cancelled = "When the airline cancelled the flight, offer a certificate of 100 dollars per passenger."
    delayed = "When the airline delayed the flight, offer a certificate of 50 dollars per passenger."
    script_document(script, flows={
        "Cancel": [{"text": cancelled, "category": "payment", "challenge": 3}],
        "Delay": [{"text": delayed, "category": "payment", "challenge": 3}],
    })
    run_describe(configure(scripted_config, samples=1), folder, script)
    assert [p.text for p in catalog_of(folder).policies] == [cancelled, delayed]


def test_the_category_of_a_policy_is_constrained_to_the_fixed_list(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(2)})
    run_describe(configure(scripted_config, samples=1), folder, script)
    (request,) = script.calls(schema="PoliciesAnswer")
    schema = request.body["response_format"]["json_schema"]["schema"]
    category = schema["$defs"]["PolicyAnswer"]["properties"]["category"]
    assert tuple(category["enum"]) == CATEGORIES


def test_the_policies_prompt_explains_every_category_once():
    prompt = render("describe/policies", policy="", flow="")[-1].content
    listed = [line.split(":")[0].strip("- ") for line in prompt.splitlines() if line.startswith("  - ")]
    assert listed == list(CATEGORIES)


def test_a_flow_whose_extraction_fails_is_recorded_and_the_others_kept(scripted_config, script, folder):
    script.on(schema="PoliciesAnswer", when=lambda r: "Flow: Refunds:" in r.text, reply="not json")
    script_document(script, flows={"Orders": rules(2), "Refunds": rules(2, start=3)})
    run_describe(configure(scripted_config, samples=1), folder, script)
    catalog = catalog_of(folder)
    assert [p.flows for p in catalog.policies] == [["F1"], ["F1"]]
    (error,) = catalog.errors
    assert error.startswith("F2 (Refunds):") and "PoliciesAnswer" in error
    assert len(script.calls(schema="PoliciesAnswer")) == 1 + (scripted_config.parse_retries + 1)


def test_a_failing_flows_call_stops_the_stage_before_policies_json(scripted_config, script, folder):
    script.on(schema="FlowsAnswer", reply=HTTPError(500))
    script_document(script, flows={"Orders": rules(2)})
    with pytest.raises(RunAborted, match="describe/flows"):
        run_describe(configure(scripted_config, samples=1, llm_retries=0), folder, script)
    assert not (folder / "policies.json").exists()


def test_every_prompt_with_the_document_opens_with_it_word_for_word():
    openings = {
        name: render(f"describe/{name}", policy="<DOC>", flow="", description="", expected_behaviour="",
                     passages="", flows="", categories="")[0].content
        for name in ("task", "flows", "policies", "uncovered", "refine")
    }
    assert len(set(openings.values())) == 1  # the same first message: one shared prefix for the cache
    assert "<DOC>" in openings["task"]
    world = render("populate/world", policy="<DOC>", tables="", counts="")[0].content
    assert world.startswith(openings["task"])  # populate's first call finds the document already read


def test_each_deterministic_check_is_mapped_to_the_policies_it_enforces(scripted_config, script, folder):
    script_document(script, flows={"Orders": [{"text": CONFIRM, "category": "user_consent", "challenge": 2},
                                              *rules(1, category="knowledge_extraction")]},
                    checks={"confirmed_before_write": ["P01"], "grounded_facts": ["P02"],
                            "claimed_changes_were_made": []})
    run_describe(configure(scripted_config, samples=1), folder, script)

    catalog = catalog_of(folder)
    assert catalog.checks == {"confirmed_before_write": ["P01"], "grounded_facts": ["P02"]}
    assert catalog.every_dialog == ["grounded_facts"]  # of the mapped checks, the one that reads every message
    (asked,) = script.calls(schema="CheckPolicies")
    schema = asked.body["response_format"]["json_schema"]["schema"]
    assert set(schema["properties"]) == {"writes_are_valid", "confirmed_before_write", "grounded_facts",
                                         "claimed_changes_were_made", "announced_work_was_done"}
    assert "Before changing a booking" in asked.text and "explicit yes" in asked.text
    assert schema["properties"]["grounded_facts"]["items"]["enum"] == ["P01", "P02"]  # only the catalog's ids


def test_not_asked_about_the_checks_that_declare_a_category_they_are_mapped_by_the_policies_evidence(
        scripted_config, script, tmp_path):
    script.on(schema="CheckPolicies", reply={"writes_are_valid": ["P02"]})
    models = RoleModels(configure(scripted_config, samples=1), cache=ResponseCache(tmp_path / "cache.sqlite"),
                        usage=Usage(), script=script)
    llm = models["policies"]
    described = PolicyCatalog(
        task_description="A shop assistant.", flows=[Flow(id="F1", name="Orders", description="Orders.")],
        policies=[Policy(id="P01", text=CONFIRM, category="user_consent", challenge=2, flows=["F1"]),
                  Policy(id="P02", text="Orders ship within two days.", category="company_policy", challenge=1,
                         flows=["F1"])])

    mapped = asyncio.run(mapped_checks(llm, described, list(BUILTIN), ask_declared=False))

    (asked,) = script.calls(schema="CheckPolicies")
    schema = asked.body["response_format"]["json_schema"]["schema"]
    assert set(schema["properties"]) == {check.name for check in BUILTIN if not check.category}
    assert mapped.checks["writes_are_valid"] == ["P02"]
    assert mapped.checks["confirmed_before_write"] == ["P01"]  # by the policy's own words, with no question
    assert asks_declared("openai") and not asks_declared("local")


def test_a_failed_check_mapping_leaves_the_checks_unmapped_and_says_so(scripted_config, script, folder):
    script.on(schema="CheckPolicies", reply=HTTPError(500))
    script_document(script, flows={"Orders": rules(2)})
    run_describe(configure(scripted_config, samples=1, llm_retries=0), folder, script)

    catalog = catalog_of(folder)
    assert catalog.checks == {} and catalog.errors[0].startswith("checks: not mapped to policies")


def test_a_check_mapped_to_most_policies_is_not_believed_and_left_unmapped(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(4)},
                    checks={"grounded_facts": ["P01", "P02", "P03"], "writes_are_valid": ["P02"]})
    run_describe(configure(scripted_config, samples=1), folder, script)

    catalog = catalog_of(folder)
    assert catalog.checks == {"writes_are_valid": ["P02"]}
    assert catalog.errors == ["checks: grounded_facts was mapped to 3 of 4 policies; left unmapped"]


def test_a_check_left_unmapped_that_declares_a_category_enforces_that_categorys_policies(
    scripted_config, script, folder
):
    script_document(script, flows={"Orders": [*rules(3), {"text": CONFIRM, "category": "company_policy",
                                                          "challenge": 2}]},
                    checks={"confirmed_before_write": ["P01", "P02", "P03", "P04"]})
    run_describe(configure(scripted_config, samples=1), folder, script)

    catalog = catalog_of(folder)
    assert catalog.policies[3].category == "user_consent"  # refiled on its own words first
    assert catalog.checks == {"confirmed_before_write": ["P04"]}
    assert catalog.errors == [
        "checks: confirmed_before_write was mapped to 4 of 4 policies; left unmapped",
        "checks: confirmed_before_write enforces the user_consent policies (P04), by the category it declares",
    ]


CHANGE_ITEMS = "Items of a delivered order may be exchanged once, for items of the same product."
HAND_OVER = "Do not make up an answer; when the tools cannot answer, transfer the user to a human agent."


def test_a_check_that_declares_a_category_is_never_mapped_outside_it(scripted_config, script, folder):
    script_document(script, flows={"Orders": [{"text": CONFIRM, "category": "user_consent", "challenge": 2},
                                              {"text": CHANGE_ITEMS, "category": "company_policy", "challenge": 3}]},
                    checks={"confirmed_before_write": ["P01", "P02"], "writes_are_valid": ["P02"]})
    run_describe(configure(scripted_config, samples=1), folder, script)

    catalog = catalog_of(folder)
    assert catalog.checks == {"confirmed_before_write": ["P01"], "writes_are_valid": ["P02"]}
    assert catalog.errors == [
        "checks: confirmed_before_write enforces user_consent policies; its mapping to P02 (company_policy) was refused"
    ]


def test_a_check_refused_everywhere_falls_back_to_its_categorys_policies(scripted_config, script, folder):
    script_document(script, flows={"Orders": [{"text": CONFIRM, "category": "user_consent", "challenge": 2},
                                              {"text": CHANGE_ITEMS, "category": "company_policy", "challenge": 3}]},
                    checks={"confirmed_before_write": ["P02"]})
    run_describe(configure(scripted_config, samples=1), folder, script)

    assert catalog_of(folder).checks == {"confirmed_before_write": ["P01"]}


def test_a_policy_whose_own_words_carry_a_checks_category_may_be_mapped_to_it_though_filed_elsewhere(
    scripted_config, script, folder
):
    script_document(script, flows={"Orders": [{"text": HAND_OVER, "category": "escalation", "challenge": 2},
                                              {"text": CHANGE_ITEMS, "category": "company_policy", "challenge": 3}]},
                    checks={"grounded_facts": ["P01"]})
    run_describe(configure(scripted_config, samples=1), folder, script)

    catalog = catalog_of(folder)
    assert catalog.policies[0].category == "escalation"  # its first cue: the hand-over
    assert catalog.checks["grounded_facts"] == ["P01"]  # "do not make up" is the grounding rule's cue
    assert not any("refused" in error for error in catalog.errors)


PARCELS = Path(__file__).resolve().parents[1] / "environment" / "parcels"


@pytest.mark.parametrize("domain", ["airline", "parcels"])
@pytest.mark.parametrize("seed", range(4))
def test_a_careless_mapping_never_puts_a_check_outside_its_category(scripted_config, script, folder, seed, domain):
    if domain == "parcels":
        environment = scripted_config.environment.model_copy(
            update={"schema_module": str(PARCELS / "schema.py"), "tools": str(PARCELS / "tools.py")})
        scripted_config = scripted_config.model_copy(update={"environment": environment})
    script.on(schema="CheckPolicies", reply=careless_answers(seed=seed))
    script_document(script, flows={"Orders": [
        {"text": CONFIRM, "category": "user_consent", "challenge": 2},
        {"text": CHANGE_ITEMS, "category": "company_policy", "challenge": 3},
        {"text": HAND_OVER, "category": "escalation", "challenge": 2},
        *rules(3, category="payment"),
    ]})
    run_describe(configure(scripted_config, samples=1), folder, script)

    catalog = catalog_of(folder)
    declared = {check.name: check.category for check in BUILTIN if check.category}
    for name, ids in catalog.checks.items():
        if name in declared:  # filed under the category, or worded with its cue
            assert all(catalog.policy(pid).category == declared[name] or evidenced(catalog.policy(pid), declared[name])
                       for pid in ids), (name, ids)
