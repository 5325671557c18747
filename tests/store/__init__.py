"""An online store, a second test domain written from the guide "Adding your own domain" (docs/domains/) alone.

Customers save payment methods; products come in variants; an order holds lines, payments and, once it
leaves, shipments. It has the shapes the airline lacks, so every feature is tried on them too:

- JSON columns: a variant's options and an address are objects, a product's tags a list;
- ids of ten digits (customers, products, variants, payments), twelve (tracking numbers), '#W' and seven
  digits (orders), and a running integer (order lines);
- references that must agree: an order line names a product and a variant of that product; a payment
  uses a payment method of its order's own customer;
- parents whose rows always have children: every order has lines and a payment, every customer a
  payment method;
- inherited columns: a line's name, options and price are its product's and variant's, an order's
  address its customer's (`generation(inherit=True)`);
- a rule over a row and its related rows: an order holds at least one line and one payment
  (`@validator(Order, related=(OrderLine, Payment))`).

Tests use it through `environment()`, `config()` and `build_world()`; its modules are named as
`tests.store.*`, the names a test importing the tables uses too, so that they are imported once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from intellagent.config import Config, load_config
from intellagent.environment import Environment, load_environment
from intellagent.populate import BackgroundWorld, Tables

FOLDER = Path(__file__).resolve().parent


def environment(**modules: str | None) -> dict[str, str]:
    """The config's `environment` section for the store; a keyword replaces a module (None leaves it out).

    Args:
        modules: e.g. `background="tests.broken.background"`, or `validators=None` for a store with no rules.
    """
    found: dict[str, str | None] = {"policy": str(FOLDER / "store.md"), "schema": "tests.store.schema",
                                    "tools": "tests.store.tools", "validators": "tests.store.validators",
                                    "background": "tests.store.background", "checks": "tests.store.checks"}
    found.update(modules)
    return {key: value for key, value in found.items() if value is not None}


def config(base_dir: Path, **settings: Any) -> Config:
    """A config on the store whose every role is the scripted LLM (seed 7, four workers); `settings` override.

    Args:
        base_dir: the folder relative paths in the config are read from (a test's tmp_path).
        settings: top-level config keys, e.g. `environment=environment(validators=None)` or `samples=50`.
    """
    data = {"name": "store", "environment": environment(), "llm": "scripted", "seed": 7, "workers": 4, **settings}
    return load_config(data, base_dir=base_dir)


@dataclass(frozen=True)
class StoreWorld:
    """The store loaded, with its background world built: what populate's parts are tried on."""

    environment: Environment
    tables: Tables
    world: BackgroundWorld
    background: Path


def build_world(folder: Path, *, seed: int = 7) -> StoreWorld:
    """Load the store and build its background world of `seed` at `folder`/background.sqlite."""
    env = load_environment(config(folder).environment)
    background = folder / "background.sqlite"
    env.create_database(background, seed=seed)
    tables = Tables(env.tables)
    return StoreWorld(environment=env, tables=tables, world=BackgroundWorld.load(env, background, tables),
                      background=background)
