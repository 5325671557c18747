"""The LLMs of one dialog, counted in the dialog's own share of the run's accounting."""

from __future__ import annotations

import copy

from intellagent.llm import LLM, Usage


def counted(llm: LLM, usage: Usage) -> LLM:
    """The same model, cache and settings, with its calls counted in `usage`."""
    view = copy.copy(llm)
    view.usage = usage
    return view
