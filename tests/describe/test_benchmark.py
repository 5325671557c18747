"""benchmarks/describe_calls.py: its table of calls and tokens per step."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import configure, rules, run_describe, script_document

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "describe_calls.py"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("describe_calls", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_has_one_row_per_step_in_pipeline_order(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(4), "Refunds": rules(2, start=5)})
    result = run_describe(configure(scripted_config, samples=2, edge_block_size=3), folder, script)
    lines = load_benchmark().step_table(result.info.usage).splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert [line.split()[0] for line in lines] == [
        "step", "task", "flows", "policies", "checks", "graph", "scenario", "total"]
    assert [rows[step][0] for step in ("task", "flows", "policies", "checks", "graph", "scenario", "total")] == [
        "1", "1", "2", "1", "2", "2", "9"]
