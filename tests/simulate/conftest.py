"""Fixtures of the simulate tests: run folders holding shop events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from scripted_dialogs import ORDERS

from intellagent.artifacts import Event
from intellagent.config import Config
from intellagent.environment import load_environment
from intellagent.runner import execute


@pytest.fixture
def run_folder(tmp_path: Path) -> Callable[..., Path]:
    """Make a run folder holding `events` (each with a database of ORDERS) for `config`."""

    def make(config: Config, events: list[Event]) -> Path:
        folder = tmp_path / "run"
        asyncio.run(execute(config, output=folder, stages=(), progress=False))
        environment = load_environment(config.environment)
        lines = []
        for item in events:
            if item.database:
                environment.create_database(folder / item.database, seed=0, background=False)
                with environment.session(folder / item.database) as session:
                    for order_id, (customer, status) in ORDERS.items():
                        session.add(environment.table("orders")(order_id=order_id, customer=customer, status=status))
            lines.append(item.model_dump_json() + "\n")
        (folder / "events.jsonl").write_text("".join(lines))
        return folder

    return make
