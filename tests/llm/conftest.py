"""An `LLM` wired to the scripted double, with its own cache and accounting."""

from __future__ import annotations

import pytest

from intellagent.llm import DirectLLM, ModelSpec, ResponseCache, ScriptedLLM, Usage
from intellagent.llm.factory import build_chat_model, cache_identity


@pytest.fixture
def make_llm(tmp_path):
    """Build an `LLM` for a role on the scripted double; keyword options override defaults."""
    caches: list[ResponseCache] = []

    def make(script: ScriptedLLM, *, role: str = "policies", usage: Usage | None = None, **options) -> DirectLLM:
        spec = ModelSpec(provider="scripted")
        cache = ResponseCache(tmp_path / "cache.sqlite")
        caches.append(cache)
        return DirectLLM(
            role=role,
            spec=options.pop("spec", spec),
            model=options.pop("model", None) or build_chat_model(spec, role=role, seed=1, max_retries=0, script=script),
            identity=cache_identity(spec, seed=1),
            cache=cache,
            usage=usage or Usage(),
            **options,
        )

    yield make
    for cache in caches:
        cache.close()
