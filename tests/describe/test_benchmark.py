"""benchmarks/describe_calls.py: its table of calls and tokens per step."""

from __future__ import annotations

from conftest import configure, rules, run_describe, script_document

from tests.conftest import load_benchmark


def test_the_table_has_one_row_per_step_in_pipeline_order(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(4), "Refunds": rules(2, start=5)})
    result = run_describe(configure(scripted_config, samples=2, edge_block_size=3), folder, script)
    lines = load_benchmark("describe_calls").step_table(result.info.usage).splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert [line.split()[0] for line in lines] == [
        "step", "task", "flows", "policies", "uncovered", "checks", "sop", "assertions", "graph", "scenario", "total"]
    steps = ("task", "flows", "policies", "uncovered", "checks", "sop", "assertions", "graph", "scenario", "total")
    # One procedure per flow, the six policies compiled in one batch.
    assert [rows[step][0] for step in steps] == ["1", "1", "2", "1", "1", "2", "1", "2", "2", "13"]
