"""The models of one dialog: sampled with the dialog's own seed, and counted in its own share of the run's
accounting.

Requests are cached by their content, seed included. Two dialogs that reach the same prompt with the
run's one seed would get one sampled reply and go on alike, which a model sampled above temperature 0
is not expected to do. So a sampling model is given, per dialog, the run's seed plus a number drawn
from the dialog's id: stable across re-runs (the cache still answers a resumed run), different between
dialogs. At temperature 0 nothing changes: one prompt has one answer, and recorded runs keep their keys.
"""

from __future__ import annotations

import copy
import zlib

from intellagent.llm.accounting import Usage
from intellagent.llm.client import LLM

SEED_SPREAD = 1_000_000


def dialog_seed(seed: int, dialog_id: str) -> int:
    """The seed of one dialog's requests: the run's seed, moved by a number fixed by the dialog's id."""
    return seed + zlib.crc32(dialog_id.encode()) % SEED_SPREAD


def dialog_model(llm: LLM, *, seed: int, dialog_id: str) -> LLM:
    """The model as one dialog samples it: with the dialog's seed when it samples at all, else as it is."""
    if llm.options.get("temperature", llm.spec.temperature) <= 0:
        return llm
    return llm.with_options(seed=dialog_seed(seed, dialog_id))


def counted(llm: LLM, usage: Usage) -> LLM:
    """The same model, cache and settings, with its calls counted in `usage`."""
    view = copy.copy(llm)
    view.usage = usage
    return view
