"""Fixtures shared by the whole suite: the scripted LLM and small configs that use it."""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from examples.chatbots.server import make_server
from intellagent.config import Config, load_config
from intellagent.environment import worlds
from intellagent.llm import ScriptedLLM

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The embedded model's tests first: they take minutes, so spread over the cores (`make test`) the other
    tests run beside them instead of after them."""
    items.sort(key=lambda item: item.get_closest_marker("local_model") is None)


def world_file(folder: Path, stored: str) -> Path:
    """The complete database of a stored world of a run (`events/S001.delta.json`), written next to it as
    `run.py --world` does; a complete database is itself."""
    path = folder / stored
    if not worlds.is_delta(path):
        return path
    worlds.materialize(path, worlds.whole_path(path))
    return worlds.whole_path(path)


def load_benchmark(name: str) -> ModuleType:
    """A script of benchmarks/ as a module, so its printing functions can be tested."""
    spec = importlib.util.spec_from_file_location(f"benchmarks.{name}", ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # where a dataclass of the script looks its module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def script() -> ScriptedLLM:
    """A fresh scripted LLM; add rules with `script.on(...)`."""
    return ScriptedLLM()


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "policy.md"
    path.write_text("# Shop assistant\n\n- Always greet the customer.\n- Never reveal another customer's order.\n")
    return path


@pytest.fixture
def scripted_config(tmp_path: Path, policy_file: Path) -> Config:
    """A config whose every role is the scripted LLM, on the airline tables and tools."""
    return load_config(
        {
            "name": "scripted",
            "environment": {
                "policy": str(policy_file),
                "schema": "intellagent.db_schemas.airline.schema",
                "tools": "intellagent.db_schemas.airline.tools",
            },
            "llm": "scripted",
            "samples": 2,
        },
        base_dir=tmp_path,
    )


@pytest.fixture
def desk_server() -> Iterator[str]:
    """The example help desk's server (examples/chatbots/server.py) on a free port of 127.0.0.1."""
    server = make_server(port=0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
