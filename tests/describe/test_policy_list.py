"""A reviewed policy list (`environment.policy_list`): describe reads the task, flows, policies and check mapping from
it instead of extracting them, checks it before any call, and writes the extracted ones there for review when the
file does not exist yet. On the store (JSON columns, ids of digits, a check of its own) and on the airline; the
lists the airline and telecom examples ship stand against their domains."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import catalog_of, configure, rules, run_describe, script_document

from intellagent.artifacts import PolicyCatalog
from intellagent.checks import every_check
from intellagent.config import Config, load_config
from intellagent.describe.policy_list import PolicyList, listed_catalog, read_policy_list, write_listed
from intellagent.environment import load_environment
from intellagent.errors import UsageError
from intellagent.llm import ScriptedLLM
from tests.store import config as store_config

ROOT = Path(__file__).resolve().parents[2]
AIRLINE_LIST = ROOT / "policies" / "airline.yml"
EXTRACTION = ("TaskAnswer", "FlowsAnswer", "PoliciesAnswer", "CoveringRules")

STORE_LIST: dict[str, Any] = {
    "task": "The assistant of an online store: it looks orders up, cancels them, removes items and exchanges them.",
    "flows": [{"id": "F1", "name": "Changing an order", "description": "The customer wants an order changed."},
              {"id": "F2", "name": "Looking an order up"}],
    "policies": [
        {"id": "P1", "text": "Before you cancel, remove or exchange anything, say exactly what will change and wait "
                             "for an explicit yes from the customer.", "flows": ["F1"], "category": "user_consent",
         "challenge": 3},
        {"id": "P2", "text": "Only a pending order is cancelled or has an item taken out, and it keeps one item.",
         "flows": ["F1"], "category": "reasoning", "challenge": 4},
        {"id": "P3", "text": "A delivered item is exchanged only for another variant of the same product.",
         "flows": ["F1"], "category": "company_policy", "challenge": 2},
        {"id": "P4", "text": "Find the customer by their e-mail address before looking anything up.",
         "flows": ["F1", "F2"], "category": "authentication", "challenge": 1},
    ],
    "checks": {"only_pending_orders_change": ["P2"], "exchange_within_the_product": ["P3"]},
}


def listed(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def store(tmp_path: Path, policy_list: Path) -> Config:
    environment = {**store_config(tmp_path).environment.model_dump(exclude_none=True), "policy_list": str(policy_list)}
    return store_config(tmp_path, samples=1, environment=environment)


def airline(tmp_path: Path, policy_list: Path = AIRLINE_LIST) -> Config:
    return load_config({"environment": {"policy": str(ROOT / "policies" / "airline.md"),
                                        "schema": "intellagent.db_schemas.airline.schema",
                                        "tools": "intellagent.db_schemas.airline.tools",
                                        "checks": "intellagent.db_schemas.airline.checks",
                                        "policy_list": str(policy_list)},
                        "llm": "scripted", "samples": 1, "describe": {"graph_weights": "flows"}}, base_dir=tmp_path)


def scripted(flows: dict[str, list[dict]] | None = None) -> ScriptedLLM:
    """Every describe call scripted, so that a call the list should spare would be answered, and seen."""
    return script_document(ScriptedLLM(), flows=flows or {"Orders": rules(3)})


def steps(script: ScriptedLLM) -> set[str]:
    return {request.schema or "" for request in script.requests}


# ── reading a list ──────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("domain", ["store", "airline"])
def test_a_run_that_reads_a_list_asks_no_extraction_coverage_or_check_mapping_call(domain, tmp_path, folder):
    path = listed(tmp_path / "store.yml", STORE_LIST) if domain == "store" else AIRLINE_LIST
    config = store(tmp_path, path) if domain == "store" else airline(tmp_path)
    script = scripted()
    run_describe(config, folder, script)

    expected = yaml.safe_load(path.read_text())["policies"]
    assert steps(script).isdisjoint({*EXTRACTION, "CheckPolicies"})
    assert "ScenarioAnswer" in steps(script)  # the rest of the stage ran
    assert [(p.id, p.text, p.flows) for p in catalog_of(folder).policies] == [
        (p["id"], " ".join(p["text"].split()), p["flows"]) for p in expected]


def test_the_list_is_authoritative_categories_and_challenges_are_kept_as_written(tmp_path, folder):
    data = {**STORE_LIST, "policies": [{**policy, "category": "other", "challenge": 5}
                                        for policy in STORE_LIST["policies"]]}
    run_describe(store(tmp_path, listed(tmp_path / "store.yml", data)), folder, scripted())

    catalog = catalog_of(folder)
    assert {(p.category, p.challenge) for p in catalog.policies} == {("other", 5)} and catalog.corrected == []


def test_the_passages_no_listed_policy_covers_are_listed_with_no_call(tmp_path, folder):
    run_describe(store(tmp_path, listed(tmp_path / "store.yml", STORE_LIST)), folder, scripted())

    uncovered = [passage.text for passage in catalog_of(folder).uncovered]
    assert any(text.startswith("- Tell the customer only what they told you") for text in uncovered)
    assert not any(text.startswith("- Before you cancel, remove or exchange") for text in uncovered)


def test_the_checks_a_list_maps_are_its_mapping_and_one_it_leaves_out_is_mapped_by_its_category(tmp_path, folder):
    run_describe(store(tmp_path, listed(tmp_path / "store.yml", STORE_LIST)), folder, scripted())

    assert catalog_of(folder).checks == {"only_pending_orders_change": ["P2"], "exchange_within_the_product": ["P3"],
                                         "confirmed_before_write": ["P1"]}


def test_a_check_the_list_maps_to_no_policy_enforces_none(tmp_path, folder):
    data = {**STORE_LIST, "checks": {**STORE_LIST["checks"], "confirmed_before_write": []}}
    run_describe(store(tmp_path, listed(tmp_path / "store.yml", data)), folder, scripted())

    assert "confirmed_before_write" not in catalog_of(folder).checks


def test_a_list_without_checks_has_them_mapped_by_the_one_call_as_before(tmp_path, folder):
    data = {key: value for key, value in STORE_LIST.items() if key != "checks"}
    script = script_document(ScriptedLLM(), flows={"Orders": rules(3)},
                             checks={"only_pending_orders_change": ["P2"], "exchange_within_the_product": ["P3"]})
    run_describe(store(tmp_path, listed(tmp_path / "store.yml", data)), folder, script)

    assert len(script.calls(schema="CheckPolicies")) == 1 and steps(script).isdisjoint(EXTRACTION)
    assert catalog_of(folder).checks["exchange_within_the_product"] == ["P3"]


# ── a list that does not stand ──────────────────────────────────────────────────────────────


def _policy(number: int, **changes: Any) -> dict[str, Any]:
    return {**STORE_LIST["policies"][number], **changes}


MALFORMED = {
    "a repeated policy id": ({"policies": [_policy(0), _policy(1, id="P1")]}, "policy P1 is listed twice"),
    "a repeated flow id": ({"flows": [*STORE_LIST["flows"], {"id": "F2", "name": "Again"}]}, "flow F2 is listed twice"),
    "an unknown flow": ({"policies": [_policy(0, flows=["F9"])]}, "policy P1: flow F9 is not one of the list's flows"),
    "an unknown check": ({"checks": {"refunds_in_full": ["P1"]}}, "checks: refunds_in_full is not a check of the"),
    "an unknown policy in checks": ({"checks": {"exchange_within_the_product": ["P7"]}},
                                    "checks: exchange_within_the_product: policy P7 is not one of the list's"),
    "a category of none": ({"policies": [_policy(2, category="refunds")]}, "policy P3: category: Input should be"),
    "a challenge out of range": ({"policies": [_policy(3, challenge=6)]}, "policy P4: challenge: Input should be"),
    "a missing task": ({"task": None}, "store.yml: task: Field required"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_list_is_one_line_naming_the_file_and_the_entry_before_any_call(case, tmp_path, folder):
    changes, said = MALFORMED[case]
    path = listed(tmp_path / "store.yml", {key: value for key, value in {**STORE_LIST, **changes}.items()
                                           if value is not None})
    script = scripted()
    with pytest.raises(UsageError) as raised:
        run_describe(store(tmp_path, path), folder, script)

    message = str(raised.value)
    assert said in message and str(path) in message and "\n" not in message
    assert raised.value.exit_code == 2 and script.requests == []


def test_a_list_that_is_not_yaml_is_one_line_naming_the_file(tmp_path, folder):
    path = tmp_path / "store.yml"
    path.write_text("task: [an unclosed list\npolicies: {")
    with pytest.raises(UsageError, match=r"environment.policy_list: .*store.yml is not YAML") as raised:
        run_describe(store(tmp_path, path), folder, scripted())
    assert "\n" not in str(raised.value)


# ── a list written for review ───────────────────────────────────────────────────────────────


def test_a_run_naming_a_missing_list_extracts_and_writes_it_there_marked_for_review(tmp_path, folder):
    path = tmp_path / "lists" / "store.yml"
    script = scripted()
    run_describe(store(tmp_path, path), folder, script)

    text = path.read_text()
    assert "TaskAnswer" in steps(script)
    assert text.startswith("# The policies of store.md, extracted by a model (scripted) on ")
    assert "Review every entry" in text
    assert [p["id"] for p in yaml.safe_load(text)["policies"]] == [p.id for p in catalog_of(folder).policies]


@pytest.mark.parametrize("domain", ["store", "airline"])
def test_a_written_list_reads_back_to_the_catalog_it_was_written_from(domain, tmp_path, folder):
    path = tmp_path / "written.yml"
    config = store(tmp_path, path) if domain == "store" else airline(tmp_path, path)
    run_describe(config, folder, scripted({"Orders": rules(2), "Refunds": rules(2, start=3, category="user_consent")}))
    again = tmp_path / "again"
    script = scripted()
    run_describe(config, again, script)

    def stated(catalog: PolicyCatalog) -> tuple:
        return (catalog.task_description, [(f.id, f.name, f.description) for f in catalog.flows], catalog.policies,
                catalog.checks, catalog.every_dialog)

    assert steps(script).isdisjoint({*EXTRACTION, "CheckPolicies"})
    assert stated(catalog_of(again)) == stated(catalog_of(folder))


def test_an_existing_list_is_never_written_over(tmp_path):
    path = listed(tmp_path / "store.yml", STORE_LIST)
    before = path.read_text()
    catalog = listed_catalog(PolicyList.model_validate(STORE_LIST))

    assert write_listed(catalog, [], path, document=Path("store.md"), model="scripted") is False
    assert path.read_text() == before


def test_a_resumed_run_keeps_its_policies_even_when_a_list_appears(tmp_path, folder):
    path = tmp_path / "store.yml"
    config = configure(store(tmp_path, path), samples=1)
    run_describe(config, folder, scripted())
    first = catalog_of(folder)
    path.write_text(path.read_text().replace("check1", "checked"))  # a reviewer's edit
    script = scripted()
    run_describe(config, folder, script)

    assert catalog_of(folder).policies == first.policies and script.calls(schema="TaskAnswer") == []


# ── the shipped lists ───────────────────────────────────────────────────────────────────────


SHIPPED = {"airline": 6, "telecom": 5}
"""Each example with a shipped list, and how many checks of its own its domain has."""


@pytest.fixture(scope="module", params=list(SHIPPED))
def example(request: pytest.FixtureRequest) -> tuple[str, Config, list]:
    config = load_config(request.param)
    return request.param, config, every_check(load_environment(config.environment))


def test_the_example_config_reads_its_shipped_list(example) -> None:
    name, config, _ = example
    assert config.environment.policy_list == ROOT / "policies" / f"{name}.yml"


def test_the_shipped_list_stands_against_its_domain_with_challenges_spread(example) -> None:
    _, config, checks = example
    policy_list = read_policy_list(config.environment.policy_list, checks)

    assert 25 <= len(policy_list.policies) <= 40
    assert len({policy.challenge for policy in policy_list.policies}) == 5


def test_the_shipped_list_maps_every_check_and_each_of_the_domains_to_some_policy(example) -> None:
    name, config, checks = example
    mapping = read_policy_list(config.environment.policy_list, checks).checks or {}
    domain = [check.name for check in checks if check.function.__module__.endswith(f"{name}.checks")]

    assert set(mapping) == {check.name for check in checks}
    assert len(domain) == SHIPPED[name] and all(mapping[check] for check in domain)
