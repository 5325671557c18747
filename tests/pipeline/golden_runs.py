"""Three whole runs on the test doubles whose artifacts are pinned by digest (`golden_artifacts.json`).

- `shop`: the scripted shop (`scripted_pipeline`), each event played twice and calibrated with two
  supplied mutants, so that trials, mutant dialogs and mutants.json are pinned too;
- `airline`: the example config (`configs/airline.yml`) on the careless double, every role and the
  chatbot answering arbitrarily within each schema;
- `tau`: τ-bench mode on three of the airline's published tasks, played by a chatbot that makes the
  gold calls.

Each run works one item at a time (`workers: 1`): with items side by side, which of two identical
requests reaches the model first, and so which dialog's usage counts the call and which the cached
answer, is the clock's choice. A digest is taken of each artifact as the next run must reproduce it:
what only the clock or the machine decides (times, durations, package versions, the settings' hash,
which covers the policy's absolute path) is left out, and the machine's paths are replaced by names.
When a change alters artifacts on purpose, write the digests anew and commit them with it:

    .venv/bin/python -m tests.pipeline.golden_runs
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from intellagent.api import arun
from intellagent.config import apply_overrides, load_config
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = Path(__file__).with_name("golden_artifacts.json")
REGENERATE = ".venv/bin/python -m tests.pipeline.golden_runs"

# What the clock or the machine decides, not the run's work (the fingerprint hashes absolute paths).
UNPINNED_KEYS = frozenset({"started_at", "finished_at", "earlier_s", "duration_s", "invocation_s", "at_s", "versions",
                           "fingerprint", "commit"})
_XML_TIME = re.compile(r' time="[0-9.]+"')
# The run's length as the HTML report's header shows it.
_HTML_TIME = re.compile(r"\b\d+(?:\.\d+)? ?(?:s|min|h)\b")
# Not artifacts: the LLM cache and the folder's lock.
SKIPPED = ("llm_cache.sqlite", ".intellagent.lock")


def shop_run(folder: Path) -> None:
    """The scripted shop, two trials per event, calibrated with the supplied mutants of the calibration tests."""
    from tests.pipeline.scripted_pipeline import config, pipeline_script
    from tests.pipeline.test_calibration import MUTANTS

    asyncio.run(arun(config(workers=1), output=folder, script=pipeline_script(), trials=2, mutants=MUTANTS))


def airline_run(folder: Path) -> None:
    """The example config on the careless double, whatever it answers (a failed item is recorded, not fatal)."""
    config = apply_overrides(load_config(ROOT / "configs/airline.yml"), llm="scripted", chatbot_llm="scripted",
                             workers=1)
    config = config.model_copy(update={"budget": config.budget.model_copy(update={"max_error_rate": 1.0})})
    asyncio.run(arun(config, output=folder, script=ScriptedLLM().on(reply=careless_answers(seed=7))))


def tau_run(folder: Path) -> None:
    """τ-bench's tasks 0-2, played by the gold chatbot."""
    from tests.pipeline.test_tau_mode import settings, tau_script

    asyncio.run(arun(settings(workers=1), output=folder, script=tau_script()))


RUNS: dict[str, Callable[[Path], None]] = {"shop": shop_run, "airline": airline_run, "tau": tau_run}


def digests(folder: Path) -> dict[str, str]:
    """The digest of every artifact of a run folder, by its name in the folder."""
    places = {str(folder.resolve()): "<run>", str(ROOT.parent / "shared"): "<shared>", str(ROOT): "<repo>"}
    found = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_dir() or name.startswith(SKIPPED):
            continue
        found[name] = hashlib.sha256(_comparable(path, places).encode("utf-8")).hexdigest()
    return found


def _comparable(path: Path, places: dict[str, str]) -> str:
    """A file's content as two runs of the same work share it."""
    if path.suffix == ".sqlite":
        with sqlite3.connect(path) as connection:
            return "\n".join(connection.iterdump())
    text = path.read_text(encoding="utf-8")
    for place, name in places.items():
        text = text.replace(place, name)
    if path.suffix == ".json":
        return json.dumps(_untimed(json.loads(text)), sort_keys=True)
    if path.suffix == ".jsonl":
        return "\n".join(json.dumps(_untimed(json.loads(line)), sort_keys=True) for line in text.splitlines())
    if path.suffix == ".xml":
        return _XML_TIME.sub("", text)
    if path.suffix == ".html":
        return _HTML_TIME.sub("", text)
    return text


def _untimed(data: Any) -> Any:
    if isinstance(data, dict):
        return {key: _untimed(value) for key, value in data.items() if key not in UNPINNED_KEYS}
    if isinstance(data, list):
        return [_untimed(value) for value in data]
    return data


def run_digests(name: str) -> dict[str, str]:
    """The digests of a fresh run of `name`."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / name
        RUNS[name](folder)
        return digests(folder)


def main() -> None:
    """Write the digests of every run anew."""
    written = {name: run_digests(name) for name in RUNS}
    DIGESTS.write_text(json.dumps(written, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DIGESTS.relative_to(ROOT)}: {sum(map(len, written.values()))} artifacts of {len(written)} runs",
          file=sys.stderr)


if __name__ == "__main__":
    main()
