"""The store with returns, the test domain of the rules language: the store's tables and tools, a tool that
returns a delivered item and refunds it, and a policy with τ-bench's retail rules in the store's own words
(refund to the original payment method, exchange for another item, authenticate before disclosing, an
explicit yes before a write). Tests load it through `environment()`; its rules file is `returns_rules.yml`."""

from __future__ import annotations

from pathlib import Path

from intellagent.config import load_config
from intellagent.environment import Environment, load_environment

FOLDER = Path(__file__).resolve().parent
POLICY = FOLDER / "returns.md"
RULES = FOLDER / "returns_rules.yml"


def section(**overrides: str | None) -> dict[str, str]:
    """The config's `environment` section of the store with returns; a keyword replaces an entry (None drops it)."""
    found: dict[str, str | None] = {"policy": str(POLICY), "schema": "tests.store.schema",
                                    "tools": "tests.rules.returns", "validators": "tests.store.validators",
                                    "background": "tests.store.background", "rules": str(RULES)}
    found.update(overrides)
    return {key: value for key, value in found.items() if value is not None}


def environment() -> Environment:
    """The store with returns, loaded."""
    return load_environment(load_config({"environment": section(), "llm": "scripted"}).environment)
