"""The artifacts of three whole runs on the test doubles are the ones pinned in `golden_artifacts.json`.

A refactoring must leave every artifact as it was; a change that alters artifacts on purpose writes
the digests anew (see `golden_runs`) and says so.
"""

from __future__ import annotations

import json

import pytest

from tests.pipeline.golden_runs import DIGESTS, REGENERATE, RUNS, run_digests


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_runs_artifacts_are_the_pinned_ones(name: str) -> None:
    pinned = json.loads(DIGESTS.read_text(encoding="utf-8"))[name]

    made = run_digests(name)

    changed = sorted(file for file in pinned.keys() & made.keys() if pinned[file] != made[file])
    missing, new = sorted(pinned.keys() - made.keys()), sorted(made.keys() - pinned.keys())
    assert not (changed or missing or new), (
        f"the {name} run's artifacts are not the pinned ones: changed {changed}, missing {missing}, new {new}. "
        f"If the change is meant to alter them, write the digests anew and commit them: {REGENERATE}"
    )
