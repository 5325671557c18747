"""One factory from a `ModelSpec` to a LangChain chat model.

OpenAI, Azure OpenAI, any OpenAI-compatible server and the embedded model all go through
`langchain-openai`, in the Chat Completions API (the other providers: `providers`); transient errors
(timeouts, 429, 5xx, dropped connections) are retried by the OpenAI client itself, with exponential
backoff and jitter.

The embedded model is different: it runs on this machine's cores, so its speed is the machine's. Its
answers are streamed, and its timeout measures progress (no token for `timeout` seconds) rather than
the whole answer, so a slow machine is slow, not broken; and a request that stalled is not sent
again, since the same request would only redo the same work. A request that never reached it (refused,
or dropped before any byte of an answer) is sent again (`resend`).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import httpx2
from langchain_core.language_models import BaseChatModel

from intellagent.errors import UsageError
from intellagent.llm.chat_completions import AzureChatCompletions, ChatCompletions
from intellagent.llm.providers import provider_chat_model, speaks_chat_completions
from intellagent.llm.resend import ResendUnanswered
from intellagent.llm.spec import ModelSpec, required_env, without_credentials

if TYPE_CHECKING:
    from intellagent.llm.scripted import ScriptedLLM

ResponseHook = Callable[[httpx2.Response], Awaitable[None]]

# A local model must not write forever when a schema lets it (an endless array, say).
LOCAL_MAX_TOKENS = 1536

# Seconds allowed to reach the embedded server (in this process, so at once unless something is wrong).
LOCAL_CONNECT_TIMEOUT = 10.0

# Seconds an idle connection to the embedded server is kept for the next request. llama.cpp's HTTP
# server closes a connection idle for 5 seconds (cpp-httplib's keep-alive timeout); a client that kept
# it as long (httpx2's default is also 5) would now and then send a request on a connection the server
# was closing at that moment. A new connection on 127.0.0.1 costs a fraction of a millisecond.
LOCAL_KEEPALIVE_EXPIRY = 1.0

# Our own HTTP clients carry no socket options of langchain-openai's: with them it would build, for the
# synchronous client no call uses, a transport of its own that disables the proxy variables, and warn
# about it on every run where one is set. The asynchronous client is ours, and honours them.
NO_SOCKET_OPTIONS: tuple[tuple[int, int, int], ...] = ()


def answer_cap(spec: ModelSpec) -> int | None:
    """The most tokens one answer of this model may have: the configured cap, else the embedded model's."""
    return spec.max_tokens or (LOCAL_MAX_TOKENS if spec.provider == "local" else None)


def build_chat_model(
    spec: ModelSpec, *, role: str, seed: int, max_retries: int, script: ScriptedLLM | None = None,
    on_response: ResponseHook | None = None, local_client: httpx2.AsyncClient | None = None,
) -> BaseChatModel:
    """A chat model for `spec`.

    Args:
        spec: the provider, model and sampling settings.
        role: the framework role it serves (the scripted double answers by role).
        seed: sampling seed, sent to providers that honour it.
        max_retries: retries of a transient error before the call fails.
        script: the scripted test double, required when `spec.provider` is `scripted`.
        on_response: called with every HTTP response of a Chat Completions client, the ones its retries
            get included (the rate limiter sees each 429 there).
        local_client: the embedded model's HTTP client the run's roles share (see `local_http_client`);
            one of the model's own when not given.
    """
    hooks = {"response": [on_response]} if on_response else {}
    common: dict[str, Any] = {
        "temperature": spec.temperature,
        "max_tokens": spec.max_tokens,
        "timeout": spec.timeout,
        "max_retries": max_retries,
        "seed": seed,
        "http_socket_options": NO_SOCKET_OPTIONS,
    }
    if spec.provider == "local":
        from intellagent.llm.embedded import local_server

        server = local_server()
        client = local_client or local_http_client(resends=max_retries, slots=server.slots)
        return local_chat_model(spec, base_url=server.base_url, seed=seed, http_client=client)
    if spec.provider == "scripted":
        if script is None:
            raise UsageError("the scripted model exists for tests only; pass a ScriptedLLM to use it")
        return script.chat_model(role=role, event_hooks=hooks, **common)
    if not speaks_chat_completions(spec):
        return provider_chat_model(spec)
    # Each model gets an HTTP client of its own: LangChain's default one is shared process-wide, and its
    # pooled connections belong to the event loop of the first run, so a second run in the same process
    # (evaluate twice, freeze then evaluate) failed with "Event loop is closed".
    common["http_async_client"] = httpx2.AsyncClient(event_hooks=hooks)
    if spec.provider == "azure":
        return AzureChatCompletions(
            azure_deployment=spec.model,
            azure_endpoint=spec.base_url or required_env("AZURE_OPENAI_ENDPOINT", spec),
            api_version=spec.api_version or required_env("OPENAI_API_VERSION", spec),
            api_key=required_env(spec.api_key_env or "AZURE_OPENAI_API_KEY", spec),
            **common,
        )
    key_env = spec.api_key_env or "OPENAI_API_KEY"
    # A self-hosted OpenAI-compatible server usually wants no key; the client still needs a value.
    api_key = os.environ.get(key_env) or (None if spec.base_url is None else "not-needed")
    if api_key is None:
        raise UsageError(f"{key_env} is not set for {spec.label}; export it, or use --llm local")
    return ChatCompletions(model=spec.model, base_url=spec.base_url, api_key=api_key, **common)


def local_http_client(*, resends: int, slots: int) -> httpx2.AsyncClient:
    """An HTTP client for the embedded model's server that sends it at most `slots` requests at once.

    The server would queue the others, and a queued request's wait for its first byte runs against its
    timeout: on a busy machine, a request behind a long answer timed out without the model ever reading
    it. Held here instead, it waits for a connection, with no timeout; the roles of a run share one such
    client, so the server's slots are shared out among all of them.

    Args:
        resends: times a request that got no answer (refused, dropped unanswered) is sent again.
        slots: the requests the server works on at once.
    """
    limits = httpx2.Limits(max_connections=slots, keepalive_expiry=LOCAL_KEEPALIVE_EXPIRY)
    return httpx2.AsyncClient(transport=ResendUnanswered(label="local", resends=resends, limits=limits))


def local_chat_model(spec: ModelSpec, *, base_url: str, seed: int, http_client: httpx2.AsyncClient) -> ChatCompletions:
    """The client of the embedded model's server at `base_url`: streamed, timed by progress, a stalled answer
    never sent again, a request that got no answer at all sent again (by `http_client`, see `local_http_client`).

    Args:
        spec: the sampling settings; `timeout` is the longest wait for the next token once the server has the
            request.
        base_url: the server's OpenAI-compatible endpoint.
        seed: the sampling seed.
        http_client: the HTTP client it sends through.
    """
    from intellagent.llm.embedded import MODEL_NAME

    return ChatCompletions(
        model=MODEL_NAME, base_url=base_url, api_key="local", temperature=spec.temperature,
        max_tokens=answer_cap(spec), seed=seed, max_retries=0, streaming=True, stream_usage=True,
        http_socket_options=NO_SOCKET_OPTIONS,
        # Not the process-wide default client (see build_chat_model), nor the OpenAI client's retries: those
        # would send a stalled request again too.
        http_async_client=http_client,
        # Streamed, a read timeout is the longest wait for the next token, not for the whole answer; the
        # server also reports its progress through a long prompt, batch by batch, before the first token.
        # The wait for a free slot (`pool`) is not timed.
        timeout=httpx2.Timeout(spec.timeout, connect=LOCAL_CONNECT_TIMEOUT, pool=None),
        extra_body={"return_progress": True},
        # That read timeout is the only bound: langchain-openai's own wait per chunk (120 s) would cut short a
        # long prompt on a busy machine, whose batches can each take longer than that to read.
        stream_chunk_timeout=None,
    )


def cache_identity(spec: ModelSpec, *, seed: int) -> dict[str, Any]:
    """What identifies a model's answers in the cache: provider, model, endpoint and sampling."""
    identity = spec.model_dump(include={"provider", "model", "base_url", "temperature", "max_tokens"})
    if spec.base_url:  # the endpoint identifies the answers; a key written into its URL must not be stored
        identity["base_url"] = without_credentials(spec.base_url)
    if spec.provider == "local":
        from intellagent.llm.embedded import SHA256

        identity["model"] = SHA256
    return {**identity, "seed": seed}
