"""Model SPECs: the one-string way to name an LLM (`local`, `openai:MODEL`, `azure:DEPLOYMENT`,
`openai:MODEL@BASE_URL`, or `PROVIDER:MODEL` for any provider LangChain's `init_chat_model` knows), and
the block form a config file may use instead."""

from __future__ import annotations

import os
import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

from intellagent.errors import UsageError

SPEC_HELP = ("use local, openai:MODEL, azure:DEPLOYMENT, openai:MODEL@BASE_URL, or PROVIDER:MODEL for another "
             "provider LangChain knows (anthropic:MODEL, ollama:MODEL, google_genai:MODEL, bedrock:MODEL, ...)")

# A provider's name as LangChain's init_chat_model spells it: lower case, digits, underscores.
_PROVIDER = re.compile(r"[a-z][a-z0-9_]*")

_URL_CREDENTIALS = re.compile(r"(https?://)[^/@\s]+@")


def without_credentials(text: str) -> str:
    """The text with the user and password of every URL in it masked (`http://***@host/v1`): a key may be
    given that way, and must appear in no file, log or message."""
    return _URL_CREDENTIALS.sub(r"\1***@", text)


class RateLimit(BaseModel):
    """A model's quota per minute, as its provider states it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    requests_per_minute: float | None = Field(default=None, gt=0, description="Requests started in any minute.")
    tokens_per_minute: float | None = Field(default=None, gt=0,
                                            description="Input and output tokens of the requests of any minute.")

    @model_validator(mode="after")
    def _some_limit(self) -> RateLimit:
        if self.requests_per_minute is None and self.tokens_per_minute is None:
            raise ValueError("a rate names requests_per_minute, tokens_per_minute or both")
        return self


class ModelSpec(BaseModel):
    """One LLM endpoint and its sampling settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: str = Field(
        pattern=_PROVIDER.pattern,
        description="local (embedded), openai, azure, scripted (tests only), or another provider LangChain's "
                    "init_chat_model knows (anthropic, ollama, google_genai, bedrock, ...).",
    )
    model: str | None = Field(default=None, description="Model name; for azure, the deployment name.")
    base_url: str | None = Field(default=None, description="Base URL of an OpenAI-compatible server.")
    api_version: str | None = Field(default=None, description="azure: API version (else OPENAI_API_VERSION).")
    api_key_env: str | None = Field(
        default=None, description="Env var with the key (default OPENAI_API_KEY / AZURE_OPENAI_API_KEY)."
    )
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature (0: one answer per prompt).")
    max_tokens: int | None = Field(default=None, ge=1, description="Cap on the answer's length.")
    timeout: float = Field(
        default=300.0, gt=0,
        description="Seconds to wait for one answer; for the embedded model, for its next token (it streams).",
    )
    prices: tuple[float, float] | None = Field(
        default=None, description="USD per million input and output tokens, for a model the price table lacks."
    )
    rate: RateLimit | None = Field(
        default=None, description="The provider's quota per minute, kept by every worker that calls this model."
    )

    @model_validator(mode="after")
    def _needs_model(self) -> ModelSpec:
        if self.provider not in ("local", "scripted") and not self.model:
            raise ValueError(f"provider {self.provider} needs a model ({SPEC_HELP})")
        return self

    @property
    def label(self) -> str:
        """The SPEC string this block is equivalent to (used in reports and accounting)."""
        if self.provider in ("local", "scripted"):
            return self.provider
        text = f"{self.provider}:{self.model}"
        return f"{text}@{without_credentials(self.base_url)}" if self.base_url else text


def parse_spec(text: str) -> ModelSpec:
    """Parse a SPEC string into a `ModelSpec`, or raise a `UsageError` that says what is accepted."""
    text = text.strip()
    if text in ("local", "scripted"):
        return ModelSpec(provider=text)
    provider, sep, rest = text.partition(":")
    if not sep or not rest or not _PROVIDER.fullmatch(provider) or provider in ("local", "scripted"):
        raise UsageError(f"model SPEC {text!r} not understood; {SPEC_HELP}")
    model, at, base_url = rest.partition("@")
    if at and provider != "openai":
        raise UsageError(f"model SPEC {text!r}: a base URL goes with openai:MODEL@URL only")
    if at and not base_url.startswith(("http://", "https://")):
        raise UsageError(f"model SPEC {text!r}: the base URL must start with http:// or https://")
    if not model:
        raise UsageError(f"model SPEC {text!r} names no model; {SPEC_HELP}")
    return ModelSpec(provider=provider, model=model, base_url=base_url or None)


def required_env(name: str, spec: ModelSpec) -> str:
    """The value of an environment variable the model needs (a key, an endpoint), or a `UsageError` naming it."""
    value = os.environ.get(name)
    if not value:
        raise UsageError(f"{name} is not set for {spec.label}; export it")
    return value
