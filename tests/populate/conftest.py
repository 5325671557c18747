"""The populate stage on the scripted LLM, over a tiny shop domain defined next to these tests."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import Event, Scenario
from intellagent.config import Config, load_config
from intellagent.environment import load_environment
from intellagent.llm import ScriptedLLM
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.conftest import world_file

SHOP = Path(__file__).resolve().parent / "shop"

ORDER_SCENARIO = Scenario(
    id="S001",
    policies=["P01"],
    target_challenge=3,
    challenge=3,
    description="A VIP customer placed an order two hours ago and wants to cancel it.",
    expected_behaviour="The chatbot cancels the order, which is less than 24 hours old.",
)
QUESTION_SCENARIO = Scenario(
    id="S002",
    policies=["P03"],
    target_challenge=1,
    challenge=1,
    description="A visitor asks whether VIP customers pay for shipping.",
    expected_behaviour="The chatbot says that shipping is free for VIP customers.",
)


def order_plan(*, sku: str = "P1") -> dict[str, Any]:
    """A plan for ORDER_SCENARIO: a new customer and order, whose item refers to an existing product."""
    return {
        "entities": [
            {"symbol": "C1", "description": "a VIP customer"},
            {"symbol": "O1", "description": "C1's open order, placed two hours ago"},
            {"symbol": "P1", "description": "an existing product in stock"},
        ],
        "rows": [
            # Out of order on purpose: rows are inserted parents first whatever order the plan gives.
            {"table": "shop_order_items", "values": {"order_id": "O1", "sku": sku}},
            {"table": "shop_orders", "values": {"order_id": "O1", "customer_id": "C1", "status": "open"}},
            {"table": "shop_customers", "values": {"customer_id": "C1", "tier": "vip"}},
        ],
        "scenario": "Customer C1 placed order O1 two hours ago and wants to cancel it.",
        "expected_behaviour": "The chatbot cancels O1 for C1.",
    }


def order_constraints() -> dict[str, Any]:
    return {
        "constraints": {
            "shop_customers_1": [],
            "shop_orders_1": [{"column": "placed_at", "rule": "between 2024-02-29T12:00:00 and 2024-03-01T12:00:00"}],
            "shop_order_items_1": [{"column": "quantity", "rule": "at most the product's stock"}],
        },
        "details": ["C1 remembers that O1 was placed at 10:00 today"],
    }


def order_values(*, quantity: int = 1) -> dict[str, Any]:
    return {
        "symbols": {},
        "rows": {
            "shop_orders_1": {"placed_at": "2024-03-01T10:00:00"},
            "shop_order_items_1": {"quantity": quantity},
        },
    }


def script_order(script: ScriptedLLM, *, values: dict[str, Any] | None = None) -> ScriptedLLM:
    """Answers for ORDER_SCENARIO's plan, constraints and values."""
    about_order = lambda request: "wants to cancel it" in request.text  # noqa: E731
    script.on(schema="SymbolicPlan", when=about_order, reply=order_plan())
    script.on(schema="RowConstraints", when=about_order, reply=order_constraints())
    script.on(schema="RowValues", when=about_order, reply=values or order_values())
    return script


@dataclass
class ShopRun:
    """A run folder on the shop domain, with the scenarios it was given."""

    config: Config
    folder: Path

    def populate(self, script: ScriptedLLM) -> None:
        asyncio.run(execute(self.config, output=self.folder, stages=("populate",), script=script, progress=False))

    def events(self) -> dict[str, Event]:
        return {event.id: event for event in RunFolder(self.folder).events.load()}

    def rows(self, event_id: str, table: str) -> list[dict[str, Any]]:
        """The rows of a table in an event's database."""
        return read_rows(world_file(self.folder, self.events()[event_id].database or ""), table)

    def new_rows(self, event_id: str, table: str) -> list[dict[str, Any]]:
        """The rows of a table that the event added to the background world."""
        background = self.background(table)
        return [row for row in self.rows(event_id, table) if row not in background]

    def background(self, table: str) -> list[dict[str, Any]]:
        """The rows of a table in the background world of this run's seed (built apart, before any run)."""
        path = self.folder.parent / f"background-{self.config.seed}.sqlite"
        if not path.exists():
            load_environment(self.config.environment).create_database(path, seed=self.config.seed)
        return read_rows(path, table)


def read_rows(path: Path, table: str) -> list[dict[str, Any]]:
    """Every row of a table of a SQLite file, read with sqlite3 itself."""
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in connection.execute(f"SELECT * FROM {table}")]
    finally:
        connection.close()


def shop_config(tmp_path: Path, **overrides: Any) -> Config:
    """A config on the shop domain whose every role is the scripted LLM."""
    return load_config(
        {
            "name": "shop",
            "environment": {
                "policy": str(SHOP / "shop.md"),
                "schema": str(SHOP / "schema.py"),
                "tools": str(SHOP / "tools.py"),
                "validators": str(SHOP / "validators.py"),
                "background": str(SHOP / "background.py"),
            },
            "llm": "scripted",
            "seed": 7,
            **overrides,
        },
        base_dir=tmp_path,
    )


def start_run(config: Config, folder: Path, scenarios: list[Scenario]) -> ShopRun:
    """A run folder as the describe stage leaves it: run.json and scenarios.jsonl."""
    asyncio.run(execute(config, output=folder, stages=(), progress=False))
    artifact = RunFolder(folder).scenarios
    for scenario in scenarios:
        artifact.append(scenario)
    return ShopRun(config=config, folder=folder)


@pytest.fixture
def shop_run(tmp_path: Path) -> ShopRun:
    """A shop run holding ORDER_SCENARIO."""
    return start_run(shop_config(tmp_path), tmp_path / "run", [ORDER_SCENARIO])
