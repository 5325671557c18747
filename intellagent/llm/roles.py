"""The models of a run, one `LLM` per role, built on first use from the config."""

from __future__ import annotations

from typing import Protocol

import httpx2
from langchain_core.language_models import BaseChatModel

from intellagent.llm.accounting import Usage
from intellagent.llm.cache import ResponseCache
from intellagent.llm.client import LLM, DirectLLM
from intellagent.llm.factory import build_chat_model, cache_identity, local_http_client
from intellagent.llm.rate_limit import RateLimiter
from intellagent.llm.scripted import ScriptedLLM
from intellagent.llm.spec import ModelSpec


class ModelSettings(Protocol):
    """What a run's models are built from: the run's config is one. The LLM layer names only what it reads of
    it, so that the config, which holds model SPECs, stands on the LLM layer and not the other way round."""

    seed: int
    llm_retries: int
    parse_retries: int

    def role_spec(self, role: str) -> ModelSpec:
        """The model configured for a framework role, or for `chatbot`."""
        ...


class ModelsByRole:
    """Every framework role's `LLM`, plus `chatbot` for the default chatbot under test, each built on first use."""

    def __init__(self, config: ModelSettings) -> None:
        self.config = config
        self._built: dict[str, LLM] = {}
        self._other: dict[tuple[str, str], LLM] = {}

    def spec(self, role: str) -> ModelSpec:
        """The model configured for a role."""
        return self.config.role_spec(role)

    def __getitem__(self, role: str) -> LLM:
        if role not in self._built:
            self._built[role] = self.build(role, self.spec(role))
        return self._built[role]

    def model(self, role: str, spec: ModelSpec) -> LLM:
        """The `LLM` of `role` on `spec`: the role's own when `spec` is the one configured for it, else one
        built for that SPEC once (a chatbot's own model, an endpoint)."""
        if spec == self.spec(role):
            return self[role]
        key = (role, spec.model_dump_json())
        if key not in self._other:
            self._other[key] = self.build(role, spec)
        return self._other[key]

    def build(self, role: str, spec: ModelSpec) -> LLM:
        """A new `LLM` for `role` on `spec`."""
        raise NotImplementedError


class RoleModels(ModelsByRole):
    """The models of the run's own process: each a `DirectLLM` on the run's cache, accounting and rate limits."""

    def __init__(
        self,
        config: ModelSettings,
        *,
        cache: ResponseCache,
        usage: Usage,
        replay: bool = False,
        script: ScriptedLLM | None = None,
    ) -> None:
        super().__init__(config)
        self.cache = cache
        self.usage = usage
        self.replay = replay
        self.script = script
        self._limiters: dict[tuple[str, str | None, str | None], RateLimiter] = {}
        self._local_client: httpx2.AsyncClient | None = None

    def build(self, role: str, spec: ModelSpec) -> LLM:
        """An `LLM` for `role` on `spec`, sharing this run's cache, accounting, seed and retries."""
        seed = self.config.seed

        limiter = self._limiter(spec)

        def connect() -> BaseChatModel:
            return build_chat_model(spec, role=role, seed=seed, max_retries=self.config.llm_retries, script=self.script,
                                    on_response=limiter.observe if limiter else None,
                                    local_client=self._shared_local_client() if spec.provider == "local" else None)

        # Remote clients are built now, so a missing key is reported before any work; the embedded
        # model is started only when a call is not answered from the cache. Under replay nothing is
        # ever sent, so nothing is built: CI replays a recorded run without the key it was made with.
        lazy = spec.provider == "local" or self.replay
        return DirectLLM(
            role=role,
            spec=spec,
            model=connect if lazy else connect(),
            identity=cache_identity(spec, seed=seed),
            cache=self.cache,
            usage=self.usage,
            replay=self.replay,
            parse_retries=self.config.parse_retries,
            limiter=limiter,
        )

    def _shared_local_client(self) -> httpx2.AsyncClient:
        """The one HTTP client of every role on the embedded model, made when the first of them is: the server's
        slots are shared out among all the run's requests, whichever role sends them."""
        if self._local_client is None:
            from intellagent.llm.embedded import local_server

            self._local_client = local_http_client(resends=self.config.llm_retries, slots=local_server().slots)
        return self._local_client

    def _limiter(self, spec: ModelSpec) -> RateLimiter | None:
        """The quota of `spec`'s model, one per model and endpoint whichever roles call it (the first role's
        `rate` is the one kept)."""
        if spec.rate is None:
            return None
        key = (spec.provider, spec.model, spec.base_url)
        if key not in self._limiters:
            self._limiters[key] = RateLimiter(spec.rate)
        return self._limiters[key]
