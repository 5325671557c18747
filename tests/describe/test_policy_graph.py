"""The policy graph: a linear number of scoring calls, symmetric weights, failures and fallbacks recorded."""

from __future__ import annotations

import pytest
from conftest import configure, edge_ids, graph_of, rules, run_describe, script_document

from intellagent.llm import HTTPError


@pytest.mark.parametrize(("count", "block_size", "calls"), [(10, 1, 10), (30, 1, 30), (10, 4, 3), (30, 4, 8)])
def test_scoring_calls_grow_linearly_with_the_policies(scripted_config, script, folder, count, block_size, calls):
    third = count // 3  # a flow holds at most MAX_POLICIES_PER_FLOW rules
    script_document(script, flows={"Orders": rules(third), "Refunds": rules(third, start=third + 1),
                                   "Returns": rules(count - 2 * third, start=2 * third + 1)})
    run_describe(configure(scripted_config, samples=1, edge_block_size=block_size), folder, script)
    assert len(script.calls(schema="EdgeScores")) == calls
    assert len(graph_of(folder)["edges"]) == count * (count - 1) // 2


def test_each_call_must_score_exactly_the_other_policies(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(5)})
    run_describe(configure(scripted_config, samples=1, edge_block_size=2), folder, script)
    asked = [edge_ids(request) for request in script.calls(schema="EdgeScores")]
    assert asked == [
        {"P01": ["P02", "P03", "P04", "P05"], "P02": ["P01", "P03", "P04", "P05"]},
        {"P03": ["P01", "P02", "P04", "P05"], "P04": ["P01", "P02", "P03", "P05"]},
        {"P05": ["P01", "P02", "P03", "P04"]},
    ]
    schema = script.calls(schema="EdgeScores")[0].body["response_format"]["json_schema"]["schema"]
    inner = schema["$defs"]["ScoresOfP01"]
    assert inner["required"] == ["P02", "P03", "P04", "P05"] and inner["additionalProperties"] is False
    assert inner["properties"]["P02"]["minimum"] == 0 and inner["properties"]["P02"]["maximum"] == 10


def test_with_one_score_per_pair_each_policy_scores_only_those_after_it(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(3), "Refunds": rules(1, start=4)},
                    weight=lambda scorer, other: 8 if scorer == "P01" else 3)
    run_describe(configure(scripted_config, samples=1, edge_block_size=2, pair_scores=1), folder, script)
    requests = script.calls(schema="EdgeScores")
    assert [edge_ids(request) for request in requests] == [
        {"P01": ["P02", "P03", "P04"], "P02": ["P03", "P04"]},
        {"P03": ["P04"]},
    ]
    assert "against every rule listed after it" in requests[0].last
    graph = graph_of(folder)
    edges = {(e["source"], e["target"]): e for e in graph["edges"]}
    assert len(edges) == 6 and (edges["P01", "P04"]["weight"], edges["P01", "P04"]["scores"]) == (8, [8, None])
    assert edges["P03", "P04"]["weight"] == 3
    assert graph["graph"]["pair_scores"] == 1
    assert graph["graph"]["one_sided_pairs"] == [] and graph["graph"]["fallback_pairs"] == []


def test_flow_weights_need_no_call_and_link_the_rules_of_a_flow_strongly(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(2), "Refunds": rules(1, start=3)})
    run_describe(configure(scripted_config, samples=1, graph_weights="flows"), folder, script)
    assert script.calls(schema="EdgeScores") == []
    graph = graph_of(folder)
    weights = {(e["source"], e["target"]): e["weight"] for e in graph["edges"]}
    assert weights == {("P01", "P02"): 8, ("P01", "P03"): 2, ("P02", "P03"): 2}
    assert graph["graph"]["calls"] == 0 and "share a flow" in graph["graph"]["weight_rule"]


def test_the_policies_sharing_a_flow_are_asked_first_and_named(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(2), "Refunds": rules(2, start=3)})
    run_describe(configure(scripted_config, samples=1), folder, script)
    request = script.calls(schema="EdgeScores")[2]  # P03, of the second flow
    assert edge_ids(request) == {"P03": ["P04", "P01", "P02"]}
    assert "Shares a flow with: P04" in request.last
    assert "P01 (Orders): check1" in request.last


def test_the_two_scores_of_a_pair_are_averaged(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(3)}, weight=lambda scorer, other: 2 if scorer == "P01" else 7)
    run_describe(configure(scripted_config, samples=1), folder, script)
    edges = {(e["source"], e["target"]): e for e in graph_of(folder)["edges"]}
    assert (edges["P01", "P02"]["weight"], edges["P01", "P02"]["scores"]) == (4.5, [2, 7])
    assert (edges["P02", "P03"]["weight"], edges["P02", "P03"]["scores"]) == (7.0, [7, 7])


def test_graph_json_is_node_link_with_the_policies_as_nodes(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(2, challenge=4), "Refunds": rules(1, start=3)})
    run_describe(configure(scripted_config, samples=1), folder, script)
    graph = graph_of(folder)
    assert graph["directed"] is False and graph["multigraph"] is False
    assert graph["nodes"][0] == {
        "id": "P01", "text": "check1 refund1 order1 parcel1 invoice1 account1 address1 voucher1",
        "category": "company_policy", "challenge": 4, "flows": ["F1"],
    }
    assert graph["graph"]["weight_rule"].startswith("mean of the directed scores")
    assert (graph["graph"]["calls"], graph["graph"]["fallback_pairs"], graph["graph"]["scoring_errors"]) == (3, [], [])


def test_a_policy_whose_call_keeps_failing_is_scored_from_the_other_side(scripted_config, script, folder):
    script.on(schema="EdgeScores", when=lambda r: "ScoresOfP02" in str(r.body), reply='{"P02": "high"}')
    script_document(script, flows={"Orders": rules(3)}, weight=lambda scorer, other: 6)
    run_describe(configure(scripted_config, samples=1), folder, script)
    graph = graph_of(folder)
    edges = {(e["source"], e["target"]): e for e in graph["edges"]}
    assert (edges["P01", "P02"]["weight"], edges["P01", "P02"]["scores"]) == (6.0, [6, None])
    assert graph["graph"]["one_sided_pairs"] == [["P01", "P02"], ["P02", "P03"]]
    (error,) = graph["graph"]["scoring_errors"]
    assert error["block"] == ["P02"] and "EdgeScores" in error["error"]


def test_a_pair_scored_from_neither_side_gets_the_recorded_fallback(scripted_config, script, folder):
    failing = ("ScoresOfP01", "ScoresOfP02")
    script.on(schema="EdgeScores", when=lambda r: any(name in str(r.body) for name in failing), reply=HTTPError(500))
    script_document(
        script, flows={"Orders": rules(4)}, weight=lambda scorer, other: 2 if {scorer, other} == {"P03", "P04"} else 7
    )
    run_describe(configure(scripted_config, samples=1, llm_retries=0), folder, script)
    graph = graph_of(folder)
    edges = {(e["source"], e["target"]): e for e in graph["edges"]}
    # The scored pairs weigh 7, 7, 7, 7 (one side each) and 2 (P03-P04, both sides): their mean is 6.
    assert graph["graph"]["fallback_weight"] == 6.0
    assert graph["graph"]["fallback_pairs"] == [["P01", "P02"]]
    assert (edges["P01", "P02"]["weight"], edges["P01", "P02"]["scores"]) == (6.0, [None, None])
    assert [e["block"] for e in graph["graph"]["scoring_errors"]] == [["P01"], ["P02"]]
